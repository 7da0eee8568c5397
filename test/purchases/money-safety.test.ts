// The promise topsync is bought for: every requested purchase is bought once or not at all, whatever fails.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { CLI, runCli } from "../helpers/cli.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase, DB_KINDS, openTestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

const phones = (n: number, offset = 0) =>
  Array.from({ length: n }, (_, i) => `0803${String(2_000_000 + offset + i)}`);
const queued = (phone: string): NewPurchase => ({
  request_key: `bulk:${phone}`,
  source: "intake",
  network: "MTN",
  plan_id: "102",
  phone,
  ported: false,
});

const MIXED_FAULTS = {
  seed: 99,
  endpoints: {
    data: {
      rate500Before: 0.01,
      rate500After: 0.02,
      rateResetAfter: 0.02,
      rateMalformedAfter: 0.02,
      rateHangAfter: 0.01,
      rate429: 0.02,
      retryAfter: 0,
    },
    transaction: { rate500Before: 0.05, rateResetAfter: 0.02 },
  },
};

interface LedgerRow {
  phone: string;
  state: string;
  reference: string | null;
  provider_status: string | null;
}

/** Checks the ledger against the sandbox's own record of debits and refunds. */
function assertBoughtAtMostOnce(ledger: LedgerRow[], sandbox: Sandbox): void {
  const debitsByPhone = new Map<string, number>();
  for (const debit of sandbox.debits())
    debitsByPhone.set(debit.phone_number, (debitsByPhone.get(debit.phone_number) ?? 0) + 1);
  expect(Math.max(0, ...debitsByPhone.values())).toBe(1);
  const refunded = new Set(sandbox.refunds().map((r) => r.reference));
  for (const row of ledger) {
    expect(row.state).not.toBe("submitting");
    if (debitsByPhone.has(row.phone)) {
      if (row.state === "failed") expect(row.reference !== null && refunded.has(row.reference)).toBe(true);
      else expect(["succeeded", "unverified", "in_doubt"]).toContain(row.state);
    } else {
      expect(["failed", "in_doubt", "rejected"]).toContain(row.state);
    }
  }
}

describe.each(DB_KINDS)("bulk run with faults on %s", (kind) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 5, failRate: 0.03, reverseRate: 0.02 });
  });
  afterAll(() => sandbox.close());

  it("1,000 recipients with 10% mixed faults: at most one debit each, every debit accounted for", {
    timeout: 120_000,
  }, async () => {
    sandbox.setFaults(MIXED_FAULTS);
    const test = await openTestDatabase(kind);
    const reseller = resellerFor(sandbox, {
      concurrency: 32,
      timeout: { connect: 1000, headers: 1000, body: 1000 },
    });
    try {
      await insertPurchases(test.database.db, phones(1000).map(queued), "test");
      const config = testConfig(sandbox, { reseller: { ...baseReseller(sandbox), concurrency: 32 } });
      const deps = { database: test.database, reseller, config, logger: silentLogger() };
      const first = await executePurchases(deps);
      expect(first.claimed).toBeGreaterThanOrEqual(1000); // retried rows are claimed again
      expect(first.inDoubt).toBeGreaterThan(0);
      const debitsAfterFirst = sandbox.debits().length;
      // a second run finds nothing to buy again
      const second = await executePurchases(deps);
      expect(second.submitted).toBe(0);
      expect(sandbox.debits()).toHaveLength(debitsAfterFirst);
      const ledger = await rows<LedgerRow>(
        test.database.db,
        sql`select phone, state, reference, provider_status from purchases`,
      );
      expect(ledger).toHaveLength(1000);
      assertBoughtAtMostOnce(ledger, sandbox);
    } finally {
      sandbox.reset();
      await reseller.close();
      await test.drop();
    }
  });
});

function baseReseller(sandbox: Sandbox) {
  return {
    base_url: sandbox.resellerUrl,
    api_key: sandbox.apiKey,
    timeout: { connect: "1s", headers: "1s", body: "1s" },
    rate_limit: 10_000,
    retry: { max_attempts: 4, base_delay: "5ms", max_delay: "20ms" },
  };
}

