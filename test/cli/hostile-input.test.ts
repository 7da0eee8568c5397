// Input written to hurt, through the CLI as an operator types it: recipients files that are not files or not
// CSVs, ids and dates that do not exist, a reference already taken, --out targets that are not regular files.
// Each gets a message naming what is wrong and the README's exit code; the final error is one JSON log line
// when stderr is not a terminal.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
let drop: () => Promise<void>;
let file: string;
let dir: string;

const plan = { network: "MTN", plan_id: "102" };

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 61 });
  const created = await createPostgresDatabase();
  drop = created.drop;
  ({ file, dir } = writeConfigFile(sandbox, created.url, {
    purchases: [
      { name: "folder", plan, recipients_file: "folder.csv" },
      { name: "twice", plan, recipients_file: "twice.csv" },
      { name: "empty", plan, recipients_file: "empty.csv" },
      { name: "nophone", plan, recipients_file: "nophone.csv" },
      { name: "device", plan, recipients_file: "/dev/zero" },
      { name: "oneline", plan, recipients_file: "oneline.csv" },
      { name: "garbled", plan, recipients_file: "garbled.csv" },
    ],
  }));
  mkdirSync(join(dir, "folder.csv"));
  writeFileSync(join(dir, "twice.csv"), "phone,phone\n08031230001,08031230002\n");
  writeFileSync(join(dir, "empty.csv"), "");
  writeFileSync(join(dir, "nophone.csv"), "number,ported\n08031230003,false\n");
  writeFileSync(join(dir, "oneline.csv"), `phone\n${"8".repeat(100_000)}`);
  writeFileSync(join(dir, "garbled.csv"), `\u001b[2Jwho,${"x".repeat(500)},a,b,c,d,e,f,g,h,i,j\n1\n`);
  await runCli(["-c", file, "migrate"]);
});
afterAll(async () => {
  await sandbox.close();
  await drop();
});
beforeEach(() => sandbox.reset());

const cli = (...args: string[]) => runCli(["-c", file, ...args]);

/** Buys plan 101 for `phone` with the purchase answer lost (HTTP 500 after the sale): an in_doubt purchase. */
async function inDoubt(phone: string): Promise<string> {
  sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
  try {
    const bought = await cli("buy", "--network", "MTN", "--plan", "101", "--phone", phone, "--yes");
    expect(bought.stdout).toMatch(/purchase \d+: in_doubt/);
    return /purchase (\d+)/.exec(bought.stdout)![1]!;
  } finally {
    sandbox.setFaults({ endpoints: {} });
  }
}

describe("recipients files", () => {
  it("config check names the job and line of a recipients_file that is a directory (78)", async () => {
    const result = await cli("config", "check");
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(
      /config\.yaml:\d+:\d+: purchases\[0\]\.recipients_file \(job "folder"\): .+folder\.csv is a directory, not a file/,
    );
  });

  it("a run or dry run of a job whose file is a directory is a data error (65), not a crash", async () => {
    for (const extra of [[], ["--dry-run"]]) {
      const result = await cli("purchases", "run", "--job", "folder", "--now", ...extra);
      expect(result.code, result.stderr).toBe(65);
      expect(result.stderr).toMatch(/recipients file .+folder\.csv is a directory, not a file/);
      expect(result.stderr).not.toContain("Unhandled");
    }
  });

  it("refuses a header naming phone twice, an empty file and a file without a phone column (65)", async () => {
    const expected = {
      twice: 'twice.csv: the header names the column "phone" twice',
      empty: 'empty.csv: the file is empty; it needs a header with a "phone" column',
      nophone: 'nophone.csv: no "phone" column in the header (columns: number, ported)',
    };
    for (const [job, message] of Object.entries(expected)) {
      const result = await cli("purchases", "run", "--job", job, "--now");
      expect(result.code, `${job}: ${result.stderr}`).toBe(65);
      expect(result.stderr).toContain(message);
    }
  });
});

