// `npm run bench:notify`: notifications as the daemon delivers them, on PostgreSQL, to the sandbox's receivers over
// real HTTP (answering at once):
//   1. latency — from the commit of a ledger change (a purchase moved to in_doubt) to the Slack-compatible receiver
//      having the message, `topsync run` up with group_wait 0s;
//   2. grouping — 1,000 purchases going in_doubt in one run are one message (group_wait 10s);
//   3. throughput — 10,000 messages pending in the outbox (10,000 ungrouped events to a webhook without a pace),
//      delivered by one replica, then by two.
// Writes the "Notifications" section of bench/RESULTS.md (BENCH_NO_WRITE=1: print only).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { CLI, createDatabase, machine, ROOT, writeSection } from "./lib.js";

const { openDatabase, rows } = await import("../dist/db/client.js");
const { sql } = await import("drizzle-orm");
const { migrate } = await import("../dist/db/migrate.js");
const { startSandbox } = await import("../dist/sandbox/index.js");
const { insertPurchases, markInDoubt } = await import("../dist/purchases/ledger.js");
const { executePurchases } = await import("../dist/purchases/executor.js");
const { createResellerClient } = await import("../dist/clients.js");
const { parseConfig } = await import("../dist/config/index.js");
const { silentLogger } = await import("../dist/log/logger.js");

const LATENCY_ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 40);
const GROUPED = 1000;
const PENDING = 10_000;

const sandbox = await startSandbox({ seed: 3, verifyLag: "reads" });
const created = await createDatabase("topsync_bench_notify");
const database = await openDatabase({ url: created.url, maxConnections: 8 });
await migrate(database.db);
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function settings(notifications, port) {
  return {
    reseller: {
      base_url: sandbox.resellerUrl,
      api_key: sandbox.apiKey,
      concurrency: 16,
      rate_limit: 10_000,
      timeout: "5s",
    },
    analytics: { base_url: sandbox.analyticsUrl, api_key: sandbox.analyticsApiKey },
    database: { url: created.url },
    verification: { initial_delay: "50ms", timeout: "5s", max_interval: "200ms" },
    intake: { poll_interval: "1h" },
    server: { host: "127.0.0.1", port, shutdown_grace: "10s" },
    log: { level: "warn" },
    notifications,
  };
}

const channels = {
  slack: {
    type: "slack",
    url: `${sandbox.receivers.url}/slack/T0BENCH/B0BENCH/benchslackwebhooktoken`,
    pace: "0s",
  },
  hook: { type: "webhook", url: `${sandbox.receivers.url}/hooks/bench`, secret: "bench-hook-secret" },
};

async function daemon(notifications) {
  const port = 19_500 + Math.floor(Math.random() * 400);
  const dir = mkdtempSync(join(tmpdir(), "topsync-bench-notify-"));
  const file = join(dir, "config.yaml");
  writeFileSync(file, stringify(settings(notifications, port)));
  const child = spawn(process.execPath, [CLI, "-c", file, "run"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.add(child);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    async stop() {
      child.kill("SIGTERM");
      await exited;
      children.delete(child);
    },
  };
}

async function until(check, what, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// 1. Latency from the ledger change to the channel.
async function latency() {
  const replica = await daemon({ channels, rules: [{ on: ["in_doubt"], to: ["slack"] }], group_wait: "0s" });
  const phones = Array.from({ length: LATENCY_ROUNDS }, (_, i) => `0803${String(7_000_000 + i)}`);
  await insertPurchases(
    database.db,
    phones.map((phone) => ({
      request_key: `bench:${phone}`,
      source: "buy",
      network: "MTN",
      plan_id: "102",
      phone,
    })),
    "bench",
  );
  const ids = (
    await rows(database.db, sql`update purchases set state = 'submitting', amount = 305 returning id`)
  ).map((r) => Number(r.id));
  const measured = [];
  for (const id of ids) {
    const before = sandbox.receivers.received("slack").length;
    await markInDoubt(database, id, { actor: "bench", reason: "bench: the answer was lost" });
    const committed = Date.now();
    await until(() => sandbox.receivers.received("slack").length > before, "the in_doubt message");
    measured.push(sandbox.receivers.received("slack").at(-1).at - committed);
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 250));
  }
  await replica.stop();
  const sorted = [...measured].sort((a, b) => a - b);
  return { rounds: measured.length, p50: pct(sorted, 50), p95: pct(sorted, 95), max: sorted.at(-1) };
}

