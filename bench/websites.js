// Website reconciler benchmark (DESIGN §10): plan and apply time for 100 / 1,000 / 10,000 websites against
// the sandbox at 0 and 20 ms latency, and request counts against the floor (list pages + changes).
// Writes the `## Websites` section of bench/RESULTS.md. Run with `npm run bench:websites`.
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { sql } from "drizzle-orm";
import { createAnalyticsClient } from "../dist/clients.js";
import { configSchema } from "../dist/config/index.js";
import { openDatabase } from "../dist/db/client.js";
import { migrate } from "../dist/db/migrate.js";
import { createLogger } from "../dist/log/logger.js";
import { startSandbox } from "../dist/sandbox/index.js";
import { loadOwnership } from "../dist/websites/ownership.js";
import { planWebsites } from "../dist/websites/plan.js";
import { reconcile, reconcileDeps } from "../dist/websites/reconcile.js";

const SIZES = (process.env.BENCH_SIZES ?? "100,1000,10000").split(",").map(Number);
const LATENCIES = (process.env.BENCH_LATENCIES ?? "0,20").split(",").map(Number);
const CONCURRENCY = 16;
const PER_PAGE = 100;
const TARGET_MS = 2000;
const RESULTS = new URL("./RESULTS.md", import.meta.url);
const logger = createLogger({ level: "silent" });

function items(count, privacy) {
  return Array.from({ length: count }, (_, i) => ({
    domain: `site-${String(i).padStart(5, "0")}.example.com`,
    privacy,
    exclude_params: ["utm_source", "utm_medium"],
  }));
}

function configFor(sandbox, websites) {
  return configSchema.parse({
    reseller: { base_url: "http://127.0.0.1:9", api_key: "unused" },
    analytics: {
      base_url: sandbox.analyticsUrl,
      api_key: sandbox.analyticsApiKey,
      concurrency: CONCURRENCY,
      rate_limit: 1_000_000,
      timeout: "60s",
    },
    websites,
  });
}

async function openBenchDatabase() {
  const url = process.env.BENCH_DATABASE_URL ?? "";
  const database = await openDatabase(url ? { url } : { pgliteDir: "memory://" });
  await migrate(database.db);
  // A database only for the benchmark: its website tables are emptied first.
  if (url) await database.db.execute(sql.raw("truncate website_ownership, website_runs"));
  return database;
}

/** One pass; returns its wall time, the analytics requests it made, and its result. */
async function timedPass(sandbox, db, websites, mode) {
  const config = configFor(sandbox, websites);
  const client = createAnalyticsClient(config.analytics, { logger });
  const before = sandbox.requests().length;
  const started = performance.now();
  try {
    const result = await reconcile(reconcileDeps(config, client, db, { logger }), { mode });
    const ms = performance.now() - started;
    const requests = sandbox.requests().slice(before);
    const pages = requests.filter((r) => r.method === "GET").length;
    return { ms, requests: requests.length, pages, result };
  } finally {
    await client.close();
  }
}

function floorOf(pass) {
  const { create, update, delete: deletes } = pass.result.plan.summary;
  const pages = Math.max(1, Math.ceil(pass.result.plan.remote.websites / PER_PAGE));
  return pages + create + update + deletes;
}

