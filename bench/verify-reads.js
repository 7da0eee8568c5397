// `npm run bench:verify-reads`: the daemon under the provider's rate limit, as an operator runs it. `topsync run`
// with the example config's reseller settings (rate_limit 20 requests a second, concurrency 8) against the
// sandbox's default verify lag, in a process of its own; a CRM inserts N rows into `purchase_requests` at once.
// Measured from the first purchase POST to the last purchase settled: purchases a second against the bound
// `rate_limit ÷ requests per purchase`, and verify reads per purchase (counted by the sandbox); then the same with
// webhooks on (the sandbox posts its signed notifications to the daemon's receiver).
//
//   node bench/verify-reads.js [--rows 3000] [--only plain|webhooks] [--no-write]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { CLI, createDatabase, startSandboxProcess, writeSection } from "./lib.js";

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at === -1 ? fallback : argv[at + 1];
};
const ROWS = Number(flag("rows", "3000"));
const ONLY = flag("only", "");
const WRITE = !argv.includes("--no-write");
const RATE_LIMIT = 20;
const SECRET = "sandbox-webhook-secret";
/** Purchases not settled this long after the last one did: the bench stops and says so. */
const STALL_MS = 120_000;

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(check, what, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`topsync ${args[0]}: ${code} ${err}`)),
    );
  });
}

