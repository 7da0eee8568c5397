// The purchase commands as an operator uses them, with bad input: clear messages, exit codes, nothing moved.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

const BIG = 1_200;
let sandbox: Sandbox;
let url: string;
let drop: () => Promise<void>;
let file: string;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 21 });
  const created = await createPostgresDatabase();
  url = created.url;
  drop = created.drop;
  ({ file, dir } = writeConfigFile(sandbox, url, {
    purchases: [
      {
        name: "team",
        plan: { network: "MTN", size: "1GB", type: "CORPORATE GIFTING" },
        recipients: ["08031110001", "08051110002", "+2348031110001"],
        recipients_file: "team.csv",
      },
      { name: "badfile", plan: { network: "MTN", plan_id: "102" }, recipients_file: "bad.csv" },
      // Written in batches (125, 250, 500, 325), the first already being bought while the rest are written.
      {
        name: "big",
        plan: { network: "MTN", plan_id: "101" },
        recipients: Array.from({ length: BIG }, (_, i) => `0803${String(2_000_000 + i)}`),
      },
    ],
  }));
  writeFileSync(join(dir, "team.csv"), "phone,ported\n08031110003,\n08051110004,true\n");
  writeFileSync(join(dir, "bad.csv"), "phone,ported\n08031110005,\nnot-a-phone,\n08031110006,maybe\n");
});
afterAll(async () => {
  await sandbox.close();
  await drop();
});
beforeEach(() => sandbox.reset());

async function query<T>(text: ReturnType<typeof sql>): Promise<T[]> {
  const database = await openDatabase({ url, maxConnections: 1 });
  try {
    return await rows<T>(database.db, text);
  } finally {
    await database.close();
  }
}

const count = async () => (await query<{ n: number }>(sql`select count(*)::int as n from purchases`))[0]!.n;
const posts = () => sandbox.requests().filter((r) => r.method !== "GET").length;
/** `topsync buy` of MTN plan 101 for `phone`, confirmed. */
const buy101 = (phone: string) =>
  runCli(["-c", file, "buy", "--network", "MTN", "--plan", "101", "--phone", phone, "--yes"]);

