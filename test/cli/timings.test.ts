// TOPSYNC_TIMINGS=1 (src/timings.ts): a command says on its last line of stderr where its time went, each step in
// milliseconds since its process started; bench/command.js reads the line. Unset, nothing is said.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { readTimings, STEPS } from "../../src/timings.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

const LINE = /^timings \(ms since start\): (.*)$/m;

/** The steps of the timings line, in the order written. */
function steps(stderr: string): Array<[string, number]> {
  const found = readTimings(stderr);
  if (found === undefined) throw new Error(`no timings line in:\n${stderr}`);
  return found;
}

let sandbox: Sandbox;
let database: { url: string; drop: () => Promise<void> };

beforeAll(async () => {
  sandbox = await startSandbox({
    verifyLag: "reads",
    seed: 3,
    verifyNotFoundPolls: 1,
    verifyPendingPolls: 1,
  });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  database = await createPostgresDatabase();
});
afterEach(() => database.drop());

describe("TOPSYNC_TIMINGS", () => {
  it("marks a purchase run's steps once each, in the order they happen", async () => {
    const recipients = Array.from({ length: 40 }, (_, i) => `0803${String(2_000_000 + i)}`);
    const { file } = writeConfigFile(sandbox, database.url, {
      purchases: [{ name: "campaign", plan: { network: "MTN", plan_id: "101" }, recipients }],
      budget: { min_wallet_balance: "0.00" },
    });
    expect((await runCli(["-c", file, "migrate"])).code).toBe(0);
    const run = await runCli(["-c", file, "purchases", "run", "--job", "campaign", "--now"], {
      TOPSYNC_TIMINGS: "1",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/40 succeeded/);
    const marked = steps(run.rawStderr);
    const at = new Map(marked);
    expect(marked.map(([step]) => step).sort()).toEqual(["node", ...STEPS, "exit"].sort());
    // Every time is from the process's start; Node.js's own start comes first and the exit last.
    expect(marked.every(([, ms]) => Number.isFinite(ms) && ms > 0)).toBe(true);
    const order = ["node", "main", "config", "ledger", "rows", "claimed", "post", "settled", "done", "exit"];
    for (let i = 1; i < order.length; i++)
      expect(at.get(order[i]!)!, `${order[i - 1]} before ${order[i]}`).toBeGreaterThanOrEqual(
        at.get(order[i - 1]!)!,
      );
    // The first purchase needs the catalogue: it is read before it is sent.
    expect(at.get("post")!).toBeGreaterThanOrEqual(at.get("catalogue")!);
    // The line is the last thing written.
    expect(run.rawStderr.trimEnd().split("\n").at(-1)).toMatch(LINE);
  });

  it("says nothing unless asked, and a command without a ledger marks what it has", async () => {
    const { file } = writeConfigFile(sandbox, database.url);
    const quiet = await runCli(["-c", file, "config", "check"]);
    expect(quiet.code).toBe(0);
    expect(quiet.rawStderr).not.toMatch(/timings/);
    const timed = await runCli(["-c", file, "config", "check"], { TOPSYNC_TIMINGS: "1" });
    expect(timed.code).toBe(0);
    expect(steps(timed.rawStderr).map(([step]) => step)).toEqual(["node", "main", "done", "exit"]);
    // A command that fails still says where its time went.
    const failed = await runCli(["-c", file, "purchases", "run", "--job", "nope", "--now"], {
      TOPSYNC_TIMINGS: "1",
    });
    expect(failed.code).not.toBe(0);
    expect(steps(failed.rawStderr).map(([step]) => step)).toEqual(["node", "main", "config", "exit"]);
  });
});