async function measure(webhooks) {
  const base = 14_000 + Math.floor(Math.random() * 2000) * 3;
  const daemonPort = base + 2;
  const sandbox = await startSandboxProcess({
    resellerPort: base,
    analyticsPort: base + 1,
    verifyLag: "time",
    extra: [
      "--receiver-port",
      "0",
      ...(webhooks ? ["--notify-url", `http://127.0.0.1:${daemonPort}/webhooks/reseller`] : []),
    ],
  });
  const database = await createDatabase("topsync_bench_reads");
  const dir = mkdtempSync(path.join(os.tmpdir(), "topsync-bench-reads-"));
  const config = path.join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      "reseller:",
      `  base_url: ${sandbox.resellerUrl}`,
      "  api_key: sandbox-reseller-key",
      "  concurrency: 8",
      `  rate_limit: ${RATE_LIMIT}`,
      "analytics:",
      `  base_url: ${sandbox.analyticsUrl}`,
      "  api_key: sandbox-analytics-key",
      "database:",
      `  url: ${database.url}`,
      "verification: { initial_delay: 2s, timeout: 10m, max_interval: 30s, horizon: 72h }",
      "intake: { enabled: true, poll_interval: 30s, batch_size: 500 }",
      "server:",
      "  host: 127.0.0.1",
      `  port: ${daemonPort}`,
      "log: { level: warn }",
      ...(webhooks ? ["webhooks:", "  enabled: true", `  secret: ${SECRET}`] : []),
      "",
    ].join("\n"),
  );
  const env = { ...process.env, NO_COLOR: "1" };
  await runCli(["migrate", "-c", config], env);
  const daemon = spawn(process.execPath, [CLI, "run", "-c", config], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let daemonErr = "";
  daemon.stderr.on("data", (chunk) => {
    daemonErr = (daemonErr + chunk).slice(-4000);
  });
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  try {
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${daemonPort}/readyz`)).ok,
      "the daemon to be ready",
    );
    // The CRM: one statement of N rows, as a bulk insert from another system would be.
    const requests = Array.from({ length: ROWS }, (_, i) => ({
      request_key: `crm-${i}`,
      network: "MTN",
      plan_id: "102",
      phone: `0803${String(1_000_000 + i).padStart(7, "0")}`,
    }));
    for (let i = 0; i < requests.length; i += 1000)
      await sql`insert into purchase_requests ${sql(requests.slice(i, i + 1000))}`;
    const insertedAt = Date.now();
    let settled = 0;
    let lastChange = Date.now();
    for (;;) {
      const [row] = await sql`select count(*)::int as n from purchases
                              where state in ('succeeded', 'failed', 'unverified', 'rejected', 'in_doubt')`;
      if (row.n !== settled) {
        settled = row.n;
        lastChange = Date.now();
      }
      if (settled >= ROWS) break;
      if (Date.now() - lastChange > STALL_MS) throw new Error(`stalled at ${settled} of ${ROWS} settled`);
      await sleep(200);
    }
    const states = await sql`select state, count(*)::int as n from purchases group by state order by state`;
    const [span] = await sql`select extract(epoch from max(settled_at) - min(submitted_at)) * 1000 as ms,
                             extract(epoch from min(submitted_at)) * 1000 as first from purchases`;
    const { requests: log } = await sandbox.admin("requests");
    const reseller = log.filter((r) => r.service === "reseller");
    const posts = reseller.filter((r) => r.method === "POST" && r.path.startsWith("/public/api/data")).length;
    const reads = reseller.filter((r) => r.path.startsWith("/public/api/transaction/")).length;
    const other = reseller.length - posts - reads;
    const metrics = await (await fetch(`http://127.0.0.1:${daemonPort}/metrics`)).text();
    const sum = Number(/^topsync_verify_reads_per_purchase_sum (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
    const count = Number(/^topsync_verify_reads_per_purchase_count (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
    const seconds = Number(span.ms) / 1000;
    const perPurchase = (posts + reads) / ROWS;
    return {
      webhooks,
      rows: ROWS,
      seconds,
      rate: ROWS / seconds,
      bound: RATE_LIMIT / perPurchase,
      readsPerPurchase: reads / ROWS,
      metricReads: count > 0 ? sum / count : undefined,
      posts,
      reads,
      other,
      startDelay: (Number(span.first) - insertedAt) / 1000,
      states: Object.fromEntries(states.map((s) => [s.state, s.n])),
    };
  } catch (error) {
    console.error(daemonErr);
    throw error;
  } finally {
    await sql.end();
    daemon.kill("SIGTERM");
    await new Promise((resolve) => daemon.once("exit", resolve));
    await sandbox.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function line(r) {
  const metric = r.metricReads === undefined ? "" : ` (metric: ${r.metricReads.toFixed(2)})`;
  return (
    `| ${r.webhooks ? "webhooks on" : "no webhooks"} | ${r.rows} | ${r.seconds.toFixed(1)} s | **${r.rate.toFixed(2)}** | ` +
    `${r.bound.toFixed(2)} | **${r.readsPerPurchase.toFixed(2)}**${metric} | ${r.posts} + ${r.reads} + ${r.other} | ` +
    `${Object.entries(r.states)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")} |`
  );
}

const results = [];
for (const webhooks of [false, true]) {
  if (ONLY === "plain" && webhooks) continue;
  if (ONLY === "webhooks" && !webhooks) continue;
  const started = os.loadavg()[0];
  const result = await measure(webhooks);
  result.load = `${started.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`;
  results.push(result);
  console.log(
    `${webhooks ? "webhooks on" : "no webhooks"}: ${result.rows} purchases in ${result.seconds.toFixed(1)} s = ` +
      `${result.rate.toFixed(2)}/s (bound ${result.bound.toFixed(2)}/s); verify reads per purchase ` +
      `${result.readsPerPurchase.toFixed(2)}${result.metricReads === undefined ? "" : ` (metric ${result.metricReads.toFixed(2)})`}; ` +
      `requests ${result.posts} POST + ${result.reads} verify + ${result.other} other; load ${result.load}; ${JSON.stringify(result.states)}`,
  );
}

if (WRITE && results.length > 0) {
  const goals = { false: { reads: 1.5, rate: 8 }, true: { reads: 1.1, rate: 9.5 } };
  const verdicts = results.map((r) => {
    const goal = goals[r.webhooks];
    const met = r.readsPerPurchase <= goal.reads && r.rate >= goal.rate;
    return `- ${r.webhooks ? "webhooks on" : "no webhooks"}: goal ≤ ${goal.reads} reads/purchase and ≥ ${goal.rate} purchases/s: ${met ? "met" : "**missed**"} (load average ${r.load}).`;
  });
  writeSection(
    "Verify reads under the rate limit",
    [
      `\`node bench/verify-reads.js --rows ${ROWS}\`: \`topsync run\` (PostgreSQL, \`rate_limit\` ${RATE_LIMIT}, concurrency 8, ` +
        "verification 2s / 10m / 30s) against `topsync sandbox` with its default verify lag, each in its own process; " +
        `a CRM inserts ${ROWS} rows into \`purchase_requests\`. Time from the first purchase POST to the last purchase ` +
        "settled; requests counted by the sandbox. The bound is `rate_limit ÷ requests per purchase` (POST + verify " +
        "reads). The machine is shared with other work: the load average is given per row.",
      "",
      "| case | purchases | first POST → last settled | purchases/s | bound/s | verify reads/purchase | POST + verify + other requests | states |",
      "|---|---|---|---|---|---|---|---|",
      ...results.map(line),
      "",
      ...verdicts,
    ].join("\n"),
  );
}
