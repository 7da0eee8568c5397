// `purchases reconcile --statement` over statements that used to be misread, or to exhaust the process: cells
// that would be guessed are refused with their line, dates and amounts are read in the declared format and the
// config's time zone, a line dated 1970 or 2100 is set aside instead of stretching the period over the whole
// ledger, a statement of 150,000 lines is matched, and only a regular file of bounded size is read at all.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Executor } from "../../src/db/client.js";
import { rows } from "../../src/db/client.js";
import type { PurchaseState } from "../../src/db/schema.js";
import {
  MAX_STATEMENT_BYTES,
  type StatementLine,
  statementOf,
} from "../../src/purchases/sources/statement-csv.js";
import { MAX_LISTED, reconcileStatement } from "../../src/purchases/statement.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { CLI, runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

interface Purchase {
  reference: string | null;
  state: PurchaseState;
  amount: string;
  /** When it was sent (null: never answered, as an in_doubt purchase). */
  sent: string | null;
  created?: string;
  phone?: string;
}

let seq = 0;
/** Purchases written straight into the ledger, as a year of runs would have left them; returns their ids. */
async function ledger(db: Executor, purchases: Purchase[]): Promise<number[]> {
  const ids: number[] = [];
  for (const p of purchases) {
    const created = p.created ?? p.sent ?? "2026-11-05T08:00:00Z";
    const [row] = await rows<{ id: number }>(
      db,
      sql`insert into purchases (request_key, source, network, plan_id, phone, state, reference, amount,
            submitted_at, created_at, updated_at)
          values (${`stmt-input:${++seq}`}, 'buy', 'MTN', '102', ${p.phone ?? "08031239999"}, ${p.state},
            ${p.reference}, ${p.amount}, ${p.sent}, ${created}, ${created})
          returning id::int as id`,
    );
    // Every purchase past `queued` was claimed for its POST: that event dates it for the matching rule.
    if (p.state !== "queued")
      await rows(
        db,
        sql`insert into purchase_events (purchase_id, actor, from_state, to_state, at)
            values (${row!.id}, 'test', 'queued', 'submitting', ${p.sent ?? created})`,
      );
    ids.push(row!.id);
  }
  return ids;
}

const HEADER = "reference,phone,amount,date,status";