// 2. One run's 1,000 in_doubt purchases: one message.
async function grouping() {
  sandbox.receivers.reset();
  const replica = await daemon({
    channels,
    rules: [{ on: ["in_doubt"], to: ["slack", "hook"] }],
    group_wait: "10s",
  });
  sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
  const phones = Array.from({ length: GROUPED }, (_, i) => `0803${String(8_000_000 + i)}`);
  await insertPurchases(
    database.db,
    phones.map((phone) => ({
      request_key: `group:${phone}`,
      source: "buy",
      network: "MTN",
      plan_id: "102",
      phone,
    })),
    "bench",
  );
  const config = parseConfig(stringify(settings({}, 1)), "bench.yaml", {}).config;
  const reseller = createResellerClient(config.reseller, { logger: silentLogger() });
  const started = Date.now();
  const summary = await executePurchases({ database, reseller, config, logger: silentLogger() });
  const runMs = Date.now() - started;
  await reseller.close();
  const [inDoubt] = await rows(
    database.db,
    sql`select count(*)::int as n from purchases where state = 'in_doubt' and request_key like 'group:%'`,
  );
  sandbox.setFaults({ endpoints: {} });
  await until(async () => {
    const [left] = await rows(
      database.db,
      sql`select (select count(*) from notification_outbox where status = 'pending')
            + (select count(*) from notification_deliveries where status <> 'sent') as n`,
    );
    return sandbox.receivers.received("slack").length > 0 && Number(left.n) === 0;
  }, "the grouped message");
  await replica.stop();
  const slack = sandbox.receivers.received("slack");
  return {
    inDoubt: `${inDoubt.n} (${summary.inDoubt} by this run)`,
    runMs,
    slack: slack.length,
    hook: sandbox.receivers.received("webhook").length,
    headline: JSON.parse(slack[0].body).text,
  };
}

// 3. 10,000 messages pending: one replica, then two.
async function throughput(replicas) {
  sandbox.receivers.reset();
  await rows(database.db, sql`delete from notification_outbox; delete from notification_deliveries`);
  const payload = JSON.stringify(
    Array.from({ length: PENDING }, (_, i) => ({
      subject: `budget_day:bench-${replicas}-${i}`,
      facts: { day: `bench-${i}`, threshold: 50, limit: "1000.00", committed: "500.00", refused: false },
    })),
  );
  await rows(
    database.db,
    sql`insert into notification_outbox (trigger, subject, episode, kind, facts, created_at)
        select 'budget', subject, '50%', 'open', facts, now() from jsonb_to_recordset(${payload}::jsonb)
          as x(subject text, facts jsonb)`,
  );
  const started = Date.now();
  const running = [];
  for (let i = 0; i < replicas; i++)
    running.push(await daemon({ channels, rules: [{ on: ["budget"], to: ["hook"] }], group_wait: "0s" }));
  await until(() => sandbox.receivers.received("webhook").length >= PENDING, "every message", 900_000);
  const ms = Date.now() - started;
  for (const replica of running) await replica.stop();
  const received = sandbox.receivers.received("webhook");
  const distinct = new Set(received.map((r) => JSON.parse(r.body).events[0].subject)).size;
  return { replicas, ms, perSecond: Math.round((PENDING * 1000) / ms), received: received.length, distinct };
}

const load = loadavg()[0].toFixed(1);
const lat = await latency();
console.log("latency", lat);
const group = await grouping();
console.log("grouping", group);
const one = await throughput(1);
console.log("throughput", one);
const two = await throughput(2);
console.log("throughput", two);
await database.close();
await created.drop();
await sandbox.close();

const markdown = `
Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:notify\` on ${machine()}, 2 cores shared by the
daemon(s), this process (the sandbox and its receivers, the ledger writes) and PostgreSQL; load average ${load} at the
start. The receivers answer at once, over loopback HTTP.

**Targets:** a notification reaches its channel < 2 s after the ledger change (daemon up, channel at 0 ms):
${lat.max < 2000 ? "met" : "**not met**"} (the slowest of ${lat.rounds}); 1,000 in_doubt purchases in one run make one
grouped message: ${group.slack === 1 && group.hook === 1 ? "met" : "**not met**"}.

| from the ledger change's commit to the receiver | p50 | p95 | max |
|---|---:|---:|---:|
| \`in_doubt\`, \`group_wait: 0s\`, ${lat.rounds} changes one after another | ${lat.p50} ms | ${lat.p95} ms | ${lat.max} ms |

The daemon looks at the outbox every 250 ms, so a change waits half of that on average before it is routed; then
one claim, one POST and one update.

| 1,000 purchases queued at once | purchases in_doubt | this process's run took | messages on Slack | messages to the webhook |
|---|---:|---:|---:|---:|
| ${GROUPED} purchases, every answer lost (a 500 after the debit), \`group_wait: 10s\` | ${group.inDoubt} | ${group.runMs} ms | ${group.slack} | ${group.hook} |

A run in this process and the daemon's purchase worker bought them between them (the second figure is this
process's share); their in_doubt events, all within \`group_wait\`, are one message: "${group.headline}" (with the first 20 purchases listed and the rest counted).

| ${PENDING.toLocaleString("en")} messages pending (ungrouped events to one webhook, no pace) | time to deliver all | messages/s | received | distinct |
|---|---:|---:|---:|---:|
| 1 replica | ${one.ms} ms | ${one.perSecond} | ${one.received} | ${one.distinct} |
| 2 replicas | ${two.ms} ms | ${two.perSecond} | ${two.received} | ${two.distinct} |

From the daemons' start (routing included: ${PENDING.toLocaleString("en")} events become messages 500 to a
transaction). A claim takes up to 16 messages of a channel without a pace; each is one POST, and the claim's
deliveries are recorded in one update. A channel's messages go one after another in order, so a second replica adds
claims in parallel, not sends to one channel in parallel. "distinct" counts the events named: every message once,
none twice.
`;
if (process.env.BENCH_NO_WRITE) console.log(markdown);
else writeSection("Notifications", markdown);
process.exit(0);
