// `topsync plan`: what would be bought and changed in a window — costs, rejections, budgets, wallet, prices
// and the website plan — with zero mutating calls and zero ledger writes; an unknown part fails the command.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type PlanFlags, planCommand } from "../../src/cli/report-commands.js";
import type { Config } from "../../src/config/index.js";
import { createLogger } from "../../src/log/logger.js";
import { loadCatalogue } from "../../src/purchases/catalogue-cache.js";
import { insertPurchases } from "../../src/purchases/ledger.js";
import { readPlanPrices, recordPlanPrices } from "../../src/purchases/prices.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import {
  type AnalyticsProxy,
  applyWebsites,
  changeRemotely,
  failingLookups,
  idOf,
  shiftedListing,
} from "../websites/helpers.js";
import { captureIo, failureOf, fingerprint, withContext } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), "topsync-plan-"));

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 5 });
  test = await openTestDatabase("postgres");
});
afterAll(async () => {
  await sandbox.close();
  await test.drop();
});
beforeEach(async () => {
  sandbox.reset();
  await test.database.db.execute(
    sql`truncate purchases, purchase_events, purchase_requests, budget_days, kv, jobs, website_ownership, website_runs
        restart identity cascade`,
  );
});

const mutating = () => sandbox.requests().filter((r) => r.method !== "GET").length;

/** Two daily jobs (one fire each in any 24h window), an on-demand and a disabled job, one declared website. */
function jobsConfig(extra: Record<string, unknown> = {}): Config {
  return testConfig(sandbox, {
    purchases: [
      {
        name: "staff",
        schedule: "0 8 * * *",
        plan: { network: "MTN", size: "1GB", type: "CORPORATE GIFTING" },
        recipients: ["08031110001", "+2348031110002", "08031110001", "08051110003", "0803111"],
      },
      {
        name: "promo",
        schedule: "30 9 * * *",
        plan: { network: "MTN", plan_id: "102" },
        max_price: "300.00",
        recipients: ["08031110004"],
      },
      { name: "adhoc", plan: { network: "GLO", plan_id: "203" }, recipients: ["08051110005"] },
      {
        name: "paused",
        schedule: "* * * * *",
        enabled: false,
        plan: { network: "MTN", plan_id: "101" },
        recipients: ["08031110006"],
      },
    ],
    websites: { items: [{ domain: "plan.example.com", privacy: "public" }] },
    ...extra,
  });
}

/** A queued purchase in the ledger (plan 103, 580.00) and an intake request (plan 101, 168.00), both due now. */
async function seedDueNow(): Promise<void> {
  await insertPurchases(
    test.database.db,
    [
      {
        request_key: "buy:queued-1",
        source: "buy",
        network: "MTN",
        plan_id: "103",
        phone: "08031110010",
        not_before: new Date(Date.now() - 60_000),
      },
    ],
    "test",
  );
  await test.database.db.execute(
    sql`insert into purchase_requests (request_key, network, plan_id, phone) values ('crm-1', 'MTN', '101', '08031110009')`,
  );
}

async function plan(config: Config, flags: PlanFlags = {}) {
  const io = captureIo();
  const code = await withContext(config, (ctx) => planCommand(ctx, flags, { io, database: test.database }));
  return { code, io, json: flags.format === "json" ? JSON.parse(io.stdout()) : undefined };
}

