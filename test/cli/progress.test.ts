// Long commands say how far they have got while they run: with stderr not a terminal, a log line every
// TOPSYNC_PROGRESS_INTERVAL with the counts, and the time left where a service's pace holds the work. Each command
// is made slow enough for several lines (the analytics service throttled, the reseller's verify slowed, a big
// recipients file, a long ledger) and its log is read for lines that came before its end.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { countLine, duration } from "../../src/cli/progress.js";
import { openDatabase, rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases } from "../../src/purchases/ledger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

const FAST = { TOPSYNC_PROGRESS_INTERVAL: "100ms" };

/** The messages of the command's log lines (stderr is JSON lines without a terminal). */
function logged(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? "");
}

/** The lines matching `pattern` whose count was short of its total: written while the work went on. */
function midway(messages: string[], pattern: RegExp): string[] {
  return messages.filter((message) => {
    const match = pattern.exec(message);
    if (!match) return false;
    const [done, total] = [match[1], match[2]].map((n) => Number(n?.replace(/,/g, "")));
    return total === undefined || Number.isNaN(total) || done! < total;
  });
}

let sandbox: Sandbox;
let database: { url: string; drop: () => Promise<void> };

beforeAll(async () => {
  sandbox = await startSandbox({
    verifyLag: "reads",
    seed: 5,
    verifyNotFoundPolls: 0,
    verifyPendingPolls: 0,
  });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  database = await createPostgresDatabase();
});
afterEach(async () => {
  sandbox.reset({ throttle: null });
  await database.drop();
});

describe("websites, paced by the analytics service's throttle", () => {
  it("apply logs the changes done of all, the service's pace and the time left, before it ends", async () => {
    sandbox.reset({ throttle: { limit: 10, windowSeconds: 1 } });
    const items = Array.from({ length: 30 }, (_, i) => ({ domain: `site${i}.example.com` }));
    const { file } = writeConfigFile(sandbox, database.url, { websites: { items } });
    const apply = await runCli(["-c", file, "websites", "apply", "--auto-approve"], FAST);
    expect(apply.stderr).not.toMatch(/error/);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete: 30 created/);
    const lines = midway(logged(apply.rawStderr), /^(\d+)\/(\d+) changes/);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => /^\d+\/30 changes/.test(line))).toBe(true);
    expect(
      lines.some((line) => /paced at [\d,.]+ a minute by the service, about \d+ (s|min) left/.test(line)),
    ).toBe(true);
    // The last word is the end: every change counted.
    expect(logged(apply.rawStderr).at(-1)).toMatch(/^30\/30 changes/);
  });

  it("plan over many pages logs the pages read of all", async () => {
    sandbox.seedWebsites(Array.from({ length: 1500 }, (_, i) => ({ domain: `remote${i}.example.org` })));
    sandbox.setOptions({ throttle: { limit: 4, windowSeconds: 1 } });
    const { file } = writeConfigFile(sandbox, database.url, {
      websites: { items: [{ domain: "one.example.com" }] },
    });
    const plan = await runCli(["-c", file, "websites", "plan", "--json"], FAST);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ create: 1, unmanaged: 1500 });
    const lines = midway(logged(plan.rawStderr), /^(\d+)\/(\d+) pages read/);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => /^\d+\/15 pages read \([\d,]+ websites\)/.test(line))).toBe(true);
  });
});

