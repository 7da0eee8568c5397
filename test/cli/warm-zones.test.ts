// `purchases run`, `buy` and the daemon start a thread that loads ICU's zone data while they open a PostgreSQL
// ledger (src/time/warm-zones.ts), and none on the embedded database, whose run is held under 200 MB. A preload
// counts the threads the command starts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
const dirs: string[] = [];
let preload: string;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 11 });
  const dir = mkdtempSync(join(tmpdir(), "topsync-warm-"));
  dirs.push(dir);
  preload = join(dir, "threads.cjs");
  // Every Worker the command makes, as a line on stderr; the bundle reads the class from the module when it calls it.
  writeFileSync(
    preload,
    `const threads = require("node:worker_threads");
const Worker = threads.Worker;
threads.Worker = class extends Worker { constructor(...args) { super(...args); require("node:fs").writeSync(2, "\\nTHREAD\\n"); } };`,
  );
});
afterAll(async () => {
  await sandbox.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function threadsOf(databaseUrl: string): Promise<number> {
  const { file, dir } = writeConfigFile(sandbox, databaseUrl, {
    purchases: [{ name: "daily", plan: { network: "MTN", plan_id: "102" }, recipients: ["08031230001"] }],
  });
  dirs.push(dir);
  const result = await runCli(["-c", file, "purchases", "run", "--job", "daily", "--now", "--dry-run"], {
    NODE_OPTIONS: `--require ${preload}`,
  });
  expect(result.code, result.stderr).toBe(0);
  return result.rawStderr.split("\n").filter((line) => line === "THREAD").length;
}

describe("the time zone data thread", () => {
  it("starts once for a run on PostgreSQL", async () => {
    const { url, drop: dropThis } = await createPostgresDatabase();
    try {
      expect(await threadsOf(url)).toBe(1);
    } finally {
      await dropThis();
    }
  });

  it("does not start for a run on the embedded database", async () => {
    expect(await threadsOf("")).toBe(0);
  });
});
