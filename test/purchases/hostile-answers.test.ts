// The ledger against a reseller that lies (the sandbox's `lies`), over real HTTP: an unusable plan is never bought
// and spoils nothing else, a numeric reference is kept exactly, text PostgreSQL cannot hold (NUL, half a surrogate
// pair) is kept as U+FFFD without failing anyone's write, and an answer that cannot be read — out-of-range
// balance, a trickle past timeout.total, a body over max_body — leaves the purchase in_doubt with what came kept.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, markInDoubt, type NewPurchase } from "../../src/purchases/ledger.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { capText } from "../../src/text/cap.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

function purchase(key: string, phone: string, extra: Partial<NewPurchase> = {}): NewPurchase {
  return { request_key: key, source: "buy", network: "MTN", plan_id: "102", phone, ported: false, ...extra };
}

describe.each(DB_KINDS)("a lying reseller, on %s", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  const clients: ResellerClient[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({
      verifyLag: "reads",
      seed: 13,
      verifyNotFoundPolls: 0,
      verifyPendingPolls: 0,
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    sandbox.reset();
    test = await openTestDatabase(kind);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.http.destroy()));
    await test.drop();
  });

  function client(overrides: Parameters<typeof resellerFor>[1] = {}): ResellerClient {
    const made = resellerFor(sandbox, overrides);
    clients.push(made);
    return made;
  }

  async function run(reseller: ResellerClient) {
    const config = testConfig(sandbox);
    config.verification.initial_delay = 10;
    return executePurchases({ database: test.database, reseller, config, logger: silentLogger() });
  }

  async function ledger() {
    return rows<{ request_key: string; state: string; reason: string | null; reference: string | null }>(
      test.database.db,
      sql`select request_key, state, reason, reference from purchases order by request_key`,
    );
  }

  async function lastResponse(key: string): Promise<unknown> {
    const [row] = await rows<{ response: unknown }>(
      test.database.db,
      sql`select e.response from purchase_events e join purchases p on p.id = e.purchase_id
          where p.request_key = ${key} and e.response is not null order by e.id desc limit 1`,
    );
    return typeof row?.response === "string" ? JSON.parse(row.response) : row?.response;
  }

  it("a plan priced ₦500 is never bought; the network's other plans are", async () => {
    sandbox.setOptions({ lies: { prices: { "102": "₦500", "101": "-5.00" } } });
    await insertPurchases(
      test.database.db,
      [
        purchase("a-unusable", "08031234567"),
        purchase("b-negative", "08031234568", { plan_id: "101" }),
        purchase("c-other-plan", "08031234569", { plan_id: "103" }),
        purchase("d-by-size", "08031234570", { plan_id: null, plan_selector: { size_mb: 1024 } }),
      ],
      "test",
    );
    await run(client());
    const rowsNow = await ledger();
    expect(rowsNow.map((r) => [r.request_key, r.state])).toEqual([
      ["a-unusable", "rejected"],
      ["b-negative", "rejected"],
      ["c-other-plan", "succeeded"],
      ["d-by-size", "succeeded"],
    ]);
    expect(rowsNow[0]?.reason).toMatch(
      /^plan_unusable: plan 102 of MTN cannot be bought: price: expected a decimal/,
    );
    expect(rowsNow[1]?.reason).toMatch(/^plan_unusable: .*above zero/);
    expect(
      sandbox
        .debits()
        .map((d) => d.plan_id)
        .sort(),
    ).not.toContain("102");
    expect(sandbox.debits()).toHaveLength(2);
  });

  it("a reference written as a JSON number is stored and verified digit for digit", async () => {
    sandbox.setOptions({ lies: { referenceAsNumber: true } });
    await insertPurchases(test.database.db, [purchase("r", "08031234567")], "test");
    await run(client());
    const [row] = await ledger();
    expect(row?.state).toBe("succeeded");
    expect(row?.reference).toBe(sandbox.debits()[0]?.reference);
    expect(row?.reference).toMatch(/^[1-9]\d{19}$/);
  });

  it("a NUL and half a surrogate pair in the provider's text: kept as U+FFFD, every purchase of the batch settled, each bought once", async () => {
    // Unstorable in PostgreSQL's text and JSON: before, the first answer holding one failed the statement recording
    // it, with every purchase batched with it, and the run stopped with purchases bought and left in submitting.
    sandbox.setOptions({ lies: { trueResponse: "delivered\u0000 to \ud83d you \udc00 \ud83d\ude00" } });
    const phones = Array.from({ length: 6 }, (_, i) => `0803123456${i}`);
    await insertPurchases(
      test.database.db,
      phones.map((phone, i) => purchase(`nul-${i}`, phone)),
      "test",
    );
    const summary = await run(client());
    expect(summary.succeeded).toBe(6);
    expect((await ledger()).map((r) => r.state)).toEqual(Array(6).fill("succeeded"));
    expect(sandbox.debits()).toHaveLength(6);
    const [stored] = await rows<{ text: string }>(
      test.database.db,
      sql`select e.response::text as text from purchase_events e where e.to_state = 'succeeded' limit 1`,
    );
    const answer = JSON.parse(stored!.text) as { data: { transaction: { true_response: string } } };
    // The pair that is whole stays whole.
    expect(answer.data.transaction.true_response).toBe("delivered\uFFFD to \uFFFD you \uFFFD \ud83d\ude00");
    const submitted = await rows<{ text: string }>(
      test.database.db,
      sql`select e.response::text as text from purchase_events e where e.to_state = 'submitted'`,
    );
    expect(submitted).toHaveLength(6);
    for (const event of submitted) expect(event.text).not.toMatch(/\\u0000|\\ud8/i);
  });

  it("a reason made here with a NUL, or a cut through a surrogate pair, is stored, not refused", async () => {
    await insertPurchases(test.database.db, [purchase("made-here", "08031234567")], "test");
    const [row] = await rows<{ id: number }>(test.database.db, sql`select id from purchases`);
    await test.database.db.execute(sql`update purchases set state = 'submitting' where id = ${row!.id}`);
    const cut = capText(`${"x".repeat(1999)}\ud83d\ude00 and more`);
    const moved = await markInDoubt(test.database.db, Number(row!.id), {
      actor: "test",
      reason: `no answer\u0000 ${cut}`,
      response: { note: cut, "key\u0000": "\udfff" },
    });
    expect(moved).toBeDefined();
    const [event] = await rows<{ reason: string; response: string }>(
      test.database.db,
      sql`select reason, response::text as response from purchase_events where to_state = 'in_doubt'`,
    );
    expect(event!.reason.startsWith("no answer\uFFFD xxx")).toBe(true);
    expect(event!.reason).not.toContain("\ud83d");
    expect(JSON.parse(event!.response)).toMatchObject({ "key\uFFFD": "\uFFFD" });
  });

  it("an answer the ledger refuses for good: that purchase in_doubt at once, the rest of its batch recorded, the run fails", async () => {
    // A database that refuses one purchase's answer as a data exception, whatever the answer says: what any
    // value the ledger cannot hold would do. Before, the whole batch failed and each recording was tried again
    // for two minutes.
    await test.database.db.execute(
      sql.raw(`create function refuse_answer() returns trigger language plpgsql as $$
        begin
          if new.state = 'submitted' and new.phone = '08031234562' then
            raise exception 'this answer cannot be stored' using errcode = '22023';
          end if;
          return new;
        end $$`),
    );
    await test.database.db.execute(
      sql`create trigger refuse_answer before update on purchases for each row execute function refuse_answer()`,
    );
    const phones = Array.from({ length: 6 }, (_, i) => `0803123456${i}`);
    await insertPurchases(
      test.database.db,
      phones.map((phone, i) => purchase(`refused-${i}`, phone)),
      "test",
    );
    await expect(run(client())).rejects.toThrow(/this answer cannot be stored/);
    // The others' answers are recorded (the run stops at the failure: those it had not verified yet wait, submitted,
    // for the next run's verification); none is left in submitting, none bought twice.
    const states = (await ledger()).map((r) => r.state);
    expect(states[2]).toBe("in_doubt");
    for (const state of [...states.slice(0, 2), ...states.slice(3)])
      expect(["submitted", "succeeded"]).toContain(state);
    const [doubt] = await rows<{ reason: string }>(
      test.database.db,
      sql`select reason from purchase_events where to_state = 'in_doubt'`,
    );
    expect(doubt?.reason).toMatch(/^its answer could not be recorded: .*this answer cannot be stored/);
    expect(sandbox.debits()).toHaveLength(6);
  });

  it("an out-of-range wallet_balance leaves the purchase in_doubt, stores no balance, and blocks nothing after", async () => {
    sandbox.setOptions({ lies: { walletBalance: "10000000000000" } });
    await insertPurchases(test.database.db, [purchase("a-poisoned", "08031234567")], "test");
    await run(client());
    expect((await ledger()).map((r) => r.state)).toEqual(["in_doubt"]);
    expect(await lastResponse("a-poisoned")).toMatchObject({ data: { wallet_balance: 10000000000000 } });
    const [wallet] = await rows<{ balance: string | null }>(
      test.database.db,
      sql`select value->>'balance' as balance from kv where key = 'wallet'`,
    );
    expect(wallet?.balance ?? null).toBeNull();
    sandbox.setOptions({ lies: {} });
    await insertPurchases(test.database.db, [purchase("b-next", "08031234568")], "test");
    await run(client());
    expect((await ledger()).map((r) => r.state)).toEqual(["in_doubt", "succeeded"]);
    expect(sandbox.debits()).toHaveLength(2);
  });

  it("an answer trickling past timeout.total leaves the purchase in_doubt", { timeout: 30_000 }, async () => {
    sandbox.setOptions({ lies: { trickleMs: 900 } });
    await insertPurchases(test.database.db, [purchase("slow", "08031234567")], "test");
    await run(client({ timeout: { connect: 1000, headers: 1000, body: 1000, total: 2500 } }));
    const [row] = await ledger();
    expect(row?.state).toBe("in_doubt");
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("an answer over max_body leaves the purchase in_doubt with its first bytes in the event", async () => {
    sandbox.setOptions({ lies: { hugeBodyBytes: 8 * 1024 * 1024 } });
    await insertPurchases(test.database.db, [purchase("huge", "08031234567")], "test");
    await run(client({ maxBody: 64 * 1024 }));
    expect((await ledger()).map((r) => r.state)).toEqual(["in_doubt"]);
    const kept = (await lastResponse("huge")) as { truncated: boolean; first_bytes: string };
    expect(kept.truncated).toBe(true);
    expect(kept.first_bytes.length).toBeLessThanOrEqual(4096);
    expect(kept.first_bytes.startsWith("{")).toBe(true);
  });
});
