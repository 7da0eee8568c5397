// One provider reference is one purchase. A provider whose purchase answer names a reference another purchase
// carries (a hostile reseller in front of the sandbox, over real HTTP) settles neither: the second purchase is
// unverified, both are flagged `reference_clash` for a person with an event each, and a person settles them. A batch
// of answers that name one reference twice is still written. On PostgreSQL and PGlite.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { TransitionBatcher } from "../../src/purchases/batcher.js";
import { executePurchases } from "../../src/purchases/executor.js";
import {
  flagReferenceClash,
  insertPurchases,
  isClash,
  markSubmitted,
  type NewPurchase,
  resolveByPerson,
} from "../../src/purchases/ledger.js";
import { type Evidence, matchProof } from "../../src/purchases/proof-match.js";
import { makeLedgerReport } from "../../src/report/ledger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { readLedgerStats } from "../../src/server/ledger-stats.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { resellerProxy } from "../helpers/reseller-proxy.js";

const purchase = (phone: string): NewPurchase => ({
  request_key: `clash:${phone}`,
  source: "buy",
  network: "MTN",
  plan_id: "102", // listed at 305.00
  phone,
  ported: false,
});

interface Row {
  id: number;
  state: string;
  reference: string | null;
  note: string | null;
  charged_amount: string | null;
  next_verify_at: Date | null;
}