describe("processes on one PostgreSQL database", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 8 });
  });
  afterAll(() => sandbox.close());

  async function ledgerOf(url: string): Promise<LedgerRow[]> {
    const database = await openDatabase({ url, maxConnections: 1 });
    try {
      return await rows<LedgerRow>(
        database.db,
        sql`select phone, state, reference, provider_status from purchases`,
      );
    } finally {
      await database.close();
    }
  }

  async function seedQueued(url: string, count: number): Promise<void> {
    const database = await openDatabase({ url, maxConnections: 2 });
    try {
      const { migrate } = await import("../../src/db/migrate.js");
      await migrate(database.db);
      await insertPurchases(database.db, phones(count).map(queued), "test");
    } finally {
      await database.close();
    }
  }

  it("two `purchases run` racing over the same 500 rows buy each once", { timeout: 120_000 }, async () => {
    sandbox.reset();
    const created = await createPostgresDatabase();
    try {
      await seedQueued(created.url, 500);
      const { file } = writeConfigFile(sandbox, created.url);
      const [a, b] = await Promise.all([
        runCli(["-c", file, "purchases", "run"]),
        runCli(["-c", file, "purchases", "run"]),
      ]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const ledger = await ledgerOf(created.url);
      expect(ledger.filter((r) => r.state === "succeeded")).toHaveLength(500);
      expect(sandbox.debits()).toHaveLength(500);
      assertBoughtAtMostOnce(ledger, sandbox);
      // both really worked: each bought a share
      expect(a.stdout).not.toContain(": 0 claimed");
      expect(b.stdout).not.toContain(": 0 claimed");
    } finally {
      await created.drop();
    }
  });

  it("the daily budget holds exactly when two runs race for it", { timeout: 120_000 }, async () => {
    sandbox.reset();
    const created = await createPostgresDatabase();
    try {
      await seedQueued(created.url, 500);
      const { file } = writeConfigFile(sandbox, created.url, { budget: { daily_limit: "30500.00" } }); // 100 × 305
      await Promise.all([runCli(["-c", file, "purchases", "run"]), runCli(["-c", file, "purchases", "run"])]);
      const ledger = await ledgerOf(created.url);
      expect(sandbox.debits()).toHaveLength(100);
      expect(ledger.filter((r) => r.state === "succeeded")).toHaveLength(100);
      expect(ledger.filter((r) => r.state === "rejected")).toHaveLength(400);
    } finally {
      await created.drop();
    }
  });

  it("a run killed with SIGKILL mid-flight and restarted leaves nothing in submitting and buys nothing twice", {
    timeout: 120_000,
  }, async () => {
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 300 } } } });
    const created = await createPostgresDatabase();
    try {
      const { file, dir } = writeConfigFile(sandbox, created.url, {
        purchases: [
          { name: "bulk", plan: { network: "MTN", plan_id: "102" }, recipients_file: join("recipients.csv") },
        ],
      });
      writeFileSync(join(dir, "recipients.csv"), `phone\n${phones(200).join("\n")}\n`);
      const child = spawn(process.execPath, [CLI, "-c", file, "purchases", "run", "--job", "bulk", "--now"], {
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await waitFor("20 purchases bought", () => sandbox.debits().length >= 20);
      // From here the sandbox debits every purchase and holds its answer, so the run has purchases in flight
      // whenever it is killed: the kill lands once one of them is debited and still submitting in the ledger.
      const held = sandbox.debits().length;
      sandbox.setFaults({ endpoints: { data: { rateHangAfter: 1 } } });
      await waitFor("a purchase debited, unanswered and still submitting", async () => {
        const inFlight = new Set(
          sandbox
            .debits()
            .slice(held)
            .map((debit) => debit.phone_number),
        );
        const submitting = (await ledgerOf(created.url)).filter((row) => row.state === "submitting");
        return submitting.some((row) => inFlight.has(row.phone));
      });
      child.kill("SIGKILL");
      await exited;
      const killedAt = sandbox.debits().length;
      sandbox.setFaults({ endpoints: {} });
      // the restart processes what is queued; the job has no schedule, so it writes no new fire
      const restart = await runCli(["-c", file, "purchases", "run"]);
      expect(restart.code).toBe(0);
      const ledger = await ledgerOf(created.url);
      expect(ledger.filter((r) => r.state === "submitting")).toHaveLength(0);
      expect(ledger.filter((r) => r.state === "in_doubt").length).toBeGreaterThan(0);
      assertBoughtAtMostOnce(ledger, sandbox);
      // the restart bought the rest, and only the rest
      expect(sandbox.debits().length).toBeGreaterThan(killedAt);
      expect(sandbox.debits().length).toBeLessThanOrEqual(200);
    } finally {
      await created.drop();
    }
  });
});
