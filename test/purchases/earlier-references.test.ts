// A purchase a person requeues after the provider failed it keeps the failed attempt's transaction as its own, but
// not as its current reference: its new attempt's transaction is another one. Evidence naming the failed attempt's
// reference is about this purchase (never another's); evidence about the new attempt, when a person settled it
// without naming its reference, could be this purchase's, so it settles no other purchase.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { requeueAsPerson, resolveAsPerson } from "../../src/purchases/by-person.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { findPurchase } from "../../src/purchases/ledger-read.js";
import { notificationDeps, processNotification } from "../../src/purchases/notifications.js";
import type { Debit } from "../../src/sandbox/records.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { storeNotice } from "../helpers/notification.js";
import { sandboxLedger } from "../helpers/sandbox-ledger.js";
import { reconcileApplied, statementOf } from "../helpers/statement.js";

const PHONE = "08031239301";
const purchase = (key: string): NewPurchase => ({
  request_key: `earlier:${key}`,
  source: "buy",
  network: "MTN",
  plan_id: "102", // listed at 305.00
  phone: PHONE,
  ported: false,
});

describe("a requeued purchase's earlier reference, on postgres", () => {
  const env = sandboxLedger(13);
  const ledger = () =>
    rows<{ id: number; state: string; reference: string | null }>(
      env.test.database.db,
      sql`select id::int as id, state, reference from purchases order by id`,
    );
  const debitsOfPhone = () => env.sandbox.debits().filter((d) => d.phone_number === PHONE);
  const person = { actor: "ops@example.com", reason: "checked with the provider" };

  /**
   * Purchase P fails at the provider (its transaction F, refunded); a person requeues it; its new attempt's answer is
   * lost after the debit (transaction N), so it is in_doubt. Returns P's id and both transactions.
   */
  async function requeuedInDoubt(): Promise<{ p: number; failed: Debit; again: Debit }> {
    env.sandbox.setOptions({ failRate: 1 });
    await insertPurchases(env.test.database.db, [purchase("p")], "test");
    await env.run();
    const [failed] = await ledger();
    expect(failed).toMatchObject({ state: "failed" });
    expect(failed!.reference).not.toBeNull();
    const row = await findPurchase(env.test.database.db, String(failed!.id));
    expect(await requeueAsPerson(env.test.database.db, row, person)).toMatchObject({ ok: true });
    env.sandbox.setOptions({ failRate: 0 });
    await env.runLosingAnswers();
    const [p] = await ledger();
    expect(p).toMatchObject({ id: failed!.id, state: "in_doubt" });
    const debits = debitsOfPhone();
    expect(debits).toHaveLength(2);
    expect(debits[0]!.reference).toBe(failed!.reference);
    return { p: p!.id, failed: debits[0]!, again: debits[1]! };
  }

  /** Purchase Q for the same phone and plan, its answer lost after the debit: in_doubt. */
  async function rivalInDoubt(): Promise<number> {
    await insertPurchases(env.test.database.db, [purchase("q")], "test");
    await env.runLosingAnswers();
    const q = (await ledger()).at(-1)!;
    expect(q).toMatchObject({ state: "in_doubt" });
    return q.id;
  }

  async function notify(debit: Debit, status = "successful") {
    const { stored } = await storeNotice(env.test.database.db, status, {
      reference: debit.reference,
      amount: debit.amount,
      phone_number: debit.phone_number,
      date: debit.at,
    });
    const deps = notificationDeps({
      db: env.test.database.db,
      reseller: env.reseller,
      config: testConfig(env.sandbox, { webhooks: { enabled: true, secret: "s" } }),
      logger: silentLogger(),
      clock: systemClock,
    });
    return processNotification(deps, stored.id);
  }

  it("a person settles the new attempt without its reference: the purchase no longer shows the failed attempt's reference, and a notification of the new attempt's transaction settles no other in_doubt purchase", async () => {
    const { p, failed, again } = await requeuedInDoubt();
    const row = await findPurchase(env.test.database.db, String(p));
    expect(await resolveAsPerson(env.test.database.db, row, "succeeded", undefined, person)).toMatchObject({
      ok: true,
    });
    // The failed attempt's transaction is not what this purchase bought.
    expect((await ledger())[0]).toMatchObject({ id: p, state: "succeeded", reference: null });
    const q = await rivalInDoubt();

    // P's new transaction: P could be it (settled by a person, no reference), so Q is not the only purchase it can be.
    const result = await notify(again);
    expect(result).toMatchObject({ outcome: "unmatched" });
    expect(result!.reason).toContain(`purchase ${p} (succeeded)`);
    expect((await ledger()).find((r) => r.id === q)).toMatchObject({ state: "in_doubt", reference: null });

    // The failed attempt's reference still names P: found by it, and its notification settles nothing else.
    expect((await findPurchase(env.test.database.db, failed.reference)).id).toBe(p);
    expect(await notify(failed, "failed")).toMatchObject({ outcome: "matched", purchaseId: p });
  });

  it("after the new attempt takes a reference of its own, a statement line and a notification naming the failed attempt's transaction are P's, not evidence for another in_doubt purchase", async () => {
    const { p, failed } = await requeuedInDoubt();
    // The new attempt verified by a person with its own reference: P carries the new one now.
    const row = await findPurchase(env.test.database.db, String(p));
    const [, again] = debitsOfPhone();
    expect(
      await resolveAsPerson(env.test.database.db, row, "succeeded", again!.reference, person),
    ).toMatchObject({ ok: true });
    const q = await rivalInDoubt();

    // The provider's statement says the failed attempt's transaction went through after all.
    const file = writeConfigFile(env.sandbox, env.test.url).file;
    const { code, stderr, report } = await reconcileApplied<{
      resolvable: unknown[];
      providerOnly: unknown[];
      statusDifferences: unknown[];
    }>(file, statementOf([failed]));
    expect(code, stderr).toBe(0);
    expect(report.resolvable).toEqual([]);
    expect(report.providerOnly).toEqual([]);
    expect(report.statusDifferences).toMatchObject([{ id: p }]);
    const result = await notify(failed);
    expect(result).toMatchObject({ outcome: "matched", purchaseId: p });
    expect((await ledger()).find((r) => r.id === q)).toMatchObject({ state: "in_doubt", reference: null });

    // The provider delivers the failed attempt after all: the charge is P's, flagged on P (never on Q, whose phone and
    // amount the transaction shares).
    env.sandbox.deliverLate(failed.reference);
    const delivered = await notify(failed, "delivered");
    expect(delivered).toMatchObject({ outcome: "matched", purchaseId: p });
    expect(delivered!.reason).toContain("flagged earlier_attempt_delivered, for a person");
    const notes = await rows<{ id: number; state: string; note: string | null }>(
      env.test.database.db,
      sql`select id::int as id, state, note from purchases order by id`,
    );
    expect(notes.find((r) => r.id === p)).toMatchObject({
      state: "succeeded",
      note: expect.stringMatching(/^earlier_attempt_delivered: /),
    });
    expect(notes.find((r) => r.id === q)).toEqual({ id: q, state: "in_doubt", note: null });

    // A person cannot give the failed attempt's reference to Q either: one transaction is one purchase.
    const qRow = await findPurchase(env.test.database.db, String(q));
    expect(
      await resolveAsPerson(env.test.database.db, qRow, "succeeded", failed.reference, person),
    ).toMatchObject({ ok: false, code: "REFERENCE_TAKEN", holder: { id: p } });
  });
});
