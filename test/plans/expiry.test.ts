// Saved plans past their time with no approval rules configured: a purchase run ends them (status `expired`, one
// `plan_expired` notification, what they left unsent cancelled), once however many replicas race; the next run's
// expiry pass reads none of them again; a plan's purchases are never queued under it once it ended; and a claim
// refuses the row of a plan that expired between the read of the row and its claim.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { parseMoney } from "../../src/money.js";
import { claim, readDue, toCandidates } from "../../src/purchases/claim.js";
import { insertPlanRows, type PlanRow } from "../../src/purchases/plan-rows.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { type Ledger, mtnPhones, openLedgerFor, savePlan } from "./helpers.js";

describe("saved plans past their time, no approval rules", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 41 });
    ledger = await openLedgerFor("postgres", sandbox, {
      purchases: [
        { name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 4100) },
      ],
    });
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(() => sandbox.reset());

  const save = (fire: string) => savePlan(ledger, "promo", fire);

  it("a purchase run ends them: expired, one plan_expired each, their queued rows cancelled, even with racing runs", async () => {
    // One plan an apply left cut short (every purchase queued for an hour after a 429), one never applied.
    const cut = await save("2026-06-01T08:00:00Z");
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 3600 } } });
    const first = await ledger.cli(["apply", cut.file]);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain("is not finished");
    sandbox.setFaults({ endpoints: {} });
    const idle = await save("2026-06-02T08:00:00Z");
    const ids = [cut.plan.plan_id, idle.plan.plan_id];
    const statuses = async () =>
      (
        await ledger.query<{ id: string; status: string; reserved: string; ended: boolean }>(
          sql`select id, status, reserved::text as reserved, ended_at is not null as ended from saved_plans
              where id in (${sql.join(
                ids.map((id) => sql`${id}`),
                sql`, `,
              )}) order by id`,
        )
      ).map(({ id, ...rest }) => ({ plan: ids.indexOf(id), ...rest }));
    expect((await statuses()).map((s) => s.status).sort()).toEqual(["applying", "approved"]);

    // Both run out of time; the hour passes. Two replicas' runs start together.
    await ledger.query(
      sql`update saved_plans set expires_at = now() - interval '1 minute' where id in (${cut.plan.plan_id}, ${idle.plan.plan_id})`,
    );
    await ledger.query(
      sql`update purchases set not_before = now() where approval = ${`plan:${cut.plan.plan_id}`}`,
    );
    const runs = await Promise.all([ledger.cli(["purchases", "run"]), ledger.cli(["purchases", "run"])]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(0);

    // The status operators list is true without anyone running apply or approve.
    expect((await statuses()).sort((a, b) => a.plan - b.plan)).toEqual([
      { plan: 0, status: "expired", reserved: "0.00", ended: true },
      { plan: 1, status: "expired", reserved: "0.00", ended: true },
    ]);
    const notices = await ledger.query<{ subject: string; n: number }>(
      sql`select subject, count(*)::int as n from notification_outbox where trigger = 'plan_expired'
          group by subject order by subject`,
    );
    expect(notices).toEqual(
      ids.map((id) => ({ subject: `plan:${id}`, n: 1 })).sort((a, b) => (a.subject < b.subject ? -1 : 1)),
    );
    const cancelled = await ledger.query<{ state: string; reason: string; events: number }>(
      sql`select p.state, p.reason, (select count(*)::int from purchase_events e
            where e.purchase_id = p.id and e.to_state = 'cancelled') as events
          from purchases p where p.approval = ${`plan:${cut.plan.plan_id}`}`,
    );
    expect(cancelled).toHaveLength(cut.plan.items.length);
    for (const row of cancelled) {
      expect(row.state).toBe("cancelled");
      expect(row.reason).toContain(`approval_expired: saved plan ${cut.plan.plan_id}`);
      expect(row.events).toBe(1);
    }

    // What the next run's expiry pass reads: open plans past their time. None is left to read again.
    const [due] = await ledger.query<{ n: number }>(
      sql`select count(*)::int as n from saved_plans
          where status in ('pending_approval', 'approved', 'applying') and expires_at <= now()`,
    );
    expect(due?.n).toBe(0);
    const listed = await ledger.cli(["--json", "saved", "list"]);
    const plans = JSON.parse(listed.stdout) as Array<{ id: string; status: string; reason: string | null }>;
    for (const id of ids) {
      const plan = plans.find((p) => p.id === id);
      expect(plan?.status).toBe("expired");
      expect(plan?.reason).toMatch(/^not applied before /);
    }
  });
});