describe("dry runs change nothing anywhere", () => {
  it("purchases run --dry-run reports the plan with zero mutating calls and zero ledger writes", async () => {
    await runCli(["-c", file, "migrate"]);
    const before = await count();
    const result = await runCli(["-c", file, "purchases", "run", "--job", "team", "--now", "--dry-run"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "would buy 3 for 915.00; would reject 1; 1 not bought again (already in the ledger, or listed twice)",
    );
    // Masked, with the run it is in (a pass may hold several fires of a job, each with the same phones) and why.
    expect(result.stdout).toMatch(/0805\*\*\*\*002\s+job team fire \S+Z\s+wrong_network/);
    expect(result.stdout).toContain("wrong_network: the number's prefix 0805 is GLO, not MTN");
    expect(posts()).toBe(0);
    expect(await count()).toBe(before);
  });

  it("buy --dry-run buys nothing and writes nothing", async () => {
    const before = await count();
    const result = await runCli([
      "-c",
      file,
      "buy",
      "--network",
      "mtn",
      "--plan",
      "102",
      "--phone",
      "08031110009",
      "--dry-run",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "dry run: would buy MTN 1GB for 30 Days (plan 102) for 305.00 to 0803****009",
    );
    expect(posts()).toBe(0);
    expect(await count()).toBe(before);
  });
});

describe("buy", () => {
  it("buys once, verifies, and a repeat in the same minute buys nothing", async () => {
    const first = await runCli([
      "-c",
      file,
      "buy",
      "--network",
      "MTN",
      "--plan",
      "101",
      "--phone",
      "+2348031110010",
      "--yes",
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^purchase \d+: succeeded, reference \w+/);
    const again = await buy101("08031110010");
    expect(again.stdout).toMatch(/already requested as purchase \d+ \(succeeded\); nothing bought again/);
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("refuses without a terminal unless --yes", async () => {
    const result = await runCli([
      "-c",
      file,
      "buy",
      "--network",
      "MTN",
      "--plan",
      "101",
      "--phone",
      "08031110011",
    ]);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("pass --yes to go ahead");
    expect(posts()).toBe(0);
  });

  it.each([
    [["--phone", "0803"], 65, "invalid phone number"],
    [["--phone", "08051110012"], 65, "the number's prefix 0805 is GLO, not MTN; mark the recipient ported"],
    [["--phone", "08031110013", "--plan", "999"], 65, "no MTN plan matches plan_id 999"],
    [["--phone", "08031110014", "--max-price", "300"], 65, "plan 102 costs 305.00, above max_price 300.00"],
    [["--phone", "08031110015", "--network", "vodafone"], 64, 'unknown network "vodafone"'],
    // Before, -5 was taken as a max_price of -5.00, 1,000.00 as 1000.00, 305.004 rounded, and 13 digits sent to a
    // ledger column that cannot hold them.
    ...["-5", "1,000.00", "305.004", "9999999999999"].map((price) => [
      ["--phone", "08031110016", "--max-price", price],
      64,
      `--max-price must be an amount like 350.00 (at least 0, at most two decimal places, at most 999999999999.99, no thousands separators), got "${price}"`,
    ]),
  ])("%j: exit %i, says why, moves no money", async (args, code, message) => {
    const base = ["-c", file, "buy", "--network", "MTN", "--plan", "102", "--yes"];
    const result = await runCli([...base, ...(args as string[])]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(posts()).toBe(0);
  });

  it("a purchase that would cross the daily budget is rejected with its reason", async () => {
    const own = await createPostgresDatabase();
    try {
      const budgeted = writeConfigFile(sandbox, own.url, { budget: { daily_limit: "1000.00" } }).file;
      // 1000.00 a day: three at 305.00 fit, the fourth does not
      for (const phone of ["08031110020", "08031110021", "08031110022"]) {
        await runCli(["-c", budgeted, "buy", "--network", "MTN", "--plan", "102", "--phone", phone, "--yes"]);
      }
      expect(sandbox.debits()).toHaveLength(3);
      const result = await runCli([
        "-c",
        budgeted,
        "buy",
        "--network",
        "MTN",
        "--plan",
        "102",
        "--phone",
        "08031110023",
        "--yes",
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        "rejected — daily_budget: daily budget: 915.00 committed today + 305.00 > daily_limit 1000.00",
      );
      expect(sandbox.debits()).toHaveLength(3);
    } finally {
      await own.drop();
    }
  });
});

describe("a fire written in batches while it is bought", () => {
  it("buys every recipient once, the last batch too, and exits 0", async () => {
    const result = await runCli(["-c", file, "purchases", "run", "--job", "big", "--now"]);
    expect(result.code, result.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(BIG);
    expect(new Set(sandbox.debits().map((d) => d.phone_number)).size).toBe(BIG);
    const states = await query<{ state: string; n: number }>(
      sql`select state, count(*)::int as n from purchases where job_name = 'big' group by state`,
    );
    expect(states).toEqual([{ state: "succeeded", n: BIG }]);
  });
});

describe("a recipients file with bad rows", () => {
  it("is reported by line number with exit 65, and nothing from it is queued", async () => {
    const before = await count();
    const runs = sql`select count(*)::int as n from purchase_runs`;
    const runsBefore = await query<{ n: number }>(runs);
    const result = await runCli(["-c", file, "purchases", "run", "--job", "badfile", "--now"]);
    expect(result.code).toBe(65);
    expect(result.stderr).toContain("bad.csv: 2 bad rows, nothing from this file was queued");
    expect(result.stderr).toContain('line 3: "not-a-phone" is an invalid phone number');
    expect(result.stderr).toContain('line 4: ported must be true or false, got "maybe"');
    expect(await count()).toBe(before);
    expect(posts()).toBe(0);
    // The run got ready to buy while the fire was being written; it ended without a trace when the writing failed.
    expect(await query<{ n: number }>(runs)).toEqual(runsBefore);
  });
});

describe("settling the ledger by hand", () => {
  it("resolve, requeue and cancel only from the states that allow them", async () => {
    const bought = await buy101("08031110030");
    const id = /purchase (\d+)/.exec(bought.stdout)![1]!;
    const resolve = await runCli([
      "-c",
      file,
      "purchases",
      "resolve",
      id,
      "--as",
      "failed",
      "--note",
      "checked",
    ]);
    expect(resolve.code).toBe(64);
    expect(resolve.stderr).toContain(
      `cannot resolve purchase ${id}: it is succeeded, and only in_doubt or unverified purchases can be resolved`,
    );
    const requeue = await runCli(["-c", file, "purchases", "requeue", id]);
    expect(requeue.code).toBe(64);
    expect(requeue.stderr).toContain("only failed or rejected purchases can be requeued");
    const cancel = await runCli(["-c", file, "purchases", "cancel", id]);
    expect(cancel.code).toBe(64);
    expect(cancel.stderr).toContain("only queued or held purchases can be cancelled");
    const missing = await runCli(["-c", file, "purchases", "show", "999999"]);
    expect(missing.code).toBe(65);
    const [row] = await query<{ state: string; events: number }>(
      sql`select state, (select count(*)::int from purchase_events e where e.purchase_id = p.id) as events from purchases p where id = ${Number(id)}`,
    );
    expect(row).toEqual({ state: "succeeded", events: 4 });
  });

  it("an in_doubt purchase is resolved with a note that goes into its history", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const bought = await buy101("08031110031");
    expect(bought.stdout).toMatch(/purchase (\d+): in_doubt/);
    const id = /purchase (\d+)/.exec(bought.stdout)![1]!;
    const resolve = await runCli([
      "-c",
      file,
      "purchases",
      "resolve",
      id,
      "--as",
      "succeeded",
      "--reference",
      "REF123",
      "--note",
      "the provider's dashboard shows it delivered",
    ]);
    expect(resolve.code).toBe(0);
    const show = await runCli(["-c", file, "--json", "purchases", "show", id]);
    const shown = JSON.parse(show.stdout);
    expect(shown.state).toBe("succeeded");
    expect(shown.reference).toBe("REF123");
    expect(shown.events.at(-1).reason).toContain("the provider's dashboard shows it delivered");
  });

  it("shows a purchase without its phone number, even where the provider's answers repeat it", async () => {
    sandbox.setFaults({ endpoints: {} });
    sandbox.setOptions({ failRate: 1 });
    try {
      const bought = await buy101("08031110032");
      const id = /purchase (\d+)/.exec(bought.stdout)![1]!;
      expect(bought.stdout).toContain("failed");
      expect(bought.stdout).not.toMatch(/(?:234|0)8031110032/);
      const text = await runCli(["-c", file, "purchases", "show", id]);
      const json = await runCli(["-c", file, "--json", "purchases", "show", id]);
      // the provider's failure message and raw answers name the number in its international form
      const revealed = await runCli(["-c", file, "--json", "purchases", "show", id, "--show-phone"]);
      expect(revealed.stdout).toContain("2348031110032");
      for (const out of [text.stdout, json.stdout]) {
        expect(out).toContain("0803****032");
        expect(out).not.toMatch(/(?:234|0)8031110032/);
      }
    } finally {
      sandbox.setOptions({ failRate: 0 });
    }
  });

  it("lists with filters, masked phones, and CSV", async () => {
    await buy101("08031110040");
    const list = await runCli(["-c", file, "purchases", "list", "--state", "succeeded", "--since", "1h"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("0803****040");
    expect(list.stdout).not.toContain("08031110040");
    const csv = await runCli(["-c", file, "purchases", "list", "--csv", "--show-phone"]);
    expect(csv.stdout.split("\n")[0]).toBe(
      "id,state,source,job,fire_time,phone,network,plan,amount,reference,reason,provider_status,created_at,updated_at",
    );
    expect(csv.stdout).toContain("08031110040");
    const bad = await runCli(["-c", file, "purchases", "list", "--state", "done"]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--state must be one of queued, rejected");
    // A --limit the database's bigint cannot hold was an unexpected failure (exit 1, "Failed query").
    for (const limit of ["99999999999999999999", "1e300", "0", "many"]) {
      const refused = await runCli(["-c", file, "purchases", "list", "--limit", limit]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain(`--limit must be a whole number from 1 to 1000000, got "${limit}"`);
    }
  });
});

describe("a one-off at time before the job was first seen", () => {
  it("purchases run says it will not fire and why, and writes nothing for it", async () => {
    const created = await createPostgresDatabase();
    try {
      const at = new Date(Date.now() - 3_600_000).toISOString();
      const { file: late } = writeConfigFile(sandbox, created.url, {
        purchases: [
          { name: "late", at, plan: { network: "MTN", plan_id: "101" }, recipients: ["08031110040"] },
        ],
      });
      expect((await runCli(["-c", late, "migrate"])).code).toBe(0);
      const result = await runCli(["-c", late, "purchases", "run"]);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`job late will not fire: its at time ${at} is earlier than`);
      expect(result.stderr).toContain("a one-off time that passed before the job existed never fires");
      expect(posts()).toBe(0);
    } finally {
      await created.drop();
    }
  });
});