/** A person changes a website's privacy in the service's UI. */
async function drift(sandbox, id) {
  const response = await fetch(`${sandbox.analyticsUrl}/api/v1/websites/${id}`, {
    method: "PUT",
    headers: {
      authorization: `Bearer ${sandbox.analyticsApiKey}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "privacy=1",
  });
  if (!response.ok) throw new Error(`drifting website ${id}: HTTP ${response.status}`);
}

async function scenario(size, latencyMs) {
  const sandbox = await startSandbox({ latencyMs });
  const database = await openBenchDatabase();
  try {
    const declared = { items: items(size, "public") };
    const create = await timedPass(sandbox, database.db, declared, "apply");
    const noop = await timedPass(sandbox, database.db, declared, "plan");
    if (noop.result.plan.summary.unchanged !== size) throw new Error(`no-op plan of ${size} found changes`);
    // A tenth of the websites drifted remotely: the next apply puts them back.
    const drifted = sandbox.websites().filter((_, i) => i % 10 === 0);
    for (let i = 0; i < drifted.length; i += 50) {
      await Promise.all(drifted.slice(i, i + 50).map((website) => drift(sandbox, website.id)));
    }
    const update = await timedPass(sandbox, database.db, declared, "apply");
    // The pure planner alone, on the same inputs as the no-op plan.
    const config = configFor(sandbox, declared);
    const client = createAnalyticsClient(config.analytics, { logger });
    const { websites } = await client.listWebsites();
    await client.close();
    const ownership = await loadOwnership(database.db);
    const started = performance.now();
    planWebsites(config.websites.items, websites, ownership, { prune: false, secretKey: "00".repeat(32) });
    const plannerMs = performance.now() - started;
    return { size, latencyMs, create, noop, update, plannerMs, drifted: drifted.length };
  } finally {
    await database.close();
    await sandbox.close();
  }
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
const count = (pass) => `${pass.requests} / ${floorOf(pass)}`;

function section(rows) {
  const target = rows.find((r) => r.size === 10_000 && r.latencyMs === 0);
  const verdict = target
    ? `${fmt(target.noop.ms)} — ${target.noop.ms < TARGET_MS ? "meets" : "MISSES"} the target`
    : "not measured in this run";
  const lines = [
    "## Websites",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:websites\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}, ` +
      `sandbox on loopback, database ${process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "embedded PGlite (in memory)"}, ` +
      `analytics.concurrency ${CONCURRENCY}, rate limit lifted (the real service's limit would dominate otherwise).`,
    "",
    `**DESIGN §10 target:** a no-op plan of 10,000 declared against 10,000 remote websites under 2 s on loopback: ${verdict}.`,
    "",
    "Each pass lists every page (level-triggered), loads the ownership table, plans and writes a `website_runs` row.",
    "Requests are the analytics requests of the pass against the floor: list pages + changes.",
    "",
    "| websites | latency | create all (apply) | requests / floor | no-op plan | requests / floor | 10% drift put back (apply) | requests / floor | planner alone |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.size.toLocaleString("en")} | ${r.latencyMs} ms | ${fmt(r.create.ms)} | ${count(r.create)} | ${fmt(r.noop.ms)} | ${count(r.noop)} | ${fmt(r.update.ms)} | ${count(r.update)} | ${fmt(r.plannerMs)} |`,
    ),
    "",
    "Time floors at a given latency: list pages are read one after another (the listing stops on a short page),",
    `so a no-op plan of 10,000 cannot beat 100 × latency; writes run ${CONCURRENCY} at a time, so creating 10,000`,
    `cannot beat 10,000 × latency / ${CONCURRENCY} (12.5 s at 20 ms).`,
    "",
  ];
  return lines.join("\n");
}

/** Replaces the `## Websites` section (up to the next `## `), or appends it. */
function writeSection(text) {
  let current = "";
  try {
    current = readFileSync(RESULTS, "utf8");
  } catch {
    current = "# Benchmark results\n\n";
  }
  const start = current.search(/^## Websites\s*$/m);
  if (start === -1) {
    writeFileSync(RESULTS, `${current.trimEnd()}\n\n${text}`);
    return;
  }
  const rest = current.slice(start + 1);
  const next = rest.search(/^## /m);
  const end = next === -1 ? current.length : start + 1 + next;
  writeFileSync(RESULTS, `${current.slice(0, start)}${text}${next === -1 ? "" : `\n${current.slice(end)}`}`);
}

const rows = [];
for (const latencyMs of LATENCIES) {
  for (const size of SIZES) {
    const row = await scenario(size, latencyMs);
    rows.push(row);
    console.log(
      `${String(size).padStart(6)} websites @ ${String(latencyMs).padStart(2)} ms: create ${fmt(row.create.ms)} (${count(row.create)}), ` +
        `no-op plan ${fmt(row.noop.ms)} (${count(row.noop)}), drift ${fmt(row.update.ms)} (${count(row.update)}), planner ${fmt(row.plannerMs)}`,
    );
  }
}
const text = section(rows);
writeSection(text);
console.log(`\n${text}`);
