// `topsync apply`: exactly the saved plan's items, once; stale, tampered, unknown and expired plans refused with
// zero purchase POSTs; an apply killed mid-way finished by applying again without buying anything twice.
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PurchasePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { CLI } from "../helpers/cli.js";
import { DB_KINDS } from "../helpers/db.js";
import { holdPurchasePosts, type Ledger, mtnPhones, openLedgerFor, readJson } from "./helpers.js";

const posts = (sandbox: Sandbox) => sandbox.requests().filter((r) => r.method === "POST").length;

function debitsByPhone(sandbox: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const debit of sandbox.debits())
    counts.set(debit.phone_number, (counts.get(debit.phone_number) ?? 0) + 1);
  return counts;
}

describe.each(DB_KINDS)("apply of a purchase plan (%s)", { timeout: 180_000 }, (kind) => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  const team = mtnPhones(6, 100);

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 11 });
    ledger = await openLedgerFor(kind, sandbox, {
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: team }],
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("buys exactly the saved items, and a second apply or a copy of the file buys nothing", async () => {
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
    expect(posts(sandbox)).toBe(0);

    const applied = await ledger.cli(["apply", file]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`plan ${plan.plan_id} is applied`);
    const debits = sandbox.debits();
    expect(debits.map((d) => [d.phone_number, d.plan_id, d.amount]).sort()).toEqual(
      plan.items.map((i) => [i.phone, i.plan_id, i.price]).sort(),
    );
    const rows = await ledger.query<{ request_key: string; state: string; approval: string }>(
      sql`select request_key, state, approval from purchases order by request_key`,
    );
    expect(rows.map((r) => r.request_key)).toEqual(plan.items.map((i) => i.request_key).sort());
    expect(new Set(rows.map((r) => `${r.state} ${r.approval}`))).toEqual(
      new Set([`succeeded plan:${plan.plan_id}`]),
    );
    const [status] = await ledger.query<{ status: string; reserved: string }>(
      sql`select status, reserved::text as reserved from saved_plans where id = ${plan.plan_id}`,
    );
    expect(status).toEqual({ status: "applied", reserved: "0.00" });

    const before = posts(sandbox);
    const again = await ledger.cli(["apply", file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`plan ${plan.plan_id} was applied at \\d{4}-.*; nothing was bought again`),
    );
    const copy = join(ledger.dir, "copy.plan");
    copyFileSync(file, copy);
    const copied = await ledger.cli(["apply", copy]);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toContain("was applied at");
    // The same fire run by hand: its keys are the plan's, bought already.
    const run = await ledger.cli([
      "purchases",
      "run",
      "--job",
      "promo",
      "--fire-time",
      "2026-04-01T08:00:00Z",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(posts(sandbox)).toBe(before);
    expect(sandbox.debits()).toHaveLength(plan.items.length);
  });
});