describe("topsync plan", () => {
  it("plans fires, intake and queued purchases with costs and rejections, and changes nothing anywhere", async () => {
    await seedDueNow();
    const before = await fingerprint(test.database.db);
    const { code, json } = await plan(jobsConfig(), { format: "json", detailedExitcode: true });

    expect(code).toBe(2); // purchases and a website change are pending
    expect(mutating()).toBe(0);
    expect(await fingerprint(test.database.db)).toEqual(before);

    expect(json.format_version).toBe("1");
    expect(json.complete).toBe(true);
    expect(json.currency).toBe("NGN");
    const p = json.purchases;
    // staff: 2 bought at 305.00; queued 580.00; intake 168.00. promo refused (305.00 > 300.00).
    expect(p.totals).toEqual({
      to_buy: 4,
      cost: "1358.00",
      rejected: 3,
      existing: 0,
      duplicates: 1,
      unknown: 0,
    });
    expect(p.by_network).toEqual([{ network: "MTN", count: 4, cost: "1358.00" }]);
    expect(p.runs.map((r: { kind: string }) => r.kind)).toEqual(["queued", "intake", "fire", "fire"]);
    const staff = p.runs.find((r: { job: string }) => r.job === "staff");
    expect(staff).toMatchObject({ candidates: 5, to_buy: 2, rejected: 2, duplicates: 1, cost: "610.00" });
    const codes = p.items
      .filter((i: { outcome: string }) => i.outcome !== "buy")
      .map((i: { phone: string; code: string }) => `${i.phone} ${i.code}`)
      .sort();
    expect(codes).toEqual(
      [
        "0803****001 duplicate",
        "0803****004 price_above_max",
        "0805****003 wrong_network",
        "******* invalid_phone", // "0803111" is no phone number; masked all the same
      ].sort(),
    );
    expect(JSON.stringify(p.items)).not.toContain("08031110002");

    const jobs = Object.fromEntries(p.jobs.map((j: { job: string }) => [j.job, j]));
    expect(jobs.staff).toMatchObject({ plan_id: "102", price: "305.00", status: "ok", network: "MTN" });
    expect(jobs.staff.fires).toHaveLength(1);
    expect(new Date(jobs.staff.next_fire).getTime()).toBeGreaterThan(Date.parse(json.window.to));
    expect(jobs.promo).toMatchObject({ status: "price_above_max", price: "305.00", max_price: "300.00" });
    expect(jobs.adhoc).toMatchObject({ fires: [], next_fire: null, plan_id: "203", price: "465.00" });
    expect(jobs.paused).toMatchObject({ enabled: false, fires: [] });
    expect(p.above_max).toEqual([
      { job: "promo", source: "job", reason: "plan 102 costs 305.00, above max_price 300.00", count: 1 },
    ]);
    expect(p.wallet).toMatchObject({ balance: null, projected_spend: "1358.00" });
    expect(json.websites.summary).toMatchObject({ create: 1, update: 0, delete: 0 });
    expect(json.websites.changes[0]).toMatchObject({ action: "create", domain: "plan.example.com" });
    expect(json.pending).toBe(true);
  });

  it("prints aligned text with masked phones and the website plan; --show-phone shows them", async () => {
    await seedDueNow();
    const { code, io } = await plan(jobsConfig());
    expect(code).toBe(0);
    const text = io.stdout();
    expect(text).toMatch(/^topsync plan: the next 24h\n=+\n/);
    expect(text).toContain("would buy      4 purchases for NGN 1,358.00");
    expect(text).toMatch(/MTN\s+4\s+NGN 1,358\.00/);
    expect(text).toMatch(/0805\*\*\*\*003\s+job staff fire .+wrong_network/);
    expect(text).toMatch(/queued in the ledger\s+1\s+1\s+0\s+0\s+0\s+NGN 580\.00/);
    expect(text).toContain("create  plan.example.com");
    expect(text).toContain("Plan: 1 to create, 0 to update, 0 to delete, 0 unchanged.");
    expect(text).not.toContain("08051110003");
    const shown = await plan(jobsConfig(), { showPhone: true });
    expect(shown.io.stdout()).toMatch(/08051110003\s+job staff fire/);
  });

  it("names the run at which the daily budget runs out, with the headroom left", async () => {
    await seedDueNow();
    const { json } = await plan(testConfig(sandbox, { budget: { daily_limit: "700.00" } }), {
      format: "json",
    });
    const p = json.purchases;
    expect(p.totals).toMatchObject({ to_buy: 1, cost: "580.00", rejected: 1 });
    const today = p.by_day[0];
    expect(today).toMatchObject({
      committed: "0.00",
      projected: "580.00",
      daily_limit: "700.00",
      headroom: "120.00",
    });
    expect(p.runs[today.runs_out_at]).toMatchObject({ kind: "intake", refused_by: ["daily_budget"] });
    expect(p.items.find((i: { code: string }) => i.code === "daily_budget").reason).toBe(
      "daily budget: 580.00 committed today + 168.00 > daily_limit 700.00",
    );
  });

  it("projects the wallet against min_wallet_balance and names the run the floor stops", async () => {
    await seedDueNow();
    const asOf = new Date().toISOString();
    await test.database.db.execute(
      sql`insert into kv (key, value) values ('wallet', ${JSON.stringify({ balance: "900.00", as_of: asOf })}::jsonb)`,
    );
    const config = testConfig(sandbox, { budget: { min_wallet_balance: "300.00" } });
    const { json, io } = await plan(config, { format: "json" });
    const wallet = json.purchases.wallet;
    expect(wallet).toMatchObject({
      balance: "900.00",
      in_flight: "0.00",
      projected_spend: "580.00",
      projected_balance: "320.00",
      min_wallet_balance: "300.00",
      headroom: "20.00",
    });
    expect(json.purchases.runs[wallet.runs_out_at]).toMatchObject({
      kind: "intake",
      refused_by: ["wallet_floor"],
    });
    expect(io.stdout()).not.toContain("INCOMPLETE");
    const text = (await plan(config)).io.stdout();
    expect(text).toMatch(/projected balance\s+NGN 320\.00/);
    expect(text).toContain(
      "The wallet floor (min_wallet_balance NGN 300.00) stops purchases at intake requests.",
    );
  });

  it("shows the prices that changed since the last recorded run", async () => {
    const logger = createLogger({ level: "silent" });
    const reseller = resellerFor(sandbox);
    try {
      await recordPlanPrices(test.database.db, await loadCatalogue(reseller, logger));
    } finally {
      await reseller.close();
    }
    const recorded = await readPlanPrices(test.database.db);
    expect(Object.keys(recorded!.plans)).toHaveLength(40);
    expect(recorded!.plans["1:102"]).toEqual({ network: "MTN", name: "1GB for 30 Days", price: "305.00" });
    // As if the last run had bought plan 102 at 290.00 and plan 401 at 100.00.
    recorded!.plans["1:102"]!.price = "290.00";
    recorded!.plans["4:401"]!.price = "100.00";
    await test.database.db.execute(
      sql`update kv set value = ${JSON.stringify(recorded)}::jsonb where key = 'plan_prices'`,
    );
    const { json, io } = await plan(jobsConfig(), { format: "json" });
    expect(json.purchases.prices.changes).toEqual([
      { network: "MTN", plan_id: "102", name: "1GB for 30 Days", from: "290.00", to: "305.00" },
    ]);
    expect(json.purchases.prices.other_changes).toBe(1);
    expect(io.stdout()).not.toContain("INCOMPLETE");
    const text = (await plan(jobsConfig())).io.stdout();
    expect(text).toMatch(/MTN\s+102 1GB for 30 Days\s+NGN 290\.00\s+NGN 305\.00\s+\+NGN 15\.00/);
    expect(text).toContain("1 other plan changed price.");
  });

  it("says there is nothing to do and exits 0 with --detailed-exitcode", async () => {
    const { code, io } = await plan(testConfig(sandbox), { detailedExitcode: true });
    expect(code).toBe(0);
    expect(io.stdout()).toContain(
      "Nothing to do in this window: no purchase would be bought and no website changed.",
    );
    expect(io.stdout()).toContain("Nothing is due in this window");
  });

  it("writes --out whole and leaves nothing else beside it", async () => {
    await seedDueNow();
    const out = join(mkdtempSync(join(dir, "out-")), "plan.md");
    writeFileSync(out, "an older plan");
    const { code, io } = await plan(jobsConfig(), { format: "markdown", out });
    expect(code).toBe(0);
    expect(io.stdout()).toBe("");
    expect(io.stderr()).toBe(`the plan written to ${out}\n`);
    const markdown = readFileSync(out, "utf8");
    expect(markdown).toMatch(/^# topsync plan: the next 24h\n/);
    expect(markdown).toContain("| MTN | 4 | NGN 1,358.00 |");
    expect(readdirSync(join(out, ".."))).toEqual(["plan.md"]);
  });
});

describe("what the plan cannot plan one by one", () => {
  it("a job firing more than 500 times in the window makes the plan incomplete, naming the job", async () => {
    const config = testConfig(sandbox, {
      purchases: [
        {
          name: "minutely",
          schedule: "* * * * *",
          plan: { network: "MTN", plan_id: "101" },
          recipients: ["08031110001"],
        },
      ],
    });
    const io = captureIo();
    const failure = await failureOf(
      withContext(config, (ctx) => planCommand(ctx, { format: "json" }, { io, database: test.database })),
    );
    expect(failure.code).toBe(1);
    const json = JSON.parse(io.stdout());
    expect(json.unknown).toEqual([
      {
        part: expect.stringMatching(/^job minutely after \d{4}-\d{2}-\d{2}T/),
        reason: "it fires more than 500 times in the window; plan a shorter --window",
      },
    ]);
    expect(json.purchases.jobs[0].fires).toHaveLength(500);
    expect(json.purchases.totals).toMatchObject({ to_buy: 500, cost: "84000.00" });
  });

  it("says a one-off at time earlier than the job was first seen will not fire, and why", async () => {
    const at = new Date(Date.now() - 3_600_000);
    const config = testConfig(sandbox, {
      purchases: [
        {
          name: "late",
          at: at.toISOString(),
          plan: { network: "MTN", plan_id: "101" },
          recipients: ["08031110001"],
        },
        {
          name: "soon",
          at: new Date(Date.now() + 3_600_000).toISOString(),
          plan: { network: "MTN", plan_id: "101" },
          recipients: ["08031110002"],
        },
      ],
    });
    const { json } = await plan(config, { format: "json" });
    const [late, soon] = json.purchases.jobs;
    expect(late.will_not_fire).toMatch(
      new RegExp(
        `^its at time ${at.toISOString()} is earlier than \\d{4}-.+Z, when topsync first saw the job: a one-off time that passed before the job existed never fires`,
      ),
    );
    expect(late.fires).toEqual([]);
    expect(soon.will_not_fire).toBeNull();
    expect(soon.fires).toHaveLength(1);
    const { io } = await plan(config, { format: "text" });
    expect(io.stdout()).toContain("(will not fire: its at time");
  });

  it("a recipients file that cannot be used shows on its fire, which would queue nothing", async () => {
    const file = join(dir, "bad.csv");
    writeFileSync(file, "phone\n08031110001\nnot-a-phone\n");
    const config = testConfig(sandbox, {
      purchases: [
        {
          name: "bulk",
          schedule: "0 8 * * *",
          plan: { network: "MTN", plan_id: "101" },
          recipients_file: file,
        },
      ],
    });
    const { json } = await plan(config, { format: "json" });
    expect(json.complete).toBe(true);
    expect(json.purchases.runs).toEqual([
      expect.objectContaining({
        job: "bulk",
        candidates: 0,
        to_buy: 0,
        error: expect.stringMatching(
          /^the recipients file cannot be used, so this fire would queue nothing: [\s\S]*line 3: "not-a-phone" is an invalid phone number/,
        ),
      }),
    ]);
  });
});

describe("a service down while planning", () => {
  it("reseller down: the report names the unknown part, is marked incomplete, and the command exits 1", async () => {
    await seedDueNow();
    sandbox.setFaults({ endpoints: { networks: { rate500Before: 1 } } });
    const before = await fingerprint(test.database.db);
    const io = captureIo();
    const failure = await failureOf(
      withContext(jobsConfig(), (ctx) =>
        planCommand(ctx, { format: "json" }, { io, database: test.database }),
      ),
    );
    expect(failure.code).toBe(1);
    expect(failure.text).toContain(
      "the plan is incomplete, marked so above: unknown purchases (the reseller's networks could not be read",
    );
    const json = JSON.parse(io.stdout());
    expect(json.complete).toBe(false);
    expect(json.unknown.map((u: { part: string }) => u.part)).toEqual(["purchases"]);
    expect(json.purchases.totals).toMatchObject({ to_buy: 0, cost: "0.00", duplicates: 1, unknown: 7 });
    expect(json.websites.summary.create).toBe(1); // the part that could be read is still shown
    const text = captureIo();
    await failureOf(
      withContext(jobsConfig(), (ctx) => planCommand(ctx, {}, { io: text, database: test.database })),
    );
    expect(text.stdout()).toContain("would buy      unknown: the reseller could not be read");
    expect(mutating()).toBe(0);
    expect(await fingerprint(test.database.db)).toEqual(before);
  });

  it("plans of one network unreadable: those purchases are unknown, never shown as rejected", async () => {
    sandbox.setFaults({ endpoints: { plans: { rate500Before: 1 } } });
    const io = captureIo();
    const failure = await failureOf(
      withContext(jobsConfig(), (ctx) => planCommand(ctx, {}, { io, database: test.database })),
    );
    expect(failure.code).toBe(1);
    const text = io.stdout();
    expect(text).toContain("INCOMPLETE: this plan is incomplete: purchases on MTN could not be known");
    expect(text).toMatch(/purchases on MTN\s+the reseller's plans of MTN could not be read/);
    expect(text).not.toContain("NGN 1,358.00");
    expect(text).toContain("would buy      0 purchases for NGN 0.00, and 4 unknown");
  });

  it("analytics down: the website part is unknown and the command exits 1 even with --detailed-exitcode", async () => {
    sandbox.setFaults({ endpoints: { "websites.list": { rate500Before: 1 } } });
    const io = captureIo();
    const failure = await failureOf(
      withContext(jobsConfig(), (ctx) =>
        planCommand(ctx, { format: "html", detailedExitcode: true }, { io, database: test.database }),
      ),
    );
    expect(failure.code).toBe(1);
    expect(failure.text).toContain("unknown websites (the analytics service's websites could not be listed");
    expect(io.stdout()).toContain(
      '<p id="status" class="status tone-error">INCOMPLETE: this plan is incomplete: websites',
    );
    expect(io.stdout()).toContain("Unknown: the analytics service&#39;s websites could not be listed");
  });
});

describe("an owned website the listing does not show", () => {
  const websites = { items: [{ domain: "owned.example.com" }, { domain: "kept.example.com" }] };

  /** The plan's config, its analytics service reached through `proxy`. */
  function through(proxy: AnalyticsProxy): Config {
    const config = testConfig(sandbox, { websites });
    return { ...config, analytics: { ...config.analytics, base_url: proxy.analyticsUrl } };
  }

  const lookedUp = (id: number) =>
    sandbox.requests().some((r) => r.method === "GET" && r.path === `/api/v1/websites/${id}`);

  it("is looked up by id: one the service still holds is not a create, and the plan says the listing hid it", async () => {
    const { proxy, owned, changed } = await shiftedListing(sandbox, test.database.db);
    const before = await fingerprint(test.database.db);
    const earlier = sandbox.requests().length;
    const io = captureIo();
    const failure = await failureOf(
      withContext(through(proxy), (ctx) =>
        planCommand(ctx, { format: "json", detailedExitcode: true }, { io, database: test.database }),
      ),
    ).finally(() => proxy.close());
    expect(changed()).toBe(true);
    expect(lookedUp(owned)).toBe(true);
    const hid = `the listing did not show owned.example.com (id ${owned}), which the service still holds when asked by id: the list changed while it was read`;
    expect(failure.code).toBe(1);
    expect(failure.text).toContain(`the plan is incomplete, marked so above: unknown websites (${hid})`);
    const json = JSON.parse(io.stdout());
    expect(json.complete).toBe(false);
    expect(json.unknown).toEqual([{ part: "websites", reason: hid }]);
    expect(json.websites).toMatchObject({ complete: false, incomplete_reason: hid });
    expect(json.websites.summary).toMatchObject({ create: 0, delete: 0, unchanged: 1, withheld: 1 });
    expect(json.websites.changes).toContainEqual(
      expect.objectContaining({ action: "withheld", domain: "owned.example.com", instead: "create" }),
    );
    // Only GETs from topsync (the one DELETE is the person's), and nothing written to the ledger.
    expect(
      sandbox
        .requests()
        .slice(earlier)
        .filter((r) => r.method !== "GET"),
    ).toEqual([expect.objectContaining({ method: "DELETE" })]);
    expect(await fingerprint(test.database.db)).toEqual(before);
  });

  it("the text says the listing hid it, in the Unknown part and beside the websites", async () => {
    const { proxy, owned } = await shiftedListing(sandbox, test.database.db);
    const io = captureIo();
    await failureOf(
      withContext(through(proxy), (ctx) => planCommand(ctx, {}, { io, database: test.database })),
    ).finally(() => proxy.close());
    const text = io.stdout();
    const hid = `the listing did not show owned.example.com (id ${owned}), which the service still holds when asked by id`;
    expect(text).toContain("INCOMPLETE: this plan is incomplete: websites could not be known");
    expect(text).toMatch(new RegExp(`websites\\s+${hid.replace(/[()]/g, "\\$&")}`));
    expect(text).toContain(`INCOMPLETE: the remote listing was incomplete (${hid}`);
    expect(text).toMatch(
      /withheld\s+owned\.example\.com\s+-\s+not created: the remote listing was incomplete/,
    );
    expect(text).not.toMatch(/create\s+owned\.example\.com/);
    expect(text).toContain("websites       0 to create, 0 to update, 0 to delete, 1 unchanged, 1 withheld");
  });

  it("one whose look-up fails is not created again yet, as a saved plan would have it", async () => {
    await applyWebsites(sandbox, test.database.db, ["owned.example.com", "kept.example.com"]);
    const owned = idOf(sandbox, "owned.example.com");
    await changeRemotely(sandbox, "DELETE", owned);
    const proxy = await failingLookups(sandbox);
    const io = captureIo();
    const code = await withContext(through(proxy), (ctx) =>
      planCommand(ctx, { format: "json" }, { io, database: test.database }),
    ).finally(() => proxy.close());
    expect(code).toBe(0);
    const json = JSON.parse(io.stdout());
    expect(json.complete).toBe(true);
    expect(json.websites.summary).toMatchObject({ create: 0, unchanged: 1, withheld: 1 });
    expect(json.websites.changes).toEqual([
      {
        action: "withheld",
        domain: "owned.example.com",
        instead: "create",
        reason:
          "not created again yet: topsync's website with this domain is missing from the listing, and looking it up by id did not confirm it is gone",
      },
    ]);
  });
});

describe("bad input is refused before anything is read", () => {
  const cases: Array<[string, PlanFlags, RegExp]> = [
    ["a window that is not a duration", { window: "soon" }, /--window must be a duration like 24h/],
    ["a zero window", { window: "0s" }, /--window must be more than 0 and at most 92d; got "0s"/],
    ["an unknown format", { format: "pdf" }, /--format must be one of text, markdown, json, html; got "pdf"/],
    [
      "--out in a missing directory",
      { out: join(dir, "missing", "plan.html") },
      /--out .+ cannot be written: the directory .+missing does not exist/,
    ],
    ["--out naming a directory", { out: dir }, /--out .+ cannot be written: it is a directory/],
  ];
  it.each(cases)(
    "%s: exit 64 naming the flag, no request sent, no file written",
    async (_name, flags, message) => {
      const io = captureIo();
      const failure = await failureOf(
        withContext(jobsConfig(), (ctx) => planCommand(ctx, flags, { io, database: test.database })),
      );
      expect(failure.code).toBe(64);
      expect(failure.text).toMatch(message);
      expect(sandbox.requests()).toHaveLength(0);
      expect(io.stdout()).toBe("");
      expect(existsSync(join(dir, "missing"))).toBe(false);
    },
  );
});
