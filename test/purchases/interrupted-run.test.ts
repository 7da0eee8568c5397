// `topsync purchases run` (and `apply`, `buy`) stopped by a signal (Ctrl-C at a terminal, SIGTERM from a timer or a `timeout`, SIGHUP
// from a closed session) stops as the daemon does: no new claims, the calls in flight finish and are recorded,
// what was claimed and not sent goes back to the queue. Nothing is left in submitting to become in_doubt.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { CLI, readableStderr, runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

interface LedgerRow {
  state: string;
  reference: string | null;
}

async function ledgerOf(url: string): Promise<LedgerRow[]> {
  const database = await openDatabase({ url, maxConnections: 1 });
  try {
    return await rows<LedgerRow>(database.db, sql`select state, reference from purchases`);
  } finally {
    await database.close();
  }
}

/** Runs the CLI until `ready` says so, sends it `signal`, and resolves with its exit code and standard error. */
async function interrupted(
  args: string[],
  signal: NodeJS.Signals,
  ready: () => Promise<boolean>,
): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", TOPSYNC_PROGRESS_INTERVAL: "1h" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, killedBy) => resolve(code ?? (killedBy ? 128 : 0))),
  );
  await waitFor("purchases in flight", ready);
  child.kill(signal);
  const code = await exited;
  return { code, stderr: readableStderr(stderr) };
}

/** Whether a purchase of the ledger at `url` is being sent (the moment to interrupt). */
const sending = (url: string) => async () => (await ledgerOf(url)).some((row) => row.state === "submitting");

describe("purchases run stopped by a signal", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 12 });
  });
  afterAll(() => sandbox.close());

  /** A config whose job `bulk` buys `count` MTN numbers from a recipients file, 4 at a time. */
  function bulkJob(databaseUrl: string, count: number, first: number) {
    const { file, dir } = writeConfigFile(sandbox, databaseUrl, {
      reseller: { base_url: sandbox.resellerUrl, api_key: sandbox.apiKey, concurrency: 4, rate_limit: 1000 },
      purchases: [
        { name: "bulk", plan: { network: "MTN", plan_id: "102" }, recipients_file: "recipients.csv" },
      ],
    });
    const phones = Array.from({ length: count }, (_, i) => `0803${String(first + i)}`);
    writeFileSync(join(dir, "recipients.csv"), `phone\n${phones.join("\n")}\n`);
    return { file, dir, phones };
  }

  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "%s mid-run: calls in flight finish and are recorded, the rest stays queued, nothing in doubt",
    { timeout: 120_000 },
    async (signal) => {
      sandbox.reset({ faults: { endpoints: { data: { latencyMs: 500 } } } });
      const created = await createPostgresDatabase();
      try {
        const { file } = bulkJob(created.url, 60, 3_000_000);
        const { code, stderr } = await interrupted(
          ["-c", file, "purchases", "run", "--job", "bulk", "--now"],
          signal,
          sending(created.url),
        );
        expect(stderr).toContain(`${signal}: stopping`);
        expect(code, stderr).toBe(1);
        expect(stderr).toContain(`error: the run stopped: ${signal}`);

        const ledger = await ledgerOf(created.url);
        expect(ledger.filter((r) => r.state === "submitting")).toEqual([]);
        expect(ledger.filter((r) => r.state === "in_doubt")).toEqual([]);
        // it stopped claiming: most of the fire is still queued for the next run
        expect(ledger.filter((r) => r.state === "queued").length).toBeGreaterThan(0);
        // every call made is recorded: one debit per purchase with a reference, and no other
        const references = ledger.filter((r) => r.reference !== null).map((r) => r.reference);
        expect(sandbox.debits().length).toBeGreaterThan(0);
        expect(new Set(sandbox.debits().map((d) => d.reference))).toEqual(new Set(references));
      } finally {
        await created.drop();
      }
    },
  );
  it("apply of a saved plan stopped by SIGINT: calls in flight are recorded, nothing in doubt, and applying again buys the rest once", {
    timeout: 120_000,
  }, async () => {
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 500 } } } });
    const created = await createPostgresDatabase();
    try {
      const { file, dir, phones } = bulkJob(created.url, 40, 3_100_000);
      const plan = join(dir, "bulk.plan");
      const saved = await runCli(["-c", file, "purchases", "plan", "--job", "bulk", "--now", "--save", plan]);
      expect(saved.code, saved.stderr).toBe(0);

      const { code, stderr } = await interrupted(["-c", file, "apply", plan], "SIGINT", sending(created.url));
      expect(stderr).toContain("SIGINT: stopping");
      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(/the run stopped: SIGINT: .*apply p_\w+ again to buy the rest/);
      const ledger = await ledgerOf(created.url);
      expect(ledger.filter((r) => r.state === "submitting" || r.state === "in_doubt")).toEqual([]);
      expect(sandbox.debits().length).toBeLessThan(phones.length);

      sandbox.setFaults({ endpoints: {} });
      const again = await runCli(["-c", file, "apply", plan]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain("is applied");
      // every phone bought once, none twice
      expect(
        sandbox
          .debits()
          .map((d) => d.phone_number)
          .sort(),
      ).toEqual([...phones].sort());
    } finally {
      await created.drop();
    }
  });

  it("buy stopped by SIGTERM while its purchase is in flight: the answer is recorded, not left to a person", {
    timeout: 120_000,
  }, async () => {
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 1500 } } } });
    const created = await createPostgresDatabase();
    try {
      const { file } = writeConfigFile(sandbox, created.url);
      const { code, stderr } = await interrupted(
        ["-c", file, "buy", "--network", "MTN", "--plan", "102", "--phone", "08033200001", "--yes"],
        "SIGTERM",
        sending(created.url),
      );
      expect(stderr).toContain("SIGTERM: stopping");
      expect(code, stderr).toBe(1);
      expect(stderr).toContain("the run stopped: SIGTERM");
      const [row] = await ledgerOf(created.url);
      expect(["submitted", "succeeded"]).toContain(row?.state);
      expect(row?.reference).toBe(sandbox.debits()[0]?.reference);
    } finally {
      await created.drop();
    }
  });
});