describe("apply refuses what is not the plan as saved", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 12 });
    ledger = await openLedgerFor("postgres", sandbox, {});
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(async () => {
    sandbox.reset();
    // Each test plans its own intake requests only.
    await ledger.query(sql`delete from purchase_requests`);
  });

  /** Intake requests for two plans (101 at 168.00, 102 at 305.00), saved as a `--queued` plan. */
  async function queuedPlan(name: string, phones: { p101: string[]; p102: string[] }): Promise<string> {
    const values = [
      ...phones.p101.map((p) => sql`(${`${name}:${p}`}, 'MTN', '101', ${p})`),
      ...phones.p102.map((p) => sql`(${`${name}:${p}`}, 'MTN', '102', ${p})`),
    ];
    await ledger.query(
      sql`insert into purchase_requests (request_key, network, plan_id, phone) values ${sql.join(values, sql`, `)}`,
    );
    const file = join(ledger.dir, `${name}.plan`);
    const saved = await ledger.cli(["purchases", "plan", "--queued", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    return file;
  }

  it("a price raised after saving: refuse buys nothing and names each item with both prices; drop buys the rest", async () => {
    const p101 = mtnPhones(2, 200);
    const p102 = mtnPhones(2, 210);
    const file = await queuedPlan("stale", { p101, p102 });
    sandbox.setOptions({ planPrices: { "102": "350.00" } });

    const refused = await ledger.cli(["apply", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("2 of 4 items are stale; nothing was bought");
    // Phones are masked in messages, request keys included.
    for (const phone of p102)
      expect(refused.stderr).toContain(`stale:${phone.slice(0, 4)}****${phone.slice(-3)}`);
    expect(refused.stderr.match(/price_rose: price rose from 305\.00 to 350\.00/g)).toHaveLength(2);
    expect(posts(sandbox)).toBe(0);
    // Still nothing in the ledger's purchases but the intake rows' keys, untouched.
    const [{ n }] = (await ledger.query<{ n: number }>(
      sql`select count(*)::int as n from purchases where approval like 'plan:%'`,
    )) as [{ n: number }];
    expect(n).toBe(0);

    const dropped = await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain("left out 2 stale items (--stale drop)");
    expect(dropped.stdout).toContain("price rose from 305.00 to 350.00");
    expect(
      sandbox
        .debits()
        .map((d) => d.phone_number)
        .sort(),
    ).toEqual([...p101].sort());
    expect(sandbox.debits().every((d) => d.plan_id === "101" && d.amount === "168.00")).toBe(true);
  });

  it("a tampered item, an unknown plan and a bad --stale are refused with zero purchases", async () => {
    const file = await queuedPlan("tamper", { p101: mtnPhones(2, 300), p102: [] });
    const plan = readJson<PurchasePlan>(file);
    const tampered = join(ledger.dir, "tampered.plan");
    const changed = { ...plan, items: [{ ...plan.items[0]!, phone: "08039999999" }, ...plan.items.slice(1)] };
    writeFileSync(tampered, JSON.stringify(changed));
    const a = await ledger.cli(["apply", tampered]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain("the file's items do not match the digest the ledger recorded");
    const first = plan.items[0]!.phone;
    expect(a.stderr).toContain(
      `item tamper:${first.slice(0, 4)}****${first.slice(-3)}: phone is 0803****999, the ledger recorded`,
    );

    const cheaper = join(ledger.dir, "cheaper.plan");
    writeFileSync(cheaper, JSON.stringify({ ...plan, total: "1.00" }));
    const b = await ledger.cli(["apply", cheaper]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(`the file's total 1.00 is not the recorded ${plan.total}`);

    const unknown = join(ledger.dir, "unknown.plan");
    writeFileSync(unknown, JSON.stringify({ ...plan, plan_id: "p_zzzzzzzzzzzz" }));
    const c = await ledger.cli(["apply", unknown]);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain("this ledger never recorded plan p_zzzzzzzzzzzz");

    const notPlan = join(ledger.dir, "not.plan");
    writeFileSync(notPlan, "hello");
    const d = await ledger.cli(["apply", notPlan]);
    expect(d.code).toBe(1);
    expect(d.stderr).toContain("is not a plan file");

    const usage = await ledger.cli(["apply", file, "--stale", "sometimes"]);
    expect(usage.code).toBe(64);
    const missing = await ledger.cli(["apply", join(ledger.dir, "nowhere.plan")]);
    expect(missing.code).toBe(64);
    expect(posts(sandbox)).toBe(0);

    // The untouched file still applies.
    const good = await ledger.cli(["apply", file]);
    expect(good.code, good.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(2);
  });

  it("an expired plan is refused and shown expired", async () => {
    const file = await queuedPlan("late", { p101: mtnPhones(1, 400), p102: [] });
    const plan = readJson<PurchasePlan>(file);
    // As if approvals.plan_ttl (24h) had passed since it was saved.
    await ledger.query(
      sql`update saved_plans set expires_at = now() - interval '1 minute' where id = ${plan.plan_id}`,
    );
    const result = await ledger.cli(["apply", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`plan ${plan.plan_id} expired at .* \\(approvals.plan_ttl\\)`));
    const [row] = await ledger.query<{ status: string }>(
      sql`select status from saved_plans where id = ${plan.plan_id}`,
    );
    expect(row?.status).toBe("expired");
    expect(posts(sandbox)).toBe(0);
  });

  it("a second apply while the first one's purchases are in flight buys nothing and says another apply holds the plan (exit 1); the first finishes it", async () => {
    const phones = mtnPhones(3, 1200);
    const file = await queuedPlan("racing", { p101: phones, p102: [] });
    const plan = readJson<PurchasePlan>(file);
    // The first apply's purchase POSTs are held in front of the sandbox until the second apply has ended.
    const holding = await holdPurchasePosts(ledger, sandbox);
    try {
      const first = ledger.cli(["apply", file]);
      await holding.inFlight;
      const second = await ledger.cli(["apply", file]);
      expect(second.code, second.stdout).toBe(1);
      expect(second.stderr).toContain(`another apply of plan ${plan.plan_id} is in progress`);
      expect(second.stderr).toContain("nothing was bought by this apply");
      expect(second.stdout).not.toContain("is applied");
      const [during] = await ledger.query<{ status: string }>(
        sql`select status from saved_plans where id = ${plan.plan_id}`,
      );
      expect(during!.status).toBe("applying");
      expect(sandbox.debits()).toHaveLength(0);

      holding.release();
      const done = await first;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toContain(`plan ${plan.plan_id} is applied`);
      expect(holding.held).toBe(phones.length);
      expect([...debitsByPhone(sandbox).entries()].sort()).toEqual(phones.map((p) => [p, 1]));
    } finally {
      await holding.close();
    }
  });

  it("an apply whose plan lock's session the database ends mid-way (a blip) still reports what it bought", async () => {
    const phones = mtnPhones(2, 1300);
    const file = await queuedPlan("blip", { p101: phones, p102: [] });
    const plan = readJson<PurchasePlan>(file);
    const holding = await holdPurchasePosts(ledger, sandbox);
    try {
      const applying = ledger.cli(["apply", file]);
      await holding.inFlight;
      // The session holding the plan's lock waits in its transaction while the purchases are sent: end it.
      const ended = await ledger.query<{ ended: boolean }>(
        sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
            where datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()`,
      );
      expect(ended.map((e) => e.ended)).toEqual([true]);
      holding.release();
      const done = await applying;
      expect(done.code, `${done.rawStderr}\n${done.stdout}`).toBe(0);
      expect(done.stdout).toContain(`plan ${plan.plan_id} is applied`);
      expect([...debitsByPhone(sandbox).entries()].sort()).toEqual(phones.map((p) => [p, 1]));
    } finally {
      await holding.close();
    }
  });

  it("an apply killed with SIGKILL mid-way, applied again, buys every item once and none twice", async () => {
    const phones = mtnPhones(120, 1000);
    const file = await queuedPlan("killed", { p101: phones, p102: [] });
    const plan = readJson<PurchasePlan>(file);
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 150 } } } });
    const child = spawn(process.execPath, [CLI, "-c", ledger.file, "apply", file], { stdio: "ignore" });
    while (sandbox.debits().length < 30) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const killedAt = sandbox.debits().length;
    expect(killedAt).toBeLessThan(phones.length);
    sandbox.setFaults({ endpoints: {} });

    const again = await ledger.cli(["apply", file]);
    expect([0, 1]).toContain(again.code); // 1 when a purchase the kill left in doubt is still to be settled
    expect(again.stdout).toContain(`plan ${plan.plan_id} is applied`);
    const byPhone = debitsByPhone(sandbox);
    expect(Math.max(...byPhone.values())).toBe(1);
    const rows = await ledger.query<{ phone: string; state: string }>(
      sql`select phone, state from purchases where approval = ${`plan:${plan.plan_id}`}`,
    );
    expect(rows).toHaveLength(phones.length);
    const inDoubt = rows.filter((r) => r.state === "in_doubt");
    expect(rows.filter((r) => r.state !== "in_doubt" && r.state !== "succeeded")).toEqual([]);
    // Every item was bought once, or is in doubt because the kill cut its call short (never sent twice).
    for (const row of rows) if (row.state === "succeeded") expect(byPhone.get(row.phone)).toBe(1);
    expect(inDoubt.length).toBeLessThanOrEqual(32);
    expect(sandbox.debits().length).toBeGreaterThan(killedAt);
    expect(readFileSync(file, "utf8")).toContain(plan.plan_id);
  });
});
