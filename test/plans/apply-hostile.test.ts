// `apply` against what happens to the ledger between a plan's approval and its apply: a queued row of an item's key
// that is not the item, the purchases an apply left queued when its plan expires, and an author who approves their
// own plan under another spelling of their name.
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PurchasePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { waitFor } from "../helpers/wait.js";
import { approverKey, type Ledger, mtnPhones, openLedgerFor, readJson, savePlan } from "./helpers.js";

describe("apply after the ledger moved under an approved plan", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  let key: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 21 });
    ledger = await openLedgerFor("postgres", sandbox, {});
    let publicKey: string;
    ({ key, publicKey } = await approverKey(ledger.dir, "ada"));
    ledger.rewrite({
      purchases: [
        { name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 300) },
        { name: "sized", plan: { network: "MTN", size: "1GB" }, recipients: mtnPhones(2, 800) },
      ],
      websites: { items: [{ domain: "alpha.example.com" }] },
      approvals: {
        rules: [{ above: "500.00", approvals: 1 }],
        approvers: { ada: publicKey },
      },
    });
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(() => sandbox.reset());

  const approve = (file: string) => ledger.cli(["approve", file, "--as", "ada", "--key", key]);

  it("an intake request rewritten after its plan was approved is not bought for the new phone", async () => {
    const [planned, other] = mtnPhones(2, 500);
    await ledger.query(
      sql`insert into purchase_requests (request_key, network, plan_id, phone) values ('crm-1', 'MTN', '104', ${planned})`,
    );
    const file = join(ledger.dir, "queued.plan");
    const saved = await ledger.cli(["purchases", "plan", "--queued", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    const plan = readJson<PurchasePlan>(file);
    expect(plan.items.map((i) => [i.request_key, i.phone])).toEqual([["crm-1", planned]]);
    expect((await approve(file)).code).toBe(0);

    // The caller rewrites its request (another phone, for later); a run moves it into the ledger, not yet due.
    await ledger.query(
      sql`update purchase_requests set phone = ${other}, not_before = now() + interval '1 hour' where request_key = 'crm-1'`,
    );
    expect((await ledger.cli(["purchases", "run"])).code).toBe(0);

    const applied = await ledger.cli(["apply", file]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("key_taken: key queued by another source");
    const [row] = await ledger.query<{ phone: string; approval: string | null }>(
      sql`select phone, approval from purchases where request_key = 'crm-1'`,
    );
    expect(row).toEqual({ phone: other, approval: null });

    // An hour later: the plan's apply still buys nothing for a phone no approver saw.
    await ledger.query(sql`update purchases set not_before = now() where request_key = 'crm-1'`);
    await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(sandbox.debits().map((d) => d.phone_number)).not.toContain(other);
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("what an apply left queued is cancelled when its plan expires, not bought by the next run", async () => {
    const file = join(ledger.dir, "promo.plan");
    const saved = await ledger.cli([
      "purchases",
      "plan",
      "--job",
      "promo",
      "--fire-time",
      "2026-04-01T08:00:00Z",
      "--save",
      file,
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    const plan = readJson<PurchasePlan>(file);
    expect((await approve(file)).code).toBe(0);
    // The reseller asks to come back in an hour: the apply leaves every purchase queued, not finished.
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 3600 } } });
    const cut = await ledger.cli(["apply", file]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toContain("is not finished");
    expect(sandbox.debits()).toHaveLength(0);
    sandbox.setFaults({ endpoints: {} });

    // The plan's time runs out before anyone applies it again; the hour passes.
    await ledger.query(
      sql`update saved_plans set expires_at = now() - interval '1 minute' where id = ${plan.plan_id}`,
    );
    await ledger.query(
      sql`update purchases set not_before = now() where approval = ${`plan:${plan.plan_id}`}`,
    );
    const run = await ledger.cli(["purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(0);
    const rows = await ledger.query<{ state: string; reason: string }>(
      sql`select state, reason from purchases where approval = ${`plan:${plan.plan_id}`}`,
    );
    expect(rows).toHaveLength(plan.items.length);
    for (const row of rows) {
      expect(row.state).toBe("cancelled");
      expect(row.reason).toContain(`approval_expired: saved plan ${plan.plan_id}`);
    }
    const [status] = await ledger.query<{ status: string }>(
      sql`select status from saved_plans where id = ${plan.plan_id}`,
    );
    expect(status?.status).toBe("expired");
  });

  it("an author cannot approve their own plan under another spelling of their name", async () => {
    for (const [i, author] of ["ADA", " ada ", "\uff41da"].entries()) {
      const file = join(ledger.dir, `own-${i}.plan`);
      const fire = `2026-04-0${i + 2}T08:00:00Z`;
      const saved = await ledger.cli([
        "purchases",
        "plan",
        "--job",
        "promo",
        "--fire-time",
        fire,
        "--save",
        file,
        "--as",
        author,
      ]);
      expect(saved.code, saved.stderr).toBe(0);
      const plan = readJson<PurchasePlan>(file);
      expect(plan.author).toBe(author);
      const approved = await approve(file);
      expect(approved.code).toBe(1);
      expect(approved.stderr).toContain("an author cannot approve their own plan");
      const [row] = await ledger.query<{ status: string }>(
        sql`select status from saved_plans where id = ${plan.plan_id}`,
      );
      expect(row?.status).toBe("pending_approval");
      const applied = await ledger.cli(["apply", file]);
      expect(applied.code).toBe(1);
    }
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("a held fire by plan size buys the plan it was held and approved at, not one listed cheaper since", async () => {
    const held = await ledger.cli(["--json", "purchases", "run", "--job", "sized", "--now"]);
    expect(held.code, held.stderr).toBe(0);
    const [row] = await ledger.query<{
      id: string;
      document: { items: Array<{ plan_id: string; price: string }> };
    }>(
      sql`select id, document from saved_plans where origin = 'held' and document->'request'->>'job' = 'sized'`,
    );
    const planned = row!.document.items.map((i) => [i.plan_id, i.price]);
    expect(planned).toEqual([
      ["107", "270.00"],
      ["107", "270.00"],
    ]);
    // Another 1GB plan is listed cheaper after the hold; the approval is of plan 107.
    sandbox.setOptions({ planPrices: { "102": "260.00" } });
    expect((await approve(row!.id)).code).toBe(0);
    const run = await ledger.cli(["purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.debits().map((d) => [d.plan_id, d.amount])).toEqual(planned);
  });

  it("a plan whose file cannot be written is not recorded, nor left for anyone to approve", async () => {
    const count = async () =>
      (await ledger.query<{ n: number }>(sql`select count(*)::int as n from saved_plans`))[0]!.n;
    const before = await count();
    const nowhere = join(ledger.dir, "no-such-folder", "sites.plan");
    const sites = await ledger.cli(["websites", "plan", "--save", nowhere]);
    expect(sites.code).toBe(64);
    expect(sites.stderr).toContain(`cannot write the plan file ${nowhere}`);
    const purchases = await ledger.cli(["purchases", "plan", "--job", "promo", "--now", "--save", nowhere]);
    expect(purchases.code).toBe(64);
    const folder = await ledger.cli(["websites", "plan", "--save", ledger.dir]);
    expect(folder.code).toBe(64);
    expect(await count()).toBe(before);
    const saved = await ledger.cli(["websites", "plan", "--save", join(ledger.dir, "sites.plan")]);
    expect(saved.code, saved.stderr).toBe(0);
  });

  it("a queued row that names its plan by size is taken into a plan as the plan it was saved at", async () => {
    // The plans could not be read when the fire was written: its rows wait, unpriced, for a run that can price them.
    sandbox.setFaults({ endpoints: { plans: { rate500Before: 1 } } });
    const fire = "2026-04-09T08:00:00Z";
    await ledger.cli(["purchases", "run", "--job", "sized", "--fire-time", fire]);
    sandbox.setFaults({ endpoints: {} });
    const waiting = await ledger.query<{ state: string; approval: string | null }>(
      sql`select state, approval from purchases where request_key like ${`job:sized:${fire.replace("Z", ".000Z")}:%`}`,
    );
    expect(waiting).toEqual([
      { state: "queued", approval: null },
      { state: "queued", approval: null },
    ]);
    const file = join(ledger.dir, "sized.plan");
    const saved = await ledger.cli(["purchases", "plan", "--queued", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    const plan = readJson<PurchasePlan>(file);
    const items = plan.items.filter((i) => i.job === "sized");
    expect(items.map((i) => [i.plan_id, i.price])).toEqual([
      ["107", "270.00"],
      ["107", "270.00"],
    ]);
    expect((await approve(file)).code).toBe(0);
    sandbox.setOptions({ planPrices: { "102": "260.00" } });
    const applied = await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(applied.stderr).not.toContain("job:sized");
    expect(sandbox.debits().map((d) => [d.plan_id, d.amount])).toEqual([
      ["107", "270.00"],
      ["107", "270.00"],
    ]);
  });
});

describe("apply when the reseller or the clock moves under a plan, with no approval rules", {
  timeout: 120_000,
}, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 22 });
    ledger = await openLedgerFor("postgres", sandbox, {
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 900) }],
    });
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(() => sandbox.reset());

  const save = (fire: string) => savePlan(ledger, "promo", fire);
  const status = async (id: string) =>
    (await ledger.query<{ status: string }>(sql`select status from saved_plans where id = ${id}`))[0]?.status;

  it("--stale drop does not drop items the catalogue could not price for now: the plan is left to apply again", async () => {
    const { file, plan } = await save("2026-05-01T08:00:00Z");
    // The plans list answers 500 for a moment: nothing can be priced.
    sandbox.setFaults({ endpoints: { plans: { rate500Before: 1 } } });
    const blip = await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(blip.code).toBe(1);
    expect(blip.stdout).not.toContain("is applied");
    expect(sandbox.debits()).toHaveLength(0);
    expect(await status(plan.plan_id)).not.toBe("applied");

    sandbox.setFaults({ endpoints: {} });
    const again = await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("is applied");
    expect(sandbox.debits()).toHaveLength(plan.items.length);
    expect(await status(plan.plan_id)).toBe("applied");
  });

  it("--stale drop leaves items today's budget cannot hold for the next apply, and does not call the plan applied", async () => {
    const { file, plan } = await save("2026-05-20T08:00:00Z");
    // Room today, beside what earlier tests spent, for two of the three items at 305.00.
    const [spent] = await ledger.query<{ committed: string }>(
      sql`select coalesce(max(committed), 0)::text as committed from budget_days`,
    );
    ledger.rewrite({
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 900) }],
      budget: { daily_limit: (Number(spent!.committed) + 700).toFixed(2) },
    });
    try {
      const short = await ledger.cli(["--json", "apply", file, "--stale", "drop"]);
      expect(short.code).toBe(1);
      const result = JSON.parse(short.stdout) as {
        result: string;
        dropped: unknown[];
        later: Array<{ code: string }>;
      };
      expect(result.result).toBe("applying");
      expect(result.dropped).toEqual([]);
      expect(result.later.map((l) => l.code)).toEqual(["budget_short"]);
      expect(sandbox.debits()).toHaveLength(2);
      expect(await status(plan.plan_id)).not.toBe("applied");
    } finally {
      ledger.rewrite({
        purchases: [
          { name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 900) },
        ],
      });
    }
    // With room again (tomorrow's budget, a higher limit), the same plan buys the item it left, and only that one.
    const again = await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("is applied");
    expect(sandbox.debits()).toHaveLength(3);
    expect(await status(plan.plan_id)).toBe("applied");
  });

  it("what an apply left queued is not bought by an ordinary run once its plan expired", async () => {
    const { file, plan } = await save("2026-05-02T08:00:00Z");
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 3600 } } });
    const cut = await ledger.cli(["apply", file]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toContain("is not finished");
    sandbox.setFaults({ endpoints: {} });

    await ledger.query(
      sql`update saved_plans set expires_at = now() - interval '1 minute' where id = ${plan.plan_id}`,
    );
    await ledger.query(
      sql`update purchases set not_before = now() where approval = ${`plan:${plan.plan_id}`}`,
    );
    const run = await ledger.cli(["purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(0);
    const rows = await ledger.query<{ state: string; reason: string }>(
      sql`select state, reason from purchases where approval = ${`plan:${plan.plan_id}`}`,
    );
    expect(rows.map((r) => r.state)).toEqual(plan.items.map(() => "cancelled"));
    for (const row of rows) expect(row.reason).toContain(`approval_expired: saved plan ${plan.plan_id}`);
    const again = await ledger.cli(["apply", file]);
    expect(again.code).toBe(1);
    expect(await status(plan.plan_id)).toBe("expired");
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("a purchase waiting out a 429 in its apply's run is not bought once the plan expired", async () => {
    const { file, plan } = await save("2026-05-04T08:00:00Z");
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 2 } } });
    const applying = ledger.cli(["apply", file]);
    // Every purchase was answered 429 and waits in the queue for the run to send it again; the plan expires.
    await waitFor("the plan's purchases queued again after a 429", async () => {
      const [row] = await ledger.query<{ n: number }>(
        sql`select count(*)::int as n from purchases where approval = ${`plan:${plan.plan_id}`}
              and state = 'queued' and attempts > 0`,
      );
      return row?.n === plan.items.length;
    });
    await ledger.query(sql`update saved_plans set expires_at = now() where id = ${plan.plan_id}`);
    sandbox.setFaults({ endpoints: {} });
    const applied = await applying;
    expect(applied.code).toBe(1);
    expect(sandbox.debits()).toHaveLength(0);
    expect(applied.stdout).toContain("expired");
    expect(await status(plan.plan_id)).toBe("expired");
  });

  it("a plan that expires while its apply runs is not reported applied", async () => {
    const { file, plan } = await save("2026-05-03T08:00:00Z");
    // Each purchase takes a while to answer; the plan expires (another process's look) while the first is sent.
    sandbox.setFaults({ endpoints: { data: { latencyMs: 1500 } } });
    const applying = ledger.cli(["apply", file]);
    await waitFor("a purchase of the plan in submitting", async () => {
      const [row] = await ledger.query<{ n: number }>(
        sql`select count(*)::int as n from purchases where approval = ${`plan:${plan.plan_id}`} and state = 'submitting'`,
      );
      return (row?.n ?? 0) > 0;
    });
    await ledger.query(
      sql`update saved_plans set status = 'expired', reserved = 0, ended_at = now(), expires_at = now()
          where id = ${plan.plan_id}`,
    );
    const applied = await applying;
    expect(await status(plan.plan_id)).toBe("expired");
    expect(applied.stdout).not.toContain("is applied");
    expect(applied.stdout).toContain("expired");
    expect(applied.code).toBe(1);
  });
});
