// The set-up of a describe block that buys through the executor and then settles by evidence: one sandbox for the
// block (verify reads answered at once) and, for each test, the sandbox reset, a fresh ledger and a reseller client.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import type { Debit } from "../../src/sandbox/records.js";
import { runCli } from "./cli.js";
import { resellerFor } from "./clients.js";
import { testConfig, writeConfigFile } from "./config.js";
import { type DbKind, openTestDatabase, type TestDatabase } from "./db.js";

export interface SandboxLedger {
  readonly sandbox: Sandbox;
  readonly test: TestDatabase;
  readonly reseller: ResellerClient;
  /**
   * Executes what is queued, one purchase at a time, retries without waiting; with `settings` added to the config,
   * and through another client than `reseller` when given one.
   */
  run(options?: {
    settings?: Record<string, unknown>;
    through?: ResellerClient;
  }): ReturnType<typeof executePurchases>;
  /** `run` with every purchase answer lost after the debit (a 500): each purchase it sends ends in_doubt. */
  runLosingAnswers(): ReturnType<typeof executePurchases>;
}

/** Registers the hooks in the describe block it is called in; the fields are those of the test running. */
export function sandboxLedger(seed: number, kind: DbKind = "postgres"): SandboxLedger {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed, verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    sandbox.reset({ verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
    test = await openTestDatabase(kind);
    reseller = resellerFor(sandbox);
  });
  afterEach(async () => {
    await reseller.close();
    await test.drop();
  });
  const run: SandboxLedger["run"] = ({ settings, through } = {}) =>
    executePurchases(
      {
        database: test.database,
        reseller: through ?? reseller,
        config: testConfig(sandbox, settings),
        logger: silentLogger(),
      },
      { concurrency: 1, retryWaitMs: 0 },
    );
  return {
    get sandbox() {
      return sandbox;
    },
    get test() {
      return test;
    },
    get reseller() {
      return reseller;
    },
    run,
    async runLosingAnswers() {
      sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
      try {
        return await run();
      } finally {
        sandbox.setFaults({ endpoints: {} });
      }
    },
  };
}

/**
 * Two purchases, `a` then `b`, for one phone, both in_doubt: the provider answered A's POST 500 before taking it (no
 * debit) and lost B's answer after the debit. Then a person settles B as succeeded from the provider's dashboard,
 * without its reference (`purchases resolve` with the config file it returns). Returns both ids and B's debit.
 */
export async function rivalSettledByPerson(
  env: SandboxLedger,
  a: NewPurchase,
  b: NewPurchase,
): Promise<{ a: number; b: number; debit: Debit; file: string }> {
  env.sandbox.setFaults({ endpoints: { data: { rate500Before: 1 } } });
  await insertPurchases(env.test.database.db, [a], "test");
  await env.run();
  await insertPurchases(env.test.database.db, [b], "test");
  await env.runLosingAnswers();
  const ledger = await rows<{ id: number; state: string }>(
    env.test.database.db,
    sql`select id::int as id, state from purchases order by id`,
  );
  expect(ledger.map((r) => r.state)).toEqual(["in_doubt", "in_doubt"]);
  const [first, second] = ledger;
  const [debit] = env.sandbox.debits();
  const file = writeConfigFile(env.sandbox, env.test.url).file;
  const resolved = await runCli([
    "-c",
    file,
    "purchases",
    "resolve",
    String(second!.id),
    "--as",
    "succeeded",
    "--note",
    "the customer has the data",
  ]);
  expect(resolved.code, resolved.stderr).toBe(0);
  return { a: first!.id, b: second!.id, debit: debit!, file };
}