describe("purchases reconcile --statement: reading the statement", () => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let dir: string;
  let config: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 9 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    test = await openTestDatabase("postgres");
    dir = mkdtempSync(join(tmpdir(), "topsync-statement-"));
    config = writeConfigFile(sandbox, test.url, { timezone: "Africa/Lagos" }).file;
  });
  afterEach(() => test.drop());

  const statement = (name: string, lines: string[]) => {
    const file = join(dir, name);
    writeFileSync(file, [HEADER, ...lines].join("\n"));
    return file;
  };
  // The machine's own zone is New York: nothing may be read in it.
  const reconcile = (file: string, ...flags: string[]) =>
    runCli(["-c", config, "--json", "purchases", "reconcile", "--statement", file, ...flags], {
      TZ: "America/New_York",
    });

  it("refuses, exit 65 with each line and its reason, cells that would otherwise be guessed", async () => {
    const file = statement("guesses.csv", [
      'R02,08031230001,"168,00",2026-11-05T10:00:00Z,successful',
      'R03,08031230001,"1.000,00",2026-11-05T10:00:00Z,successful',
      'R04,08031230001,"16,8",2026-11-05T10:00:00Z,successful',
      "R05,08031230001,168.005,2026-11-05T10:00:00Z,successful",
      "R06,08031230001,-168,2026-11-05T10:00:00Z,successful",
      "R07,08031230001,168.00,1,successful",
      "R08,08031230001,168.00,05/11/2026,successful",
      'R09,08031230001,"₦1,405.00",2026-11-05T10:00:00Z,successful',
      'R10,08031230001,"NGN 168",2026-11-05 10:00,successful',
    ]);
    const result = await reconcile(file);
    expect(result.code, result.stdout).toBe(65);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`${file}: 7 lines refused, nothing was matched:`);
    const lines = result.stderr.split("\n").filter((l) => /^\s+line \d+:/.test(l));
    expect(lines.map((l) => l.trim())).toEqual([
      'line 2: column "amount": "168,00" has a comma that does not separate thousands (if the export writes decimal commas, say so with --decimal-comma)',
      'line 3: column "amount": "1.000,00" has a comma that does not separate thousands (if the export writes decimal commas, say so with --decimal-comma)',
      'line 4: column "amount": "16,8" has a comma that does not separate thousands (if the export writes decimal commas, say so with --decimal-comma)',
      'line 5: column "amount": "168.005" has more than two decimals',
      'line 6: column "amount": "-168" is negative (a statement line is a debit)',
      'line 7: column "date": "1" is not an ISO 8601 date (2026-11-05 or 2026-11-05T14:03:00); an export that writes 05/11/2026 needs --date-format DD/MM/YYYY',
      'line 8: column "date": "05/11/2026" is not an ISO 8601 date (2026-11-05 or 2026-11-05T14:03:00); an export that writes 05/11/2026 needs --date-format DD/MM/YYYY',
    ]);
  });

  it("reads DD/MM/YYYY and decimal commas when declared (flag or config), a time without a zone in the config's timezone", async () => {
    await ledger(test.database.db, [
      { reference: "RA", state: "succeeded", amount: "168.00", sent: "2026-11-05T09:00:00Z" },
    ]);
    const file = statement("day-first.csv", [
      'RA,08031230001,"168,00",05/11/2026 10:00,successful',
      'RB,08031230002,"1.305,00",05/11/2026 11:30:15,successful',
    ]);
    const expected = {
      period: { from: "2026-11-05T09:00:00.000Z", to: "2026-11-05T10:30:15.000Z" },
      lines: 2,
      matched: 1,
      amountDifferences: [],
      providerOnly: [
        {
          line: 3,
          reference: "RB",
          amount: "1305.00",
          date: "2026-11-05T10:30:15.000Z",
          status: "successful",
        },
      ],
    };
    const flagged = await reconcile(file, "--date-format", "DD/MM/YYYY", "--decimal-comma");
    expect(flagged.stderr).toBe("");
    expect(JSON.parse(flagged.stdout)).toMatchObject(expected);

    const configured = writeConfigFile(sandbox, test.url, {
      timezone: "Africa/Lagos",
      statements: { date_format: "DD/MM/YYYY", decimal_comma: true },
    }).file;
    const fromConfig = await runCli(
      ["-c", configured, "--json", "purchases", "reconcile", "--statement", file],
      { TZ: "America/New_York" },
    );
    expect(fromConfig.stderr).toBe("");
    expect(fromConfig.stdout).toBe(flagged.stdout);
    // The flags win over the config: declared ISO and decimal points, the same file is refused line by line.
    const overridden = await runCli(
      [
        "-c",
        configured,
        "purchases",
        "reconcile",
        "--statement",
        file,
        "--date-format",
        "iso",
        "--no-decimal-comma",
      ],
      { TZ: "America/New_York" },
    );
    expect(overridden.code).toBe(65);
    expect(overridden.stderr).toContain("2 lines refused");

    // ISO, the default: a time without a zone is Lagos time, not the machine's New York.
    const iso = statement("iso.csv", ["RA,08031230001,168.00,2026-11-05 10:00:00,successful"]);
    const read = JSON.parse((await reconcile(iso)).stdout);
    expect(read.period).toEqual({ from: "2026-11-05T09:00:00.000Z", to: "2026-11-05T09:00:00.000Z" });
    expect(read.matched).toBe(1);

    const bad = await reconcile(iso, "--date-format", "MM/DD/YYYY");
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--date-format must be ISO or DD/MM/YYYY; got "MM/DD/YYYY"');
  });

  it("reads an export separated by semicolons or tabs (as spreadsheets in decimal-comma locales write it); a UTF-16 file it cannot read is refused saying so", async () => {
    await ledger(test.database.db, [
      { reference: "RS", state: "succeeded", amount: "1305.00", sent: "2026-11-05T09:00:00Z" },
    ]);
    const semicolons = join(dir, "semicolons.csv");
    writeFileSync(
      semicolons,
      "reference;phone;amount;date;status\nRS;08031230001;1.305,00;05/11/2026 10:00;successful\n",
    );
    const tabs = join(dir, "tabs.csv");
    writeFileSync(
      tabs,
      "reference\tphone\tamount\tdate\tstatus\nRS\t08031230001\t1305.00\t2026-11-05T09:00:00Z\tsuccessful\n",
    );
    const read = await reconcile(semicolons, "--date-format", "DD/MM/YYYY", "--decimal-comma");
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({
      lines: 1,
      matched: 1,
      amountDifferences: [],
      providerOnly: [],
    });
    const quoted = join(dir, "quoted.csv");
    writeFileSync(
      quoted,
      'reference;phone;amount;"fee, NGN";date;status\nRS;08031230001;1.305,00;0,00;05/11/2026 10:00;successful\n',
    );
    const named = await reconcile(quoted, "--date-format", "DD/MM/YYYY", "--decimal-comma");
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ lines: 1, matched: 1, amountDifferences: [] });
    const tabbed = await reconcile(tabs);
    expect(tabbed.code, tabbed.stderr).toBe(0);
    expect(JSON.parse(tabbed.stdout)).toMatchObject({ lines: 1, matched: 1, providerOnly: [] });

    const text = `${HEADER}\nRS,08031230001,1305.00,2026-11-05T09:00:00Z,successful\n`;
    const bigEndian = join(dir, "utf16be.csv");
    writeFileSync(
      bigEndian,
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]),
    );
    const noMark = join(dir, "utf16-no-bom.csv");
    writeFileSync(noMark, Buffer.from(text, "utf16le"));
    const be = await reconcile(bigEndian);
    expect(be.code).toBe(65);
    expect(be.stderr).toContain(`${bigEndian} is UTF-16 big-endian text: save it as UTF-8`);
    const bare = await reconcile(noMark);
    expect(bare.code).toBe(65);
    expect(bare.stderr).toContain(`${noMark} holds NUL bytes in its first line`);
    expect(bare.stderr).toContain("save it as UTF-8");
  });

  it("sets aside a line dated 1970 or 2100, named in the report, instead of stretching the period over the ledger", async () => {
    const [, june, later] = await ledger(test.database.db, [
      { reference: "RNOV", state: "succeeded", amount: "305.00", sent: "2026-11-05T09:00:00Z" },
      { reference: "RJUN", state: "succeeded", amount: "305.00", sent: "2026-06-01T09:00:00Z" },
      { reference: "RLATER", state: "succeeded", amount: "305.00", sent: "2026-11-20T09:00:00Z" },
    ]);
    const file = statement("placeholders.csv", [
      "RNOV,08031230001,305.00,2026-11-05T09:00:01Z,successful",
      "RNEW,08031230002,305.00,2026-11-25T09:00:00Z,successful",
      "R1970,08031230003,305.00,1970-01-01,failed",
      "R2100,08031230004,305.00,2100-01-01T00:00:00Z,successful",
    ]);
    const report = JSON.parse((await reconcile(file)).stdout);
    expect(report.period).toEqual({ from: "2026-11-05T09:00:01.000Z", to: "2026-11-25T09:00:00.000Z" });
    expect(report.matched).toBe(1);
    expect(report.ledgerOnly.map((r: { id: number }) => r.id)).toEqual([later]);
    expect(report.ledgerOnly.map((r: { id: number }) => r.id)).not.toContain(june);
    expect(report.providerOnly.map((r: { reference: string }) => r.reference)).toEqual(["RNEW"]);
    expect(report.setAside).toMatchObject([
      { line: 4, reference: "R1970", date: "1969-12-31T23:00:00.000Z", status: "failed" },
      { line: 5, reference: "R2100", date: "2100-01-01T00:00:00.000Z", status: "successful" },
    ]);
    expect(report.setAside[0].reason).toMatch(/^dated 20,\d\d\d days before the statement's other lines$/);
    expect(report.setAside[1].reason).toMatch(/^dated 26,\d\d\d days after the statement's other lines$/);
    expect(report.totals).toMatchObject({ setAside: 2, providerOnly: 1, ledgerOnly: 1 });

    const text = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("lines      4, 1 on ledger purchases, 2 set aside\n");
    expect(text.stdout).toContain("\nLines set aside, dated far from the statement's period\n");
    expect(text.stdout).toMatch(
      /\n4 +R1970 +NGN 305\.00 +1970-01-01 00:00 +failed +dated 20,\d{3} days before/,
    );
    expect(text.stdout).toContain("2 lines set aside");
  });

  it("matches a statement of 150,000 lines (no argument-count limit), listing at most MAX_LISTED of a kind", async () => {
    const count = 150_000;
    const reference = (i: number) => `BULK${String(i).padStart(8, "0")}`;
    const time = (i: number) => new Date(Date.parse("2026-11-01T00:00:00Z") + i * 15_000);
    const [first, middle, last, unlisted, inDoubt] = await ledger(test.database.db, [
      { reference: reference(0), state: "succeeded", amount: "305.00", sent: time(0).toISOString() },
      {
        reference: reference(75_000),
        state: "succeeded",
        amount: "305.00",
        sent: time(75_000).toISOString(),
      },
      {
        reference: reference(count - 1),
        state: "failed",
        amount: "305.00",
        sent: time(count - 1).toISOString(),
      },
      { reference: "NOT-ON-IT", state: "succeeded", amount: "305.00", sent: time(500).toISOString() },
      {
        reference: null,
        state: "in_doubt",
        amount: "580.00",
        sent: null,
        // POSTed a minute before its line's date: within the day a line may be from its purchase.
        created: new Date(time(1).getTime() - 60_000).toISOString(),
        phone: "08030000001",
      },
    ]);
    const lines = Array.from(
      { length: count },
      (_, i) =>
        `${reference(i)},0803${String(i).padStart(7, "0")},${i === 1 ? "580.00" : '"1,305.00"'},${time(i).toISOString()},successful`,
    );
    const file = statement("large.csv", lines);
    const out = join(dir, "large.json");
    const result = await reconcile(file, "--out", out);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report.lines).toBe(count);
    expect(report.matched).toBe(3);
    expect(report.amountDifferences.map((r: { id: number }) => r.id)).toEqual([first, middle, last]);
    expect(report.statusDifferences.map((r: { id: number }) => r.id)).toEqual([last]);
    expect(report.ledgerOnly.map((r: { id: number }) => r.id)).toEqual([unlisted]);
    expect(report.resolvable).toMatchObject([{ id: inDoubt, line: 3, reference: reference(1) }]);
    expect(report.totals.providerOnly).toBe(count - 4);
    expect(report.providerOnly).toHaveLength(MAX_LISTED);
    expect(report.providerOnly[0]).toMatchObject({ line: 4, reference: reference(2), amount: "1305.00" });
    expect(report.providerOnly.at(-1).line).toBe(MAX_LISTED + 3);
  }, 120_000);

  /** Runs reconcile and stops it after `ms`: a file that would keep it reading forever must be refused before. */
  const reconcileWithin = (file: string, ms: number) =>
    new Promise<{ code: number | null; stderr: string; timedOut: boolean }>((resolve) => {
      const child = spawn(
        process.execPath,
        [CLI, "-c", config, "purchases", "reconcile", "--statement", file],
        {
          env: { PATH: process.env.PATH ?? "" },
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), ms);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, stderr, timedOut: signal === "SIGKILL" });
      });
    });

  it("reads only a regular file of bounded size: /dev/zero, a FIFO, a directory and a huge file are refused at once", async () => {
    const fifo = join(dir, "statement.fifo");
    await new Promise((resolve, reject) =>
      spawn("mkfifo", [fifo]).once("exit", (code) =>
        code === 0 ? resolve(code) : reject(new Error("mkfifo")),
      ),
    );
    const folder = join(dir, "folder");
    mkdirSync(folder);
    const huge = join(dir, "huge.csv");
    writeFileSync(huge, `${HEADER}\n`);
    truncateSync(huge, MAX_STATEMENT_BYTES + 1); // sparse: no disk is used
    for (const [file, reason] of [
      ["/dev/zero", "is not a regular file (a device, FIFO or socket)"],
      [fifo, "is not a regular file (a device, FIFO or socket)"],
      [folder, "is a directory, not a file"],
      [
        huge,
        `is ${MAX_STATEMENT_BYTES + 1} bytes, more than the ${MAX_STATEMENT_BYTES} a statement may have`,
      ],
      [join(dir, "missing.csv"), "does not exist"],
    ] as const) {
      const result = await reconcileWithin(file, 10_000);
      expect(result.timedOut, file).toBe(false);
      expect(result.code, `${file}: ${result.stderr}`).toBe(65);
      expect(result.stderr).toContain(`statement ${file} ${reason}`);
    }
    // A regular file of one endless line: refused at 64 KiB rather than read whole.
    const endlessFile = join(dir, "endless.csv");
    writeFileSync(endlessFile, Buffer.alloc(5 * 1024 * 1024, "a"));
    const endless = await reconcileWithin(endlessFile, 10_000);
    expect(endless.code, endless.stderr).toBe(65);
    expect(endless.stderr).toContain(`${endlessFile}: line 1: not a CSV file: Max Record Size`);
    // A regular file of zeros is not text: refused from its first bytes.
    const zeros = join(dir, "zeros.csv");
    writeFileSync(zeros, Buffer.alloc(5 * 1024 * 1024));
    const binary = await reconcileWithin(zeros, 10_000);
    expect(binary.code, binary.stderr).toBe(65);
    expect(binary.stderr).toContain(`statement ${zeros} holds NUL bytes in its first line`);
  }, 60_000);
});

