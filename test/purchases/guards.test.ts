// The claim applies the guards in SQL (under the lock, in one statement); dry runs apply them in JS
// (`applyGuards`, through the projection). This checks that both decide alike, message for message and code
// for code, on random batches.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { parseMoney } from "../../src/money.js";
import { claim, claimAndSubmit, readDue, toCandidates } from "../../src/purchases/claim.js";
import { applyGuards, budgetDay } from "../../src/purchases/guards.js";
import { insertPurchases } from "../../src/purchases/ledger.js";
import { projectPurchases } from "../../src/purchases/projection.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const network = { id: "1", code: "1", name: "MTN", other_name: "mtn" };
const PRICES = ["168.00", "305.00", "580.00", "1405.00", "99.50"];
const plans = PRICES.map((price, i) => ({
  id: String(100 + i),
  price: parseMoney(price),
  size: "1GB",
  size_mb: 1024,
  name: `plan ${i}`,
  type: "CORPORATE GIFTING",
}));
const catalogue = { networks: [network], plans: new Map([["1", plans]]) };

/** A small deterministic PRNG so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

let test: TestDatabase;
beforeAll(async () => {
  test = await openTestDatabase("postgres");
});
afterAll(() => test.drop());

describe("guards in SQL and in JS", () => {
  it("decide the same on 40 random batches", async () => {
    const now = new Date("2026-11-22T10:00:00Z");
    const day = budgetDay(now, "Africa/Lagos");
    const seen = new Set<string>();
    for (let round = 0; round < 40; round++) {
      const next = random(round + 1);
      const pick = (n: number) => Math.floor(next() * n);
      await test.database.db.execute(sql`truncate purchases, purchase_events, budget_days, kv`);
      const committed = (pick(40) * 100).toFixed(2);
      const balance = next() < 0.2 ? null : (pick(60) * 100 + 50).toFixed(2);
      await test.database.db.execute(
        sql`insert into budget_days (day, committed) values (${day}, ${committed})`,
      );
      await test.database.db.execute(
        sql`insert into kv (key, value) values ('wallet', ${JSON.stringify({ balance, as_of: now.toISOString() })}::jsonb)`,
      );
      const planIds = Array.from({ length: 1 + pick(12) }, () => plans[pick(plans.length)]!.id);
      await insertPurchases(
        test.database.db,
        planIds.map((plan_id, i) => ({
          request_key: `r${round}:${i}`,
          source: "buy",
          network: "MTN",
          plan_id,
          phone: `0803${String(1_000_000 + i)}`,
          ported: false,
          not_before: new Date(now.getTime() - 60_000 + i),
        })),
        "test",
      );
      const limits = {
        dailyLimit: next() < 0.7 ? parseMoney(((pick(60) + 10) * 100).toFixed(2)) : undefined,
        perRunLimit: next() < 0.5 ? parseMoney((pick(40) * 100).toFixed(2)) : undefined,
        minWalletBalance: parseMoney((pick(10) * 100).toFixed(2)),
      };
      const runCommitted = parseMoney((pick(10) * 100).toFixed(2));
      const claim = await claimAndSubmit(test.database, {
        limit: 50,
        now,
        runId: "r",
        actor: "test",
        catalogue,
        limits,
        runCommitted,
        timeZone: "Africa/Lagos",
      });
      const expected = applyGuards(
        planIds.map((id) => plans.find((p) => p.id === id)!.price),
        limits,
        {
          dailyCommitted: parseMoney(committed),
          runCommitted,
          walletBalance: balance ? parseMoney(balance) : undefined,
          inFlight: parseMoney("0"),
        },
      );
      const ledger = await rows<{ request_key: string; state: string; reason: string | null }>(
        test.database.db,
        sql`select request_key, state, reason from purchases order by id`,
      );
      const actual = ledger.map((r) => (r.state === "submitting" ? "ok" : r.reason));
      const wanted = expected.map((d) => (d.ok ? "ok" : `${d.code}: ${d.reason}`));
      expect({ round, decisions: actual }).toEqual({ round, decisions: wanted });
      expect(claim.toSend.length).toBe(expected.filter((d) => d.ok).length);
      for (const d of expected) seen.add(d.ok ? "ok" : d.code);
    }
    // the batches met every guard, and let some purchases through
    expect([...seen].sort()).toEqual(["daily_budget", "ok", "run_budget", "wallet_floor"]);
  });
});

describe("the projection and the claim", () => {
  it("give every row the same outcome and code, resolution refusals and guards mixed, on 25 random batches", async () => {
    const now = new Date("2026-11-22T10:00:00Z");
    const day = budgetDay(now, "Africa/Lagos");
    const unread = { id: "9", code: "9", name: "NINE", other_name: "nine" };
    const mixed = { networks: [network, unread], plans: catalogue.plans };
    const kinds = [
      { network: "MTN", phone: "08031" }, // a plain purchase (plan picked below)
      { network: "MTN", phone: "08051" }, // wrong_network
      { network: "MTN", phone: "0803" }, // invalid_phone
      { network: "VODAFONE", phone: "08031" }, // unknown_network
      { network: "NINE", phone: "08031" }, // catalogue_unavailable: waits
      { network: "MTN", phone: "08031", plan_id: "999" }, // plan_not_found
      { network: "MTN", phone: "08031", max_price: "100.00" }, // price_above_max unless the plan is cheaper
    ];
    const seen = new Set<string>();
    for (let round = 0; round < 25; round++) {
      const next = random(round + 101);
      const pick = (n: number) => Math.floor(next() * n);
      await test.database.db.execute(sql`truncate purchases, purchase_events, budget_days, kv`);
      const committed = (pick(20) * 100).toFixed(2);
      const balance = next() < 0.3 ? null : (pick(40) * 100 + 50).toFixed(2);
      await test.database.db.execute(
        sql`insert into budget_days (day, committed) values (${day}, ${committed})`,
      );
      await test.database.db.execute(
        sql`insert into kv (key, value) values ('wallet', ${JSON.stringify({ balance, as_of: now.toISOString() })}::jsonb)`,
      );
      const rowsIn = Array.from({ length: 3 + pick(14) }, (_, i) => {
        const kind = kinds[next() < 0.5 ? 0 : pick(kinds.length)]!;
        return {
          request_key: `m${round}:${i}`,
          source: "buy",
          network: kind.network,
          plan_id: kind.plan_id ?? plans[pick(plans.length)]!.id,
          phone: kind.phone.length === 5 ? `${kind.phone}${String(100_000 + i)}` : kind.phone,
          ported: false,
          max_price: kind.max_price ?? null,
          not_before: new Date(now.getTime() - 60_000 + i),
        };
      });
      await insertPurchases(test.database.db, rowsIn, "test");
      const limits = {
        dailyLimit: next() < 0.7 ? parseMoney(((pick(40) + 5) * 100).toFixed(2)) : undefined,
        perRunLimit: next() < 0.5 ? parseMoney((pick(30) * 100).toFixed(2)) : undefined,
        minWalletBalance: parseMoney((pick(10) * 100).toFixed(2)),
      };
      const projection = projectPurchases({
        now,
        timeZone: "Africa/Lagos",
        limits,
        runs: [{ kind: "queued", time: now, job: null, fireTime: null, rows: rowsIn }],
        existing: new Set(),
        catalogue: mixed,
        ledger: {
          inFlight: parseMoney("0"),
          wallet: balance ? { balance: parseMoney(balance), asOf: now } : null,
          committedByDay: new Map([[day, parseMoney(committed)]]),
        },
      });
      await claimAndSubmit(test.database, {
        limit: 50,
        now,
        runId: "r",
        actor: "test",
        catalogue: mixed,
        limits,
        runCommitted: parseMoney("0"),
        timeZone: "Africa/Lagos",
      });
      const ledger = await rows<{ request_key: string; state: string; reason: string | null }>(
        test.database.db,
        sql`select request_key, state, reason from purchases order by id`,
      );
      const OUTCOME: Record<string, string> = { submitting: "buy", rejected: "reject", queued: "unknown" };
      const actual = ledger.map((r) => `${OUTCOME[r.state]} ${r.reason ?? ""}`.trim());
      const wanted = projection.items.map((i) =>
        i.outcome === "reject" ? `reject ${i.code}: ${i.reason}` : i.outcome,
      );
      expect({ round, decisions: actual }).toEqual({ round, decisions: wanted });
      for (const i of projection.items) seen.add(i.code ?? i.outcome);
    }
    expect([...seen].sort()).toEqual([
      "buy",
      "catalogue_unavailable",
      "daily_budget",
      "invalid_phone",
      "plan_not_found",
      "price_above_max",
      "run_budget",
      "unknown_network",
      "wallet_floor",
      "wrong_network",
    ]);
  });
});

describe("the wallet floor under a race", () => {
  it("counts what another claimer moved to submitting after this claim's snapshot was taken", async () => {
    const now = new Date("2026-11-22T10:00:00Z");
    const day = budgetDay(now, "Africa/Lagos");
    const db = test.database.db;
    await db.execute(sql`truncate purchases, purchase_events, budget_days, kv`);
    await db.execute(sql`insert into budget_days (day, committed) values (${day}, 0)`);
    await db.execute(
      sql`insert into kv (key, value) values ('wallet', ${JSON.stringify({ balance: "700.00", as_of: now.toISOString() })}::jsonb)`,
    );
    await insertPurchases(
      db,
      ["other", "mine-1", "mine-2"].map((key, i) => ({
        request_key: key,
        source: "buy",
        network: "MTN",
        plan_id: "101", // 305.00
        phone: `0803100000${i}`,
        ported: false,
        not_before: new Date(now.getTime() - 60_000 + i),
      })),
      "test",
    );
    const mine = toCandidates(
      (await readDue(test.database, { now }, 10)).filter((row) => row.phone !== "08031000000"),
      catalogue,
    );
    // Another claimer holds the guard rows; this claim's statement starts (taking its snapshot) and waits.
    const other = postgres(test.url, { max: 1, onnotice: () => {} });
    let pending: ReturnType<typeof claim> | undefined;
    await other.begin(async (tx) => {
      await tx`select 1 from budget_days, kv where day = ${day} and key = 'wallet' for update`;
      pending = claim(test.database, mine, {
        now,
        runId: "mine",
        actor: "test",
        limits: { minWalletBalance: parseMoney("0.00") },
        runCommitted: parseMoney("0.00"),
        timeZone: "Africa/Lagos",
      });
      for (let waited = 0; ; waited += 20) {
        const [blocked] = await tx`select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and datname = current_database()`;
        if (blocked!.n > 0) break;
        if (waited > 5000) throw new Error("the claim never waited for the guard rows");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // ...the other claimer moves its purchase to submitting, as a claim does, and commits.
      await tx`update purchases set state = 'submitting', amount = 305.00, budget_day = ${day}
        where request_key = 'other'`;
      await tx`update budget_days set committed = committed + 305.00 where day = ${day}`;
      await tx`update kv set value = jsonb_set(value, '{claimed}', '305.00') where key = 'wallet'`;
    });
    await other.end();
    const claimed = await pending;
    // 700 less the other's 305 in flight: one more purchase of 305 fits above the floor of 0, not two.
    expect(claimed?.toSend.map((c) => c.row.phone)).toEqual(["08031000001"]);
    expect(claimed?.rejected.map((r) => r.code)).toEqual(["wallet_floor"]);
    expect(claimed?.rejected[0]?.reason).toContain("balance 700.00 less 610.00 in flight less 305.00");
  });
});