describe("a plan's purchases and its end, statement by statement", () => {
  let test: TestDatabase;
  const now = new Date();
  const network = { id: "1", code: "1", name: "MTN", other_name: "mtn" };
  const catalogue = {
    networks: [network],
    plans: new Map([
      [
        "1",
        [{ id: "102", price: parseMoney("250.00"), size: "1GB", size_mb: 1024, name: "1GB", type: "SME" }],
      ],
    ]),
  };

  beforeAll(async () => {
    test = await openTestDatabase("postgres");
  });
  afterAll(() => test.drop());

  const addPlan = (id: string, status: string) =>
    rows(
      test.database.db,
      sql`insert into saved_plans (id, kind, origin, author, status, digest, document, total, items,
            approvals_required, created_at, expires_at, approved_at)
          values (${id}, 'purchases', 'saved', 'ops', ${status}, 'sha256:x', '{"items":[]}'::json, 250, 1, 0,
            ${now.toISOString()}::timestamptz, ${new Date(now.getTime() + 3_600_000).toISOString()}::timestamptz,
            ${now.toISOString()}::timestamptz)`,
    );
  const item = (key: string, phone: string): PlanRow => ({
    request_key: key,
    source: "plan",
    job_name: null,
    fire_time: null,
    network: "MTN",
    plan_id: "102",
    phone,
    ported: false,
    price: "250.00",
    max_attempts: 3,
  });

  it("a claim takes no purchase of a plan that expired after its rows were read", async () => {
    await addPlan("p-late", "applying");
    await addPlan("p-live", "applying");
    expect(await insertPlanRows(test.database.db, "p-late", [item("k-late", "08035550001")], "test")).toBe(1);
    expect(await insertPlanRows(test.database.db, "p-live", [item("k-live", "08035550002")], "test")).toBe(1);
    // The run reads and claims a minute from now (its rows' not_before is the database's now).
    const at = new Date(Date.now() + 60_000);
    const due = await readDue(test.database, { now: at }, 10);
    expect(due).toHaveLength(2);
    // Between the read and the claim, the first plan's time runs out.
    await rows(
      test.database.db,
      sql`update saved_plans set expires_at = ${new Date(at.getTime() - 1).toISOString()}::timestamptz
          where id = 'p-late'`,
    );
    const result = await claim(test.database, toCandidates(due, catalogue), {
      now: at,
      runId: "r1",
      actor: "test",
      limits: { minWalletBalance: parseMoney("0") },
      runCommitted: parseMoney("0"),
      timeZone: "Africa/Lagos",
    });
    const states = await rows<{ request_key: string; state: string }>(
      test.database.db,
      sql`select request_key, state from purchases order by request_key`,
    );
    expect(states).toEqual([
      { request_key: "k-late", state: "queued" },
      { request_key: "k-live", state: "submitting" },
    ]);
    expect(result.toSend.map((c) => c.row.id)).toEqual(
      due.filter((r) => r.request_key === "k-live").map((r) => r.id),
    );
  });

  it("a queued row of a plan that ended before its time is neither read as due nor claimed", async () => {
    // The read (what a dry run and `purchases plan` project as bought) agrees with the claim, which refuses it.
    await addPlan("p-ended-early", "approved");
    expect(
      await insertPlanRows(test.database.db, "p-ended-early", [item("k-early", "08035550004")], "test"),
    ).toBe(1);
    await rows(test.database.db, sql`update saved_plans set status = 'rejected' where id = 'p-ended-early'`);
    const due = await readDue(test.database, { now: new Date(Date.now() + 60_000) }, 10);
    expect(due.map((r) => r.request_key)).not.toContain("k-early");
  });

  it("no purchase is queued under a plan that ended (an expiry that ran already would never see it)", async () => {
    await addPlan("p-ended", "expired");
    expect(await insertPlanRows(test.database.db, "p-ended", [item("k-ended", "08035550003")], "test")).toBe(
      0,
    );
    const [found] = await rows<{ n: number }>(
      test.database.db,
      sql`select count(*)::int as n from purchases where request_key = 'k-ended'`,
    );
    expect(found?.n).toBe(0);
  });
});
