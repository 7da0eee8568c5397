// The commands as registered on commander (flags reach the code, exit codes come out), over a ledger a real
// purchase run wrote, and the demo: its lost answer settled by the provider's notification, its closing reports.

import { Command } from "commander";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type CommandContext, contextFrom } from "../../src/cli/context.js";
import { demoLostAnswer } from "../../src/cli/demo-lost-answer.js";
import { demoReports, registerReportCommands } from "../../src/cli/report-commands.js";
import type { Config } from "../../src/config/index.js";
import { rows } from "../../src/db/client.js";
import { createLogger } from "../../src/log/logger.js";
import { loadCatalogue } from "../../src/purchases/catalogue-cache.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { recordPlanPrices } from "../../src/purchases/prices.js";
import { prepareRun } from "../../src/purchases/run-once.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { onDemandFire } from "../../src/time/fires.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { fingerprint } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
let config: Config;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 11 });
  test = await openTestDatabase("postgres");
  config = testConfig(sandbox, {
    database: { url: test.url },
    purchases: [
      {
        name: "team",
        plan: { network: "MTN", plan_id: "102" },
        recipients: ["08031110001", "08031110002", "08031110003"],
      },
      {
        name: "daily",
        schedule: "15 7 * * *",
        plan: { network: "MTN", plan_id: "101" },
        recipients: ["08031110004"],
      },
    ],
  });
  // A real purchase run: the team job fired now, bought and verified; then the prices recorded as a run does.
  const now = new Date();
  await prepareRun(test.database, config, {
    now,
    actor: "test",
    configDir: ".",
    fires: [{ job: config.purchases[0]!, fireTime: onDemandFire(now) }],
    intake: false,
  });
  const ctx = context();
  try {
    const catalogue = await loadCatalogue(await ctx.reseller(), logger);
    await executePurchases(
      { database: test.database, reseller: await ctx.reseller(), config, logger, actor: "test" },
      { catalogue },
    );
    await recordPlanPrices(test.database.db, catalogue);
  } finally {
    await ctx.close();
  }
});
afterAll(async () => {
  await sandbox.close();
  await test.drop();
});
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

function context(): CommandContext {
  return contextFrom({ config: "config.yaml" }, config, "config.yaml", logger);
}

/** What src/cli.ts does: a program, the global flags, and a context per command. */
async function cli(args: string[]): Promise<{ stdout: string; exitCode: number }> {
  const program = new Command("topsync").option("--json").exitOverride();
  const withContext =
    <A extends unknown[]>(body: (ctx: CommandContext, ...a: A) => Promise<void>) =>
    async (...a: A) => {
      const ctx = contextFrom(program.opts(), config, "config.yaml", logger);
      try {
        await body(ctx, ...a);
      } finally {
        await ctx.close();
      }
    };
  registerReportCommands(program, withContext);
  const chunks: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  await program.parseAsync(["node", "topsync", ...args]);
  vi.restoreAllMocks();
  const exitCode = typeof process.exitCode === "number" ? process.exitCode : 0;
  process.exitCode = undefined;
  return { stdout: chunks.join(""), exitCode };
}