describe("recipients files that never end, or quote the terminal", () => {
  it("a device is refused at once, a row past 64 KiB is refused, a header's names are escaped and cut (65)", async () => {
    // Before: /dev/zero was read for ever (the run hung, its memory growing), and a header's names were quoted
    // whole and raw, terminal escapes included.
    const expected = {
      device: "recipients file /dev/zero is not a regular file",
      oneline:
        "oneline.csv: line 2: Max Record Size: record exceed the maximum number of tolerated bytes of 65536",
      garbled: `garbled.csv: no "phone" column in the header (columns: \\x1B[2jwho, ${"x".repeat(40)}…, a, b, c, d, e, f, g, h, … 2 more)`,
    };
    for (const [job, message] of Object.entries(expected)) {
      const result = await cli("purchases", "run", "--job", job, "--now", "--dry-run");
      expect(result.code, `${job}: ${result.stderr}`).toBe(65);
      expect(result.stderr).toContain(message);
    }
  });
});

describe("ids, dates and references that do not fit", () => {
  it("a 20-digit id is not found (65) for show and resolve", async () => {
    const show = await cli("purchases", "show", "99999999999999999999");
    expect(show.code).toBe(65);
    expect(show.stderr).toContain('no purchase with id or reference "99999999999999999999"');
    const resolve = await cli(
      "purchases",
      "resolve",
      "99999999999999999999",
      "--as",
      "failed",
      "--note",
      "x",
    );
    expect(resolve.code).toBe(65);
  });

  it("--since 2026-02-30 is refused (64), not read as 2 March", async () => {
    for (const command of [["purchases", "list"], ["report"]]) {
      const result = await cli(...command, "--since", "2026-02-30");
      expect(result.code, result.stderr).toBe(64);
      expect(result.stderr).toContain(
        '--since must be a duration like 7d or 24h, or a real date like 2026-11-01; got "2026-02-30"',
      );
    }
    expect((await cli("purchases", "list", "--since", "2026-02-28")).code).toBe(0);
  });

  it("resolve --reference refuses a reference already on another purchase, naming it (64), and flags both for a person", async () => {
    const first = await inDoubt("08031230010");
    const second = await inDoubt("08031230011");
    const settle = (id: string) =>
      cli("purchases", "resolve", id, "--as", "succeeded", "--reference", "REF-16-A", "--note", "dashboard");
    expect((await settle(first)).code).toBe(0);
    const again = await settle(second);
    expect(again.code).toBe(64);
    expect(again.stderr).toContain(`--reference REF-16-A is already on purchase ${first} (succeeded)`);
    expect(again.stderr).toContain("nothing was settled, and both purchases are flagged reference_clash");
    const show = async (id: string) => JSON.parse((await cli("--json", "purchases", "show", id)).stdout);
    for (const [id, state] of [
      [first, "succeeded"],
      [second, "in_doubt"],
    ] as const) {
      const shown = await show(id);
      expect(shown.state).toBe(state);
      expect(shown.note).toMatch(/^reference_clash: a person named reference REF-16-A for purchase \d+/);
      expect(shown.events.at(-1)).toMatchObject({ from: state, to: state, reason: shown.note });
    }
    // A person decides: the first keeps the reference (settled again, whatever its state), the second failed.
    const keep = await cli(
      "purchases",
      "resolve",
      first,
      "--as",
      "succeeded",
      "--note",
      "REF-16-A is this one",
    );
    expect(keep.code, keep.stderr).toBe(0);
    expect(keep.stdout).toContain(`purchase ${first}: succeeded → succeeded`);
    const drop = await cli("purchases", "resolve", second, "--as", "failed", "--note", "never delivered");
    expect(drop.code, drop.stderr).toBe(0);
    expect(await show(first)).toMatchObject({ state: "succeeded", reference: "REF-16-A", note: null });
    expect(await show(second)).toMatchObject({ state: "failed", reference: null, note: null });
  });

  it("a reference written as a formula goes into --csv as text", async () => {
    const id = await inDoubt("08031230012");
    const formula = '=HYPERLINK("http://evil.example","click")';
    const resolved = await cli(
      "purchases",
      "resolve",
      id,
      "--as",
      "succeeded",
      "--reference",
      formula,
      "--note",
      "x",
    );
    expect(resolved.code).toBe(0);
    const csv = await cli("purchases", "list", "--csv");
    expect(csv.stdout).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(csv.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it("a phone as people write it is read, and the bad-number hint is not masked", async () => {
    const dry = await cli(
      "buy",
      "--network",
      "MTN",
      "--plan",
      "101",
      "--phone",
      "+234 (0) 803 123 0013",
      "--dry-run",
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("0803****013");
    const bad = await cli("buy", "--network", "MTN", "--plan", "101", "--phone", "12345", "--dry-run");
    expect(bad.code).toBe(65);
    expect(bad.stderr).toContain(
      "expected 11 digits starting 07, 08 or 09 (0XXXXXXXXXX), or +234 and 10 digits (+234XXXXXXXXXX)",
    );
  });
});

describe("--out replaces only regular files", () => {
  const report = (out: string) => cli("report", "--since", "1h", "--out", out);

  it("- is standard output", async () => {
    const result = await report("-");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("report");
    expect(existsSync(join(process.cwd(), "-"))).toBe(false);
  });

  it("refuses a character device, a FIFO and a directory (64), leaving them as they are", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    for (const [target, why] of [
      ["/dev/null", "it is not a regular file (a device, FIFO or socket); only regular files are replaced"],
      [fifo, "it is not a regular file (a device, FIFO or socket); only regular files are replaced"],
      [dir, "it is a directory; give a file name"],
    ] as const) {
      const result = await report(target);
      expect(result.code, result.stderr).toBe(64);
      expect(result.stderr).toContain(`--out ${target} cannot be written: ${why}`);
    }
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("refuses a symbolic link (64) and leaves the link and its target alone", async () => {
    const target = join(dir, "real.txt");
    writeFileSync(target, "keep me");
    const link = join(dir, "link.txt");
    symlinkSync(target, link);
    const result = await report(link);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("it is a symbolic link");
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, "utf8")).toBe("keep me");
  });

  it("a name too long for the file system is a usage error (64)", async () => {
    const result = await report(join(dir, `${"x".repeat(300)}.txt`));
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("the name is too long for the file system");
  });

  it("replaces a regular file whole", async () => {
    const target = join(dir, "report.txt");
    writeFileSync(target, "old");
    expect((await report(target)).code).toBe(0);
    expect(readFileSync(target, "utf8")).toContain("report");
  });
});

describe("the final error without a terminal", () => {
  it("is one JSON log line with level, code and message; the stack only at debug", async () => {
    const plain = await cli("purchases", "show", "424242");
    expect(plain.code).toBe(65);
    const lines = plain.rawStderr.trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1)!);
    expect(last).toMatchObject({
      level: 50,
      code: "PURCHASE_NOT_FOUND",
      exitCode: 65,
      msg: 'no purchase with id or reference "424242"',
    });
    expect(last.stack).toBeUndefined();
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();

    const debug = await cli("--log-level", "debug", "purchases", "show", "424242");
    const record = JSON.parse(debug.rawStderr.trimEnd().split("\n").at(-1)!);
    expect(record.stack).toMatch(/^DataError: no purchase.*\n\s+at /s);
  });
});

describe("topsync sandbox's own flags", () => {
  const start = (...flags: string[]) =>
    runCli(["sandbox", "--reseller-port", "0", "--analytics-port", "0", "--receiver-port", "0", ...flags]);

  it("refuses a faults file it cannot read or that is not a fault config, and a wallet below 0, naming them", async () => {
    // Before: "unexpected failure" with exit 1 for each, and /dev/zero read until memory ran out.
    const notFaults = join(dir, "not-faults.yaml");
    writeFileSync(notFaults, "endpoints: { purchase: { http_500: 2 } }\n");
    const cases: Array<[string[], number, string]> = [
      [["--faults", join(dir, "missing.yaml")], 64, `--faults ${join(dir, "missing.yaml")} does not exist`],
      [["--faults", dir], 64, `--faults ${dir} is a directory, not a file`],
      [["--faults", "/dev/zero"], 64, "--faults /dev/zero is not a regular file"],
      [
        ["--faults", notFaults],
        65,
        `--faults ${notFaults}: invalid fault config: ✖ Unrecognized key: "purchase"`,
      ],
      [["--wallet", "-1"], 64, '--wallet must be an amount like 1000000.00 (at least 0), got "-1"'],
    ];
    for (const [flags, code, message] of cases) {
      const result = await start(...flags);
      expect(result.code, `${flags.join(" ")}: ${result.stderr}`).toBe(code);
      expect(result.stderr).toContain(message);
    }
  });
});
