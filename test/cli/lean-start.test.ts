// The bundle leaves out, or loads on first use, the Node.js modules that only features topsync does not use need
// (tools/bundle.js): undici's HTTP/2 client with node:http2, and node:child_process, which commander loads for
// executable subcommands and node-cron for tasks forked from a file. Each cost 2-3 ms of every command's start.
// Checked on a command that calls the reseller (undici) and validates a schedule (node-cron) through commander.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
let drop: () => Promise<void>;
let file: string;
let dir: string;
let preload: string;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 7 });
  const created = await createPostgresDatabase();
  drop = created.drop;
  ({ file, dir } = writeConfigFile(sandbox, created.url, {
    purchases: [
      {
        name: "daily",
        plan: { network: "MTN", plan_id: "102" },
        schedule: "0 9 * * *",
        recipients: ["08031230001"],
      },
    ],
  }));
  preload = join(mkdtempSync(join(tmpdir(), "topsync-lean-")), "loaded.cjs");
  // At exit, the built-in modules the process loaded that this test is about, as one line on stderr.
  writeFileSync(
    preload,
    `process.on("exit", () => require("node:fs").writeSync(2, "\\nLOADED " + JSON.stringify(process.moduleLoadList.filter((m) => /^NativeModule (http2|child_process)$/.test(m))) + "\\n"));`,
  );
  expect((await runCli(["-c", file, "migrate"])).code).toBe(0);
});
afterAll(async () => {
  await sandbox.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

function loaded(stderr: string): string[] {
  const line = stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`no LOADED line in stderr:\n${stderr}`);
  return JSON.parse(line.slice("LOADED ".length)) as string[];
}

describe("a command's start (tools/bundle.js)", () => {
  it("loads neither node:http2 nor node:child_process for a plan that reads the reseller's catalogue", async () => {
    const result = await runCli(["-c", file, "plan", "--window", "2d"], {
      NODE_OPTIONS: `--require ${preload}`,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("daily");
    expect(sandbox.requests().some((r) => r.path.startsWith("/api/"))).toBe(true);
    expect(loaded(result.rawStderr)).toEqual([]);
  });

  it("still loads node:child_process when something asks for it (the module is there on use)", async () => {
    // The same preload with a require of child_process in the process: the filter sees it, so the check above
    // can fail.
    const result = await runCli(["--version"], {
      NODE_OPTIONS: `--require ${preload} --require node:child_process`,
    });
    expect(result.code).toBe(0);
    expect(loaded(result.rawStderr)).toEqual(["NativeModule child_process"]);
  });
});
