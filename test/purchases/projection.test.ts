// One projection, every command: for one ledger state and config, `purchases run --dry-run --json`,
// `buy --dry-run --json` and `plan --format json` name the same outcome and code for every candidate, and the
// real `purchases run` then claims exactly the `buy` ones and rejects the others with the same codes.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { purchaseRequests } from "../../src/db/schema.js";
import { prepareRun } from "../../src/purchases/run-once.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
let url: string;
let drop: () => Promise<void>;
let file: string;

/** Every resolution and guard code a run can give, plus the ledger's own outcomes. */
const JOBS = [
  {
    name: "team",
    plan: { network: "MTN", plan_id: "102" }, // 305.00
    recipients: [
      "08031110001", // buy
      "08031110002", // buy: 610.00 of the 700.00 daily limit
      "08031110003", // daily_budget
      "08051110004", // wrong_network (a GLO prefix)
      "0803111", // invalid_phone
      { phone: "08051110005", ported: true }, // ported: its prefix is not checked, but the budget is spent
    ],
  },
  {
    name: "pricey",
    plan: { network: "MTN", plan_id: "103" },
    max_price: "500.00",
    recipients: ["08031110006"],
  },
  { name: "missing", plan: { network: "MTN", plan_id: "999" }, recipients: ["08031110007"] },
  { name: "nowhere", plan: { network: "VODAFONE", plan_id: "101" }, recipients: ["08031110008"] },
];

interface Item {
  request_key: string;
  phone: string;
  outcome: string;
  code: string | null;
}

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 5 });
  const created = await createPostgresDatabase();
  url = created.url;
  drop = created.drop;
  const settings = { budget: { daily_limit: "700.00" }, purchases: JOBS };
  ({ file } = writeConfigFile(sandbox, url, settings));
  // The ledger state: each job's fire queued (as a daemon replica would have written it), one intake request.
  const database = await openDatabase({ url, maxConnections: 2 });
  try {
    await migrate(database.db);
    const config = testConfig(sandbox, settings);
    const fireTime = new Date(Date.now() - 60_000);
    await prepareRun(database, config, {
      now: new Date(),
      actor: "test",
      configDir: ".",
      fires: config.purchases.map((job) => ({ job, fireTime })),
      intake: false,
    });
    await database.db
      .insert(purchaseRequests)
      .values({ request_key: "crm-1", network: "MTN", plan_id: "101", phone: "08031110009" });
  } finally {
    await database.close();
  }
});
afterAll(async () => {
  await sandbox.close();
  await drop();
});

const byPhone = (items: Item[]) =>
  Object.fromEntries(items.map((i) => [i.phone, { outcome: i.outcome, code: i.code }]));

async function json<T>(args: string[]): Promise<T> {
  const result = await runCli(["-c", file, ...args]);
  expect(result.stderr).not.toMatch(/unexpected failure/);
  return JSON.parse(result.stdout) as T;
}

describe("the purchase projection", () => {
  it("is the same answer in the dry run, buy --dry-run, plan and the real run", {
    timeout: 60_000,
  }, async () => {
    const dryRun = await json<{ items: Item[] }>(["--json", "purchases", "run", "--dry-run", "--show-phone"]);
    const plan = await json<{ purchases: { items: Item[] } }>(["plan", "--format", "json", "--show-phone"]);
    const expected = {
      "08031110001": { outcome: "buy", code: null },
      "08031110002": { outcome: "buy", code: null },
      "08031110003": { outcome: "reject", code: "daily_budget" },
      "08051110004": { outcome: "reject", code: "wrong_network" },
      "0803111": { outcome: "reject", code: "invalid_phone" },
      "08051110005": { outcome: "reject", code: "daily_budget" },
      "08031110006": { outcome: "reject", code: "price_above_max" },
      "08031110007": { outcome: "reject", code: "plan_not_found" },
      "08031110008": { outcome: "reject", code: "unknown_network" },
      "08031110009": { outcome: "reject", code: "daily_budget" },
    };
    expect(byPhone(dryRun.items)).toEqual(expected);
    expect(byPhone(plan.purchases.items)).toEqual(expected);
    expect(sandbox.debits()).toHaveLength(0);

    // `buy --dry-run` decides one purchase alone: every refusal that does not depend on others in the batch agrees.
    for (const job of JOBS) {
      const first = job.recipients[0]!;
      const phone = typeof first === "string" ? first : first.phone;
      const plan = job.plan as { network: string; plan_id: string };
      const max = "max_price" in job ? ["--max-price", job.max_price as string] : [];
      const result = await runCli([
        "-c",
        file,
        "--json",
        "buy",
        "--network",
        plan.network,
        "--plan",
        plan.plan_id,
        "--phone",
        phone,
        "--dry-run",
        ...max,
      ]);
      if (plan.network === "VODAFONE") {
        expect(result.code).toBe(64); // an unknown network named on the command line is a usage error
        continue;
      }
      const item = JSON.parse(result.stdout) as Item;
      expect([item.outcome, item.code], `${job.name}`).toEqual([
        expected[phone as keyof typeof expected].outcome,
        expected[phone as keyof typeof expected].code,
      ]);
    }

    const run = await runCli(["-c", file, "purchases", "run"]);
    expect(run.code).toBe(0);
    const database = await openDatabase({ url, maxConnections: 1 });
    try {
      const found = await rows<{ phone: string; state: string; reason: string | null }>(
        database.db,
        sql`select phone, state, reason from purchases`,
      );
      const settled = Object.fromEntries(
        found.map((r) => [
          r.phone,
          r.state === "rejected"
            ? { outcome: "reject", code: r.reason!.split(":")[0] }
            : { outcome: r.state === "succeeded" ? "buy" : r.state, code: null },
        ]),
      );
      expect(settled).toEqual(expected);
      expect(sandbox.debits()).toHaveLength(2);
    } finally {
      await database.close();
    }
  });

  it("lists a plan whose price cannot be read as unusable, and refuses it in every command alike", async () => {
    sandbox.setOptions({ lies: { prices: { "103": "₦500" } } });
    try {
      const plan = await json<{ purchases: { unusable_plans: unknown[] } }>(["plan", "--format", "json"]);
      expect(plan.purchases.unusable_plans).toEqual([
        { network: "MTN", plan_id: "103", reason: expect.stringContaining("price") },
      ]);
      const args = [
        "--json",
        "buy",
        "--network",
        "MTN",
        "--plan",
        "103",
        "--phone",
        "08031110010",
        "--dry-run",
      ];
      const item = await json<Item>(args);
      expect([item.outcome, item.code]).toEqual(["reject", "plan_unusable"]);
      // The network's other plans stay usable: plan 101 resolves, and only the day's budget (610.00 of 700.00
      // spent above) refuses it.
      const other = await json<Item>([
        "--json",
        "buy",
        "--network",
        "MTN",
        "--plan",
        "101",
        "--phone",
        "08031110010",
        "--dry-run",
      ]);
      expect([other.outcome, other.code]).toEqual(["reject", "daily_budget"]);
    } finally {
      sandbox.setOptions({ lies: {} });
    }
  });
});
