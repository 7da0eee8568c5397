// No path around the approval gate: `buy`, `purchases run` (a job's fire, intake requests) hold a run whose total
// is above the first threshold as a pending plan and buy none of it; an approval lets the next run (or `apply ID`)
// buy exactly those rows; expiry cancels them; approved plans hold their totals back from the daily budget.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PurchasePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { CLI, type CliResult } from "../helpers/cli.js";
import {
  approverKey,
  holdPurchasePosts,
  type Ledger,
  mtnPhones,
  openLedgerFor,
  readJson,
  savePlan,
} from "./helpers.js";

const posts = (sandbox: Sandbox) => sandbox.requests().filter((r) => r.method === "POST").length;

interface HeldPlan {
  id: string;
  status: string;
  author: string;
  origin: string;
  total: string;
  items: number;
}

describe("the approval gate", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  let key: string;
  let settings: Record<string, unknown>;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 15 });
    ledger = await openLedgerFor("postgres", sandbox, {});
    let publicKey: string;
    ({ key, publicKey } = await approverKey(ledger.dir, "ada"));
    settings = {
      purchases: [
        { name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 700) },
        { name: "small", plan: { network: "MTN", plan_id: "101" }, recipients: mtnPhones(2, 710) },
      ],
      approvals: {
        rules: [{ above: "500.00", approvals: 1 }],
        approvers: { ada: publicKey },
      },
    };
    ledger.rewrite(settings);
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(() => sandbox.reset());

  const heldPlans = async () =>
    (JSON.parse((await ledger.cli(["--json", "saved", "list"])).stdout) as HeldPlan[]).filter(
      (p) => p.origin === "held",
    );
  const approve = (id: string) => ledger.cli(["approve", id, "--as", "ada", "--key", key]);
  /** `purchases run` of the promo job's fire at `time`. */
  const promoFire = (time: string) => ["purchases", "run", "--job", "promo", "--fire-time", time];
  const states = (like: string) =>
    ledger.query<{ phone: string; state: string; reason: string | null; approval: string | null }>(
      sql`select phone, state, reason, approval from purchases where request_key like ${like} order by phone`,
    );

  it("purchases run: a job's fire above the threshold is held, and the next run after approval buys exactly it", async () => {
    const run = await ledger.cli(["purchases", "run", "--job", "promo", "--now"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /held for approval: 3 purchases for 915\.00 as saved plan p_\w+, needing 1 approval/,
    );
    expect(posts(sandbox)).toBe(0);
    const [plan] = await heldPlans();
    expect(plan).toMatchObject({ status: "pending_approval", total: "915.00", items: 3 });
    expect((await states("job:promo:%")).map((r) => r.state)).toEqual(["held", "held", "held"]);
    // Held rows are not bought by another run either.
    expect((await ledger.cli(["purchases", "run"])).code).toBe(0);
    expect(posts(sandbox)).toBe(0);

    expect((await approve(plan!.id)).code).toBe(0);
    const next = await ledger.cli(["purchases", "run"]);
    expect(next.code, next.stderr).toBe(0);
    const rows = await states("job:promo:%");
    expect(rows.map((r) => r.state)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(
      sandbox
        .debits()
        .map((d) => d.phone_number)
        .sort(),
    ).toEqual(rows.map((r) => r.phone));
    expect((await heldPlans()).find((p) => p.id === plan!.id)?.status).toBe("applied");
    expect((await ledger.cli(["purchases", "run"])).code).toBe(0);
    expect(sandbox.debits()).toHaveLength(3);
  });

  it("a run at or below the threshold is bought at once", async () => {
    const run = await ledger.cli(["purchases", "run", "--job", "small", "--now"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain("held for approval");
    expect(sandbox.debits()).toHaveLength(2);
  });

  it("buy: one purchase above the threshold is held; apply ID buys it once approved", async () => {
    const bought = await ledger.cli([
      "buy",
      "--network",
      "MTN",
      "--plan",
      "104",
      "--phone",
      "08034000900",
      "--yes",
    ]);
    expect(bought.code, bought.stderr).toBe(0);
    expect(bought.stdout).toMatch(/purchase \d+: held/);
    expect(bought.stdout).toMatch(/held for approval as saved plan (p_\w+) \(1405\.00, needs 1 approval\)/);
    const id = /saved plan (p_\w+)/.exec(bought.stdout)![1]!;
    expect(posts(sandbox)).toBe(0);
    const early = await ledger.cli(["apply", id]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("needs 1 distinct approval, has 0");
    expect((await approve(id)).code).toBe(0);
    const applied = await ledger.cli(["apply", id]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sandbox.debits().map((d) => [d.phone_number, d.plan_id])).toEqual([["08034000900", "104"]]);
    expect((await ledger.cli(["apply", id])).stdout).toContain("was applied at");
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("apply ID of an approved held plan whose purchases another run is sending is not reported applied: it says so, exit 1", async () => {
    const run = await ledger.cli(promoFire("2026-05-01T08:00:00Z"));
    expect(run.code, run.stderr).toBe(0);
    const id = /saved plan (p_\w+)/.exec(run.stdout)![1]!;
    expect((await approve(id)).code).toBe(0);
    // The next run (a daemon's, here a `purchases run`) releases the plan and sends its purchases, held in front of
    // the sandbox until the apply has ended.
    const holding = await holdPurchasePosts(ledger, sandbox, settings);
    try {
      const sending = ledger.cli(["purchases", "run"]);
      await holding.inFlight;
      const applied = await ledger.cli(["apply", id]);
      expect(applied.code, applied.stdout).toBe(1);
      expect(applied.stdout).not.toContain(`plan ${id} is applied`);
      expect(applied.stdout).toContain(`plan ${id} is not finished: 3 of its purchases are still being sent`);
      expect(applied.stdout).toContain(
        "3 taken by an earlier apply or run (bought, or being sent), not bought again",
      );
      const [during] = await ledger.query<{ status: string }>(
        sql`select status from saved_plans where id = ${id}`,
      );
      expect(during!.status).toBe("applying");
      holding.release();
      expect((await sending).code).toBe(0);
    } finally {
      await holding.close();
    }
    expect(sandbox.debits()).toHaveLength(3);
    // The run that sent them marked the plan applied once they were answered.
    const again = await ledger.cli(["apply", id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`plan ${id} was applied at`);
    expect(sandbox.debits()).toHaveLength(3);
  });

  it("intake: requests above the threshold are held; after approval the next run buys them", async () => {
    const phones = mtnPhones(4, 800);
    await ledger.query(
      sql`insert into purchase_requests (request_key, network, plan_id, phone)
          values ${sql.join(
            phones.map((p) => sql`(${`crm:${p}`}, 'MTN', '102', ${p})`),
            sql`, `,
          )}`,
    );
    const run = await ledger.cli(["purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/held for approval: 4 purchases for 1220\.00/);
    expect(posts(sandbox)).toBe(0);
    expect((await states("crm:%")).map((r) => r.state)).toEqual(["held", "held", "held", "held"]);
    const plan = (await heldPlans()).find((p) => p.status === "pending_approval")!;
    expect(plan.items).toBe(4);
    expect((await approve(plan.id)).code).toBe(0);
    expect((await ledger.cli(["purchases", "run"])).code).toBe(0);
    expect(
      sandbox
        .debits()
        .map((d) => d.phone_number)
        .sort(),
    ).toEqual(phones);
  });

  it("an expired held plan cancels its purchases with approval_expired", async () => {
    const run = await ledger.cli(promoFire("2026-06-01T08:00:00Z"));
    expect(run.stdout).toContain("held for approval");
    const plan = (await heldPlans()).find((p) => p.status === "pending_approval")!;
    await ledger.query(
      sql`update saved_plans set expires_at = now() - interval '1 second' where id = ${plan.id}`,
    );
    expect((await ledger.cli(["purchases", "run"])).code).toBe(0);
    const rows = await states("job:promo:2026-06-01%");
    expect(rows.map((r) => r.state)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(rows.every((r) => r.reason?.startsWith("approval_expired"))).toBe(true);
    expect((await heldPlans()).find((p) => p.id === plan.id)?.status).toBe("expired");
    const late = await approve(plan.id);
    expect(late.code).toBe(1);
    expect(posts(sandbox)).toBe(0);
  });

  it("approved plans hold their totals back from the daily budget; two racing for the last of it spend at most it", async () => {
    // What earlier tests spent today counts too: start from a day with 1,000 of headroom left over them.
    const [{ committed }] = (await ledger.query<{ committed: string }>(
      sql`select coalesce(sum(committed), 0)::text as committed from budget_days`,
    )) as [{ committed: string }];
    const limit = (Number(committed) + 1000).toFixed(2);
    ledger.rewrite({ ...settings, budget: { daily_limit: limit } });
    const save = async (fire: string) =>
      (await savePlan(ledger, "promo", fire, join(ledger.dir, `race-${fire}.plan`))).file;
    // Both saved while the budget is free, then approved: the first approved is first served.
    const first = await save("2026-07-01T08:00:00Z");
    const second = await save("2026-07-02T08:00:00Z");
    for (const file of [first, second])
      expect((await ledger.cli(["approve", file, "--as", "ada", "--key", key])).code).toBe(0);
    // 915 reserved by each approved plan: a purchase below the threshold finds the budget taken.
    const small = await ledger.cli([
      "buy",
      "--network",
      "MTN",
      "--plan",
      "101",
      "--phone",
      "08034000950",
      "--yes",
    ]);
    expect(small.stdout).toContain("daily_budget");
    // The dry run counts the reservations as the claim does.
    const dry = await ledger.cli([
      "buy",
      "--network",
      "MTN",
      "--plan",
      "101",
      "--phone",
      "08034000951",
      "--dry-run",
    ]);
    expect(dry.stdout).toContain("but it would be rejected: daily budget");
    // A fire the budget would refuse whole is still weighed by the gate, which holds it before any guard: the dry
    // run and the plan say so rather than only that the budget refuses it.
    const fire = promoFire("2026-08-01T08:00:00Z");
    const dryRun = await ledger.cli([...fire, "--dry-run"]);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain("would buy 0 for 0.00; would reject 3");
    expect(dryRun.stdout).toContain(
      "job promo fire 2026-08-01T08:00:00.000Z: held for approval when it runs (915.00 at live prices, above 500.00; 1 approval needed): nothing of it is bought until approved",
    );
    const dryBuy = await ledger.cli([
      ...["buy", "--network", "MTN", "--plan", "102", "--phone", "08034000952", "--dry-run"],
    ]);
    expect(dryBuy.stdout).not.toContain("held for approval"); // 305.00 is not above 500.00
    expect(posts(sandbox)).toBe(0);

    const apply = (file: string) =>
      new Promise<CliResult>((resolve) => {
        const child = spawn(process.execPath, [CLI, "-c", ledger.file, "apply", file, "--stale", "drop"], {
          env: { PATH: process.env.PATH ?? "" },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr, rawStderr: stderr }));
      });
    const results = await Promise.all([apply(first), apply(second)]);
    const spent = sandbox.debits().reduce((sum, d) => sum + Number(d.amount), 0);
    expect(spent).toBeLessThanOrEqual(1000);
    // First approved, first served: the first plan is bought whole.
    const firstPlan = readJson<PurchasePlan>(first);
    expect(
      sandbox
        .debits()
        .map((d) => d.phone_number)
        .sort(),
    ).toEqual(firstPlan.items.map((i) => i.phone).sort());
    expect(results[1]!.stdout + results[1]!.stderr).toMatch(/budget now short/);
  });

  it("plan shows which runs the gate would hold, and plan and report list the plans awaiting approval", async () => {
    ledger.rewrite(settings);
    const phones = mtnPhones(4, 850);
    await ledger.query(
      sql`insert into purchase_requests (request_key, network, plan_id, phone)
          values ${sql.join(
            phones.map((p) => sql`(${`later:${p}`}, 'MTN', '102', ${p})`),
            sql`, `,
          )}`,
    );
    const planned = JSON.parse((await ledger.cli(["plan", "--format", "json"])).stdout) as {
      approvals: { threshold: string; held_runs: Array<{ cost: string; approvals: number }> };
    };
    expect(planned.approvals.threshold).toBe("500.00");
    expect(planned.approvals.held_runs).toEqual([expect.objectContaining({ cost: "1220.00", approvals: 1 })]);
    expect((await ledger.cli(["plan"])).stdout).toContain("are held for approval (state held) when they run");
    const run = await ledger.cli(["purchases", "run"]);
    const id = /saved plan (p_\w+)/.exec(run.stdout)![1]!;
    const report = JSON.parse((await ledger.cli(["report", "--format", "json"])).stdout) as {
      open_plans: Array<{ id: string; status: string; total: string }>;
    };
    expect(report.open_plans).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, status: "pending_approval", total: "1220.00" })]),
    );
    expect((await ledger.cli(["report"])).stdout).toContain("Plans awaiting approval or apply");
    expect(posts(sandbox)).toBe(0);
  });
});