describe("purchases", () => {
  it("prune logs the purchases pruned so far", async () => {
    const ledger = await openDatabase({ url: database.url });
    try {
      await runCli(["-c", writeConfigFile(sandbox, database.url).file, "migrate"]);
      await rows(
        ledger.db,
        sql`insert into purchases (request_key, source, network, phone, amount, state, budget_day, settled_at,
              created_at, updated_at)
            select 'old:' || n, 'buy', 'MTN', '08031234567', 305, 'succeeded', (now() - interval '100 days')::date,
              now() - interval '100 days', now() - interval '100 days', now() - interval '100 days'
            from generate_series(1, 60000) n`,
      );
    } finally {
      await ledger.close();
    }
    const { file } = writeConfigFile(sandbox, database.url);
    const prune = await runCli(["-c", file, "purchases", "prune", "--before", "90d"], {
      TOPSYNC_PROGRESS_INTERVAL: "20ms",
    });
    expect(prune.code).toBe(0);
    expect(prune.stdout).toMatch(/^pruned 60000 purchases/);
    const lines = midway(logged(prune.rawStderr), /^([\d,]+) purchases pruned/);
    expect(lines.some((line) => /^[1-9][\d,]* purchases pruned \(0 events\)/.test(line))).toBe(true);
  });

  it("plan --window logs the runs decided and the rows of a recipients file read so far", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-progress-"));
    const csv = join(dir, "recipients.csv");
    const phones = Array.from({ length: 30_000 }, (_, i) => `0803${String(i).padStart(7, "0")},`);
    writeFileSync(csv, `phone,ported\n${phones.join("\n")}\n`);
    const { file } = writeConfigFile(sandbox, database.url, {
      purchases: [
        {
          name: "campaign",
          schedule: "0 8 * * *",
          timezone: "UTC",
          plan: { network: "MTN", plan_id: "101" },
          recipients_file: csv,
        },
      ],
      budget: { min_wallet_balance: "0.00" },
    });
    const plan = await runCli(["-c", file, "plan", "--window", "25h"], FAST);
    expect(plan.code).toBe(0);
    const rowsRead = logged(plan.rawStderr)
      .map((line) => /purchases: \d+\/\d+ runs decided \(([\d,]+) rows\)/.exec(line)?.[1])
      .filter((n) => n !== undefined)
      .map((n) => Number(n.replace(/,/g, "")));
    expect(rowsRead.some((n) => n > 0 && n < 30_000)).toBe(true);

    const dry = await runCli(
      ["-c", file, "purchases", "run", "--job", "campaign", "--now", "--dry-run"],
      FAST,
    );
    expect(dry.code).toBe(0);
    expect(midway(logged(dry.rawStderr), /^(\d+)\/(\d+) runs decided/).length).toBeGreaterThan(0);
  });

  it("jobs backfill logs the fires decided of all and the rows read, then the purchases bought", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-progress-"));
    const csv = join(dir, "recipients.csv");
    const phones = Array.from({ length: 10_000 }, (_, i) => `0803${String(i).padStart(7, "0")}`);
    writeFileSync(csv, `phone\n${phones.join("\n")}\n`);
    const job = {
      name: "weekly",
      schedule: "0 8 * * 1",
      timezone: "UTC",
      plan: { network: "MTN", plan_id: "101" },
    };
    const { file } = writeConfigFile(sandbox, database.url, {
      purchases: [{ ...job, recipients_file: csv }],
      budget: { min_wallet_balance: "0.00" },
    });
    // The 28 whole days before today: four Mondays.
    const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
    const window = ["--from", day(28), "--to", day(1)];
    const dry = await runCli(["-c", file, "jobs", "backfill", "weekly", ...window, "--dry-run"], FAST);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("4 fires");
    expect(midway(logged(dry.rawStderr), /^backfill: (\d+)\/(\d+) fires decided/).length).toBeGreaterThan(0);

    const small = writeConfigFile(sandbox, database.url, {
      purchases: [{ ...job, recipients: phones.slice(0, 40) }],
      budget: { min_wallet_balance: "0.00" },
    }).file;
    const real = await runCli(["-c", small, "jobs", "backfill", "weekly", ...window], FAST);
    expect(real.code, real.stderr).toBe(0);
    expect(logged(real.rawStderr).some((line) => /^backfill: claimed \d+/.test(line))).toBe(true);
  });

  it("reconcile --statement --apply logs the purchases checked by verify of all", async () => {
    const config = testConfig(sandbox, { database: { url: database.url } });
    const phones = Array.from({ length: 20 }, (_, i) => `080312300${String(i).padStart(2, "0")}`);
    const reseller = resellerFor(sandbox);
    const ledger = await openDatabase({ url: database.url });
    try {
      await runCli(["-c", writeConfigFile(sandbox, database.url).file, "migrate"]);
      const purchases = phones.map((phone) => ({
        request_key: `progress:${phone}`,
        source: "buy" as const,
        network: "MTN",
        plan_id: "102",
        phone,
        ported: false,
      }));
      await insertPurchases(ledger.db, purchases, "test");
      // Every answer lost: each purchase is in_doubt, and the provider's statement lists its debit.
      sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
      await executePurchases(
        { database: ledger, reseller, config, logger: silentLogger() },
        { concurrency: 4, retryWaitMs: 0 },
      );
    } finally {
      await reseller.close();
      await ledger.close();
    }
    sandbox.setFaults({ endpoints: { transaction: { latencyMs: 150 } } });
    const dir = mkdtempSync(join(tmpdir(), "topsync-progress-"));
    const statement = join(dir, "statement.csv");
    const debits = sandbox.debits();
    writeFileSync(
      statement,
      [
        "reference,phone,amount,date,status",
        ...debits.map((d) => `${d.reference},${d.phone_number},${d.amount},${d.at},successful`),
      ].join("\n"),
    );
    const { file } = writeConfigFile(sandbox, database.url);
    const reconcile = await runCli(
      ["-c", file, "--json", "purchases", "reconcile", "--statement", statement, "--apply"],
      FAST,
    );
    expect(reconcile.code).toBe(0);
    expect(JSON.parse(reconcile.stdout).applied).toHaveLength(20);
    const lines = midway(logged(reconcile.rawStderr), /^(\d+)\/(\d+) purchases checked by verify/);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => /^\d+\/20 purchases checked by verify/.test(line))).toBe(true);
  });
});

describe("the progress line", () => {
  it("names the pace while it holds the work, and otherwise goes by the rate so far", () => {
    const pace = { perMinute: 54, by: "analytics.rate_limit" };
    // 60 done in a minute: the pace of 54 is what holds it.
    expect(countLine({ done: 60, total: 500, unit: "changes", pace }, 60_000)).toBe(
      "60/500 changes, paced at 54 a minute by analytics.rate_limit, about 8 min left",
    );
    // 3,000 a minute against a configured 600,000: the service's answers hold it, not the pace.
    const loose = { perMinute: 600_000, by: "analytics.rate_limit" };
    expect(countLine({ done: 150, total: 450, unit: "changes", note: "2 failed", pace: loose }, 3_000)).toBe(
      "150/450 changes (2 failed), about 6 s left",
    );
    expect(countLine({ done: 15_000, unit: "purchases pruned" }, 5_000)).toBe(
      "15,000 purchases pruned, 3,000 a second so far",
    );
    expect(countLine({ done: 0, total: 10, unit: "changes" }, 500)).toBe("0/10 changes");
    expect([duration(400), duration(89_000), duration(6 * 60_000), duration(125 * 60_000)]).toEqual([
      "1 s",
      "89 s",
      "6 min",
      "2 h 5 min",
    ]);
  });
});