describe.each(DB_KINDS)("reconcileStatement reads the ledger in pages (%s)", (kind) => {
  let test: TestDatabase;
  beforeEach(async () => {
    test = await openTestDatabase(kind);
  });
  afterEach(() => test.drop());

  it("finds the same purchases the statement does not list whatever the page size, ties in time included", async () => {
    const at = "2026-11-05T09:00:00.123456Z"; // four purchases sent in the same microsecond
    const ids = await ledger(test.database.db, [
      { reference: "L1", state: "succeeded", amount: "305.00", sent: at },
      { reference: "L2", state: "succeeded", amount: "305.00", sent: at },
      { reference: "L3", state: "failed", amount: "305.00", sent: at },
      { reference: "L4", state: "succeeded", amount: "305.00", sent: at },
      { reference: "L5", state: "succeeded", amount: "305.00", sent: "2026-11-05T09:00:00.123457Z" },
      // Settled by proof from in_doubt: no submitted_at, its creation stands in for it.
      { reference: "L6", state: "succeeded", amount: "305.00", sent: null, created: "2026-11-05T10:00:00Z" },
      { reference: "L7", state: "succeeded", amount: "305.00", sent: null, created: "2026-11-05T10:00:00Z" },
      { reference: "OUT", state: "succeeded", amount: "305.00", sent: "2026-10-01T09:00:00Z" },
    ]);
    const line = (n: number, reference: string, date: string): StatementLine => ({
      line: n,
      reference,
      phone: "",
      amount: "305.00",
      date: new Date(date),
      status: "successful",
    });
    // The statement's period, from its first line to its last, holds every purchase but OUT.
    const statement = statementOf(
      [
        line(2, "L2", "2026-11-05T08:30:00Z"),
        line(3, "L5", "2026-11-05T09:30:00Z"),
        line(4, "L7", "2026-11-05T11:00:00Z"),
      ],
      new Date("2026-12-01"),
    );
    const unlisted = [ids[0], ids[2], ids[3], ids[5]];
    for (const ledgerPage of [1, 2, 3, 1000]) {
      const report = await reconcileStatement(test.database.db, statement, { ledgerPage });
      expect(report.matched).toBe(3);
      expect(
        report.ledgerOnly.map((r) => r.id).sort((a, b) => a - b),
        `page ${ledgerPage}`,
      ).toEqual(unlisted);
    }
  });

  it("reports missing from the statement only purchases sent within its period, not in the day of slack at either edge", async () => {
    const ids = await ledger(test.database.db, [
      { reference: "IN1", state: "succeeded", amount: "305.00", sent: "2026-11-05T08:00:00Z" },
      { reference: "BEFORE", state: "succeeded", amount: "305.00", sent: "2026-11-04T20:00:00Z" },
      { reference: "IN2", state: "succeeded", amount: "305.00", sent: "2026-11-05T12:00:00Z" },
      { reference: "AFTER", state: "succeeded", amount: "305.00", sent: "2026-11-06T02:00:00Z" },
      // Settled by proof, no submitted_at: its creation dates it, inside and outside the period alike.
      {
        reference: "BEFORE2",
        state: "succeeded",
        amount: "305.00",
        sent: null,
        created: "2026-11-04T23:00:00Z",
      },
      { reference: "LISTED", state: "succeeded", amount: "305.00", sent: "2026-11-05T17:00:00Z" },
    ]);
    const line = (n: number, reference: string, date: string): StatementLine => ({
      line: n,
      reference,
      phone: "",
      amount: "305.00",
      date: new Date(date),
      status: "successful",
    });
    // The statement runs from 06:00 to 18:00 on 5 November: the purchases sent the evening before and the night
    // after are within a day of its edges, yet it does not cover them.
    const statement = statementOf(
      [
        line(2, "PROVIDER-ONLY", "2026-11-05T06:00:00Z"),
        line(3, "IN1", "2026-11-05T08:00:01Z"),
        line(4, "LISTED", "2026-11-05T18:00:00Z"),
      ],
      new Date("2026-12-01"),
    );
    const report = await reconcileStatement(test.database.db, statement, { ledgerPage: 2 });
    expect(report.period).toEqual({ from: "2026-11-05T06:00:00.000Z", to: "2026-11-05T18:00:00.000Z" });
    expect(report.matched).toBe(2);
    expect(report.ledgerOnly.map((r) => r.reference)).toEqual(["IN2"]);
    expect(report.ledgerOnly.map((r) => r.id)).toEqual([ids[2]]);
  });

  it("lists a line that waited for its in_doubt purchase in its place, when a later line could be that purchase too", async () => {
    const [inDoubt] = await ledger(test.database.db, [
      { reference: null, state: "in_doubt", amount: "580.00", sent: null, phone: "08030000001" },
    ]);
    const line = (n: number, phone: string, amount: string): StatementLine => ({
      line: n,
      reference: `P${n}`,
      phone,
      amount,
      date: new Date("2026-11-05T09:30:00Z"),
      status: "successful",
    });
    const others = Array.from({ length: MAX_LISTED + 1 }, (_, i) => line(i + 3, "08039999999", "305.00"));
    const now = new Date("2026-12-01");
    // Alone, the first line resolves the in_doubt purchase.
    const alone = await reconcileStatement(
      test.database.db,
      statementOf([line(2, "08030000001", "580.00"), ...others], now),
    );
    expect(alone.resolvable).toMatchObject([{ id: inDoubt, line: 2 }]);
    expect(alone.providerOnly[0]!.line).toBe(3);
    // A second line that could be it too: neither resolves it, and the first is listed first.
    const lines = [
      line(2, "08030000001", "580.00"),
      ...others,
      line(MAX_LISTED + 4, "0803****001", "580.00"),
    ];
    const report = await reconcileStatement(test.database.db, statementOf(lines, now));
    expect(report.resolvable).toEqual([]);
    expect(report.totals.providerOnly).toBe(MAX_LISTED + 3);
    expect(report.providerOnly).toHaveLength(MAX_LISTED);
    expect(report.providerOnly.map((r) => r.line).slice(0, 3)).toEqual([2, 3, 4]);
    expect(report.providerOnly.at(-1)!.line).toBe(MAX_LISTED + 1);
  });
});