describe("registered commands", () => {
  it("topsync --json plan --window 24h --detailed-exitcode --show-phone: exit 2 while a job is due, nothing written", async () => {
    const before = await fingerprint(test.database.db);
    const requests = sandbox.requests().length;
    const { stdout, exitCode } = await cli([
      "--json",
      "plan",
      "--window",
      "24h",
      "--detailed-exitcode",
      "--show-phone",
    ]);
    expect(exitCode).toBe(2);
    const plan = JSON.parse(stdout);
    expect(plan.purchases.totals).toMatchObject({ to_buy: 1, cost: "168.00" });
    expect(plan.purchases.items).toMatchObject([
      { job: "daily", phone: "08031110004", outcome: "buy", amount: "168.00" },
    ]);
    expect(plan.purchases.prices).toMatchObject({ changes: [], other_changes: 0 });
    expect(plan.purchases.wallet.balance).toMatch(/^\d+\.\d{2}$/); // the balance the purchases reported
    expect(
      sandbox
        .requests()
        .slice(requests)
        .every((r) => r.method === "GET"),
    ).toBe(true);
    expect(await fingerprint(test.database.db)).toEqual(before);
  });

  it("topsync report --since 1d --format markdown --show-phone: what the run bought, phones shown", async () => {
    const { stdout, exitCode } = await cli([
      "report",
      "--since",
      "1d",
      "--format",
      "markdown",
      "--show-phone",
    ]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/^# topsync report since /);
    expect(stdout).toContain("- **spent:** NGN 915.00 on 3 succeeded purchases");
    expect(stdout).toContain("- **success rate:** 100.0% (3 of 3 settled)");
    expect(stdout).toMatch(
      /- \*\*verification latency:\*\* p50 \d+(\.\d)?m?s, p95 \d+(\.\d)?m?s \(3 purchases/,
    );
    expect(stdout).toContain("| team | 3 | 3 | 0 | NGN 915.00 | NGN 0.00 |");
    expect(stdout).toContain("| succeeded | 3 | NGN 915.00 |");
  });
});

describe("the demo", () => {
  it("prints the plan of the next day and the report of what was done, as text", async () => {
    const chunks: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      chunks.push(String(chunk));
      return true;
    });
    const ctx = context();
    try {
      await demoReports(ctx, test.database);
    } finally {
      vi.restoreAllMocks();
      await ctx.close();
    }
    const text = chunks.join("");
    expect(text).toMatch(
      /== plan: what topsync would buy and change in the next 24h \(a dry run\) ==\ntopsync plan: the next 24h\n/,
    );
    expect(text).toContain("would buy      1 purchase for NGN 168.00");
    expect(text).toMatch(/== report: what topsync did ==\ntopsync report since /);
    expect(text).toContain("spent                 NGN 915.00 on 3 succeeded purchases");
    expect(text).not.toContain("08031110002");
  });

  // After the closing reports' test, whose figures it would change.
  it("shows a purchase whose answer was lost go in_doubt, then succeeded by its notification and verify, bought once", async () => {
    const chunks: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      chunks.push(String(chunk));
      return true;
    });
    const hooks = { ...config.webhooks, enabled: true, secret: "demo-test-webhook-secret" };
    const ctx = contextFrom({ config: "config.yaml" }, { ...config, webhooks: hooks }, "config.yaml", logger);
    try {
      await demoLostAnswer(ctx, sandbox, test.database);
    } finally {
      vi.restoreAllMocks();
      await ctx.close();
    }
    const text = chunks.join("");
    expect(text).toContain(
      "== a lost answer: in_doubt, then settled by the provider's own notification ==\n",
    );
    const lost =
      /purchase (\d+) \(0803\*{4}999\): in_doubt\. The sandbox debited its wallet NGN 305\.00 \(reference (\w+)\)\nand then answered 500/.exec(
        text,
      );
    expect(lost, text).not.toBeNull();
    const [, id, reference] = lost!;
    expect(text).toContain(
      `notification: settled: purchase ${id} settled succeeded by verify of ${reference}\n`,
    );
    expect(text).toContain("bought once: 1 debit for 0803****999, and 0 purchase POSTs since the lost one\n");
    // `purchases show` of it: succeeded with the reference, the lost answer, and the event naming the proof.
    expect(text).toMatch(new RegExp(`\\nid +${id}\\nstate +succeeded\\n`));
    expect(text).toMatch(new RegExp(`\\nreference +${reference}\\n`));
    expect(text).toMatch(/ demo +submitting +in_doubt +HTTP_SERVER_ERROR: .*HTTP 500/);
    expect(text).toMatch(
      new RegExp(
        ` webhook\\+verify +in_doubt +succeeded +settled by proof: provider notification (\\d+) named reference ${reference}`,
      ),
    );
    expect(text).toMatch(
      new RegExp(`provider notifications:\\n.*OUTCOME.*\\n\\d+ .* ${reference} +settled `),
    );
    expect(text).not.toContain("08035559999");
    const [row] = await rows<{ state: string; reference: string | null }>(
      test.database.db,
      sql`select state, reference from purchases where id = ${Number(id)}`,
    );
    expect(row).toEqual({ state: "succeeded", reference });
    expect(sandbox.debits().filter((d) => d.phone_number === "08035559999")).toHaveLength(1);
  });
});
