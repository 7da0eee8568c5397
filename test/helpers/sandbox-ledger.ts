// The set-up of a describe block that buys through the executor and then settles by evidence: one sandbox for the
// block (verify reads answered at once) and, for each test, the sandbox reset, a fresh ledger and a reseller client.
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "./clients.js";
import { testConfig } from "./config.js";
import { type DbKind, openTestDatabase, type TestDatabase } from "./db.js";

export interface SandboxLedger {
  readonly sandbox: Sandbox;
  readonly test: TestDatabase;
  readonly reseller: ResellerClient;
  /** Executes what is queued, one purchase at a time, retries without waiting. */
  run(): ReturnType<typeof executePurchases>;
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
    run: () =>
      executePurchases(
        { database: test.database, reseller, config: testConfig(sandbox), logger: silentLogger() },
        { concurrency: 1, retryWaitMs: 0 },
      ),
  };
}