describe.each(DB_KINDS)("one reference, two purchases, on %s", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;

  beforeAll(async () => {
    sandbox = await startSandbox({
      verifyLag: "reads",
      seed: 12,
      verifyNotFoundPolls: 0,
      verifyPendingPolls: 0,
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    sandbox.reset({ verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
    test = await openTestDatabase(kind);
  });
  afterEach(() => test.drop());

  const ledger = () =>
    rows<Row>(
      test.database.db,
      sql`select id::int as id, state, reference, note, charged_amount::text as charged_amount, next_verify_at
          from purchases order by id`,
    );
  const events = (id: number) =>
    rows<{ actor: string; from_state: string; to_state: string; reason: string }>(
      test.database.db,
      sql`select actor, from_state, to_state, reason from purchase_events where purchase_id = ${id} order by id`,
    );

  it("a purchase answer naming a reference another purchase carries: unverified, both flagged reference_clash, neither settled by it", async () => {
    // The provider gives the second purchase the first one's reference.
    let first: string | undefined;
    const proxy = await resellerProxy(sandbox.resellerUrl, (request, upstream) => {
      if (request.method !== "POST" || request.path !== "/public/api/data") return undefined;
      const body = upstream.body as { data: { reference: string } };
      first ??= body.data.reference;
      body.data.reference = first;
      return upstream;
    });
    const reseller = resellerFor({ resellerUrl: proxy.url, apiKey: sandbox.apiKey });
    try {
      await insertPurchases(test.database.db, [purchase("08031250001"), purchase("08031250002")], "test");
      await executePurchases(
        { database: test.database, reseller, config: testConfig(sandbox), logger: silentLogger() },
        { concurrency: 1, retryWaitMs: 0 },
      );
    } finally {
      await reseller.close();
      await proxy.close();
    }
    expect(sandbox.debits()).toHaveLength(2);
    // The purchase sent first took the reference; which of the two that is depends on the claim's order.
    const found = await ledger();
    expect(found).toHaveLength(2);
    const one = found.find((row) => row.reference === first);
    const two = found.find((row) => row !== one);
    expect(one).toMatchObject({ state: "succeeded", reference: first });
    expect(one!.note).toMatch(
      new RegExp(
        `^reference_clash: the provider's purchase answer for purchase ${two!.id} names reference ${first}`,
      ),
    );
    expect(two).toMatchObject({
      state: "unverified",
      reference: null,
      charged_amount: "305.00",
      next_verify_at: null,
    });
    expect(two!.note).toContain(`names reference ${first}, which purchase ${one!.id} carries`);
    // An event each: the second's move to unverified, the first's flag (its state unchanged).
    expect((await events(two!.id)).at(-1)).toMatchObject({
      from_state: "submitting",
      to_state: "unverified",
    });
    expect((await events(one!.id)).map((e) => e.reason)).toContainEqual(one!.note);
    // Both need a person: in the report, and on /metrics.
    const report = await makeLedgerReport(test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    const byId = (a: number, b: number) => a - b;
    expect(report.open.map((o) => o.id).sort(byId)).toEqual([one!.id, two!.id].sort(byId));
    expect(report.open[0]!.settle).toMatch(/^topsync purchases resolve /);
    const stats = await readLedgerStats(test.database.db, new Date(), "Africa/Lagos");
    expect(stats.noted.reference_clash).toBe(2);

    // A person decides: the reference is the first purchase's; the second is settled without it.
    const person = { actor: "person:test", reason: "checked on the provider's dashboard" };
    expect(
      await resolveByPerson(test.database.db, one!.id, "succeeded", { clash: true }, person),
    ).toMatchObject({
      from_state: "succeeded",
    });
    expect(
      await resolveByPerson(test.database.db, two!.id, "succeeded", { clash: true }, person),
    ).toMatchObject({
      from_state: "unverified",
    });
    const settled = await ledger();
    expect(settled.map((r) => [r.state, r.reference, r.note])).toEqual([
      ["succeeded", first, null],
      ["succeeded", null, null],
    ]);
    // Giving the second the reference the first carries is a clash again: nothing moves.
    const again = await resolveByPerson(
      test.database.db,
      two!.id,
      "failed",
      { reference: first, clash: true },
      person,
    );
    expect(isClash(again) && again.clashWith).toBe(one!.id);
    expect((await ledger())[1]!.state).toBe("succeeded");
  });

  it("a batch of answers naming one reference twice is written: one purchase takes it, the other is a clash", async () => {
    await insertPurchases(
      test.database.db,
      ["08031250011", "08031250012", "08031250013"].map(purchase),
      "test",
    );
    await test.database.db.execute(sql`update purchases set state = 'submitting'`);
    const [a, b, c] = (await ledger()).map((r) => r.id);
    const batcher = new TransitionBatcher(test.database.db, { gatherMs: 50 });
    const event = { actor: "test" };
    const at = new Date();
    const results = await Promise.all([
      markSubmitted(batcher, a!, "ONE-REFERENCE", at, event),
      markSubmitted(batcher, b!, "ONE-REFERENCE", at, event),
      markSubmitted(batcher, c!, "ANOTHER-REFERENCE", at, event),
    ]);
    expect(isClash(results[0])).toBe(false);
    expect(results[1]).toEqual({ id: b, from_state: "submitting", reference: "ONE-REFERENCE", clashWith: a });
    expect(isClash(results[2])).toBe(false);
    expect((await ledger()).map((r) => [r.state, r.reference])).toEqual([
      ["submitted", "ONE-REFERENCE"],
      ["submitting", null],
      ["submitted", "ANOTHER-REFERENCE"],
    ]);
    // Written by a later statement, the same reference is a clash with the purchase that carries it.
    const later = await markSubmitted(test.database.db, b!, "ONE-REFERENCE", at, event);
    expect(later).toMatchObject({ clashWith: a });
  });

  it("evidence goes to an in_doubt purchase only when no other purchase could own its transaction", async () => {
    // Purchases of one phone and amount, each with its POST (its move to submitting) a minute before the evidence.
    const at = new Date(Date.now() - 3_600_000);
    const posted = new Date(at.getTime() - 60_000);
    const add = async (key: string, phone: string, state: string, reference: string | null = null) => {
      await insertPurchases(test.database.db, [{ ...purchase(phone), request_key: `match:${key}` }], "test");
      await test.database.db.execute(
        sql`update purchases set state = ${state}, amount = 305, reference = ${reference},
              settled_at = case when ${state} in ('succeeded', 'failed') then now() end
            where request_key = ${`match:${key}`}`,
      );
      await test.database.db.execute(
        sql`insert into purchase_events (purchase_id, actor, from_state, to_state, at)
            select id, 'test', 'queued', 'submitting', ${posted.toISOString()} from purchases where request_key = ${`match:${key}`}`,
      );
      return (await ledger()).at(-1)!.id;
    };
    const evidence = (phone: string): Evidence => ({
      reference: "TX-1",
      phone,
      amount: "305.00",
      plan: null,
      at,
      what: "the test's evidence",
    });
    const window = 30 * 60_000;
    const match = (phone: string) => matchProof(test.database.db, evidence(phone), window);

    const alone = await add("alone", "08031260001", "in_doubt");
    await add("elsewhere", "08031260002", "in_doubt"); // another phone: no rival
    expect(await match("0803****001")).toMatchObject({ kind: "unique", purchase: { id: alone } });

    for (const [state, reference] of [
      ["submitting", null],
      ["submitted", "TX-OTHER-1"],
      ["unverified", "TX-OTHER-2"],
      ["succeeded", null],
      ["failed", null],
      ["in_doubt", null],
    ] as const) {
      const phone = `0803127${String(["submitting", "submitted", "unverified", "succeeded", "failed", "in_doubt"].indexOf(state)).padStart(4, "0")}`;
      const candidate = await add(`${state}:a`, phone, "in_doubt");
      const rival = await add(`${state}:b`, phone, state, reference);
      if (state === "submitted")
        await test.database.db.execute(
          sql`update purchases set submitted_at = ${posted.toISOString()} where id = ${rival}`,
        );
      const found = await match(phone);
      expect(found.kind, state).toBe("unmatched");
      expect(found.kind === "unmatched" && found.reason, state).toContain(
        state === "in_doubt"
          ? `2 in_doubt purchases could be it (${candidate}, ${rival})`
          : `in_doubt purchase ${candidate} could be it, but so could purchase ${rival} (${state})`,
      );
    }
    // A purchase settled with a reference of its own owns that transaction, not this one: no rival.
    const settled = await add("settled:a", "08031280001", "in_doubt");
    await add("settled:b", "08031280001", "succeeded", "TX-ITS-OWN");
    expect(await match("08031280001")).toMatchObject({ kind: "unique", purchase: { id: settled } });
    // A POST outside the window is no candidate.
    await test.database.db.execute(
      sql`update purchase_events set at = now() - interval '3 days' where purchase_id = ${settled}`,
    );
    expect(await match("08031280001")).toMatchObject({ kind: "unmatched" });
    // The evidence's reference on a purchase: it is that purchase's.
    expect(
      await matchProof(test.database.db, { ...evidence("08031280001"), reference: "TX-ITS-OWN" }, window),
    ).toMatchObject({
      kind: "owned",
    });
  });
});

describe.each(DB_KINDS)("a flag on an in_doubt purchase, on %s", (kind) => {
  it("keeps how long it has been in doubt: the oldest-in-doubt gauge does not start again", async () => {
    const test = await openTestDatabase(kind);
    try {
      const db = test.database.db;
      await insertPurchases(db, [purchase("08031299001")], "test");
      const [row] = await rows<{ id: number }>(db, sql`select id::int as id from purchases`);
      const since = new Date(Date.now() - 3_600_000);
      await rows(
        db,
        sql`update purchases set state = 'in_doubt', updated_at = ${since.toISOString()}::timestamptz where id = ${row!.id}`,
      );
      const before = await readLedgerStats(db, new Date(), "Africa/Lagos");
      expect(before.inDoubtOldestSeconds).toBeGreaterThanOrEqual(3600);
      expect(
        await flagReferenceClash(db, [row!.id], "the provider's answer of purchase 99 names its reference", {
          actor: "test",
        }),
      ).toEqual([row!.id]);
      const [after] = await rows<{ note: string; updated_at: Date | string }>(
        db,
        sql`select note, updated_at from purchases where id = ${row!.id}`,
      );
      expect(after!.note).toMatch(/^reference_clash: /);
      expect(new Date(after!.updated_at).getTime()).toBe(since.getTime());
      expect(
        (await readLedgerStats(db, new Date(), "Africa/Lagos")).inDoubtOldestSeconds,
      ).toBeGreaterThanOrEqual(3600);
    } finally {
      await test.drop();
    }
  });
});
