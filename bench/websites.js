// Website reconciler benchmark: plan and apply time for 100 / 1,000 / 10,000 websites against
// the sandbox at 0 and 20 ms latency, and request counts against the floor (list pages + changes); then
// `topsync websites plan --json` as an operator runs it (spawn to exit): a no-op plan of 10,000 beside plans
// with 10,000 changes. Writes the `## Websites` section of bench/RESULTS.md. Run with `npm run bench:websites`.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { stringify } from "yaml";
import { createAnalyticsClient } from "../dist/clients.js";
import { configSchema } from "../dist/config/index.js";
import { openDatabase } from "../dist/db/client.js";
import { migrate } from "../dist/db/migrate.js";
import { createLogger } from "../dist/log/logger.js";
import { startSandbox } from "../dist/sandbox/index.js";
import { loadOwnership } from "../dist/websites/ownership.js";
import { planWebsites } from "../dist/websites/plan.js";
import { reconcile, reconcileDeps } from "../dist/websites/reconcile.js";
import { planJson } from "../dist/websites/render.js";
import { writeSection } from "./lib.js";

const SIZES = (process.env.BENCH_SIZES ?? "100,1000,10000").split(",").map(Number);
const LATENCIES = (process.env.BENCH_LATENCIES ?? "0,20").split(",").map(Number);
const CONCURRENCY = 16;
const PER_PAGE = 100;
const TARGET_MS = 2000;
const CHANGES_TARGET_MS = 3000;
const CLI_SIZE = Number(process.env.BENCH_CLI_SIZE ?? 10_000);
const CLI_ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 5);
const CLI = fileURLToPath(new URL("../dist/cli.cjs", import.meta.url));
const run = promisify(execFile);
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

/** One pass (with its plan rendered as `websites plan --json` prints it when `json`); wall time, requests, result. */
async function timedPass(sandbox, db, websites, mode, json = false) {
  const config = configFor(sandbox, websites);
  const client = createAnalyticsClient(config.analytics, { logger });
  const before = sandbox.requests().length;
  const started = performance.now();
  try {
    const result = await reconcile(reconcileDeps(config, client, db, { logger }), { mode });
    if (json) JSON.stringify(planJson(result.plan), null, 2);
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
    const noop = await timedPass(sandbox, database.db, declared, "plan", true);
    if (noop.result.plan.summary.unchanged !== size) throw new Error(`no-op plan of ${size} found changes`);
    // Every website's privacy declared otherwise: a plan of `size` changes, rendered as JSON.
    const changes = await timedPass(sandbox, database.db, { items: items(size, "private") }, "plan", true);
    if (changes.result.plan.summary.update !== size) throw new Error(`plan of ${size} changes found fewer`);
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
    return { size, latencyMs, create, noop, changes, update, plannerMs, drifted: drifted.length };
  } finally {
    await database.close();
    await sandbox.close();
  }
}

/** `topsync websites …` in a child process against `sandbox`, with `items` declared; its wall time. */
async function cli(dir, sandbox, items, args) {
  const file = join(dir, "config.yaml");
  writeFileSync(
    file,
    stringify({
      reseller: { base_url: "http://127.0.0.1:9", api_key: "unused" },
      analytics: {
        base_url: sandbox.analyticsUrl,
        api_key: sandbox.analyticsApiKey,
        concurrency: CONCURRENCY,
        rate_limit: 1_000_000,
        timeout: "60s",
      },
      database: { url: process.env.BENCH_DATABASE_URL ?? "", pglite_dir: join(dir, "pglite") },
      websites: { items },
      log: { level: "warn" },
    }),
  );
  const started = performance.now();
  try {
    await run(process.execPath, [CLI, "-c", file, "websites", ...args], { maxBuffer: 1 << 30 });
  } catch (error) {
    // plan --detailed-exitcode is not used; apply and plan exit 0 here unless something failed
    throw new Error(`topsync websites ${args.join(" ")} failed: ${error.stderr ?? error.message}`);
  }
  return performance.now() - started;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The plan an operator asks for, spawn to exit: CLI_SIZE creates; then, once applied, no changes and CLI_SIZE updates. */
async function cliPlans() {
  const sandbox = await startSandbox();
  const dir = mkdtempSync(join(os.tmpdir(), "topsync-bench-websites-"));
  try {
    const declared = items(CLI_SIZE, "public");
    const timed = async (list) => {
      const times = [];
      for (let i = 0; i < CLI_ROUNDS; i++) times.push(await cli(dir, sandbox, list, ["plan", "--json"]));
      return median(times);
    };
    const creates = await timed(declared);
    await cli(dir, sandbox, declared, ["apply", "--auto-approve"]);
    const noop = await timed(declared);
    const updates = await timed(items(CLI_SIZE, "private"));
    return { noop, updates, creates };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sandbox.close();
  }
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
const count = (pass) => `${pass.requests} / ${floorOf(pass)}`;

function section(rows, plans) {
  const target = rows.find((r) => r.size === 10_000 && r.latencyMs === 0);
  const verdict = (ms, limit) => `${fmt(ms)}, ${ms < limit ? "met" : "**not met**"}`;
  const n = CLI_SIZE.toLocaleString("en");
  const spawned = plans
    ? `as an operator runs it (\`topsync websites plan --json\`, spawn to exit, ${n} declared, the embedded database on disk) ` +
      `${verdict(plans.noop, TARGET_MS)}`
    : "spawn to exit not measured in this run";
  const inProcess = target ? `the pass alone, in-process ${verdict(target.noop.ms, TARGET_MS)}` : "";
  const changes = plans
    ? `spawn to exit ${verdict(Math.max(plans.updates, plans.creates), CHANGES_TARGET_MS)}`
    : "";
  const changesInProcess = target ? `in-process ${verdict(target.changes.ms, CHANGES_TARGET_MS)}` : "";
  const lines = [
    `**Targets.** A no-op plan of 10,000 declared against 10,000 remote websites under 2 s: ${spawned}; ${inProcess}. ` +
      `A plan of 10,000 changes under 3 s: ${[changes, changesInProcess].filter(Boolean).join("; ")}.`,
    "",
    `Measured by \`npm run bench:websites\` on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}, ` +
      `sandbox on loopback, analytics.concurrency ${CONCURRENCY}, rate limit lifted (the real service's limit would dominate otherwise). ` +
      `In-process passes use the database ${process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "embedded PGlite (in memory)"}.`,
    "",
    ...cliSection(plans),
    "**In-process.** Each pass lists every page (level-triggered), loads the ownership table, plans and writes a",
    "`website_runs` row; the two plans are also rendered as `websites plan --json` prints them. Requests are the",
    "analytics requests of the pass against the floor: list pages + changes.",
    "",
    "| websites | latency | create all (apply) | requests / floor | no-op plan | requests / floor | plan, every website changed | 10% drift put back (apply) | requests / floor | planner alone |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.size.toLocaleString("en")} | ${r.latencyMs} ms | ${fmt(r.create.ms)} | ${count(r.create)} | ${fmt(r.noop.ms)} | ${count(r.noop)} | ${fmt(r.changes.ms)} | ${fmt(r.update.ms)} | ${count(r.update)} | ${fmt(r.plannerMs)} |`,
    ),
    "",
    "Time floors at a given latency: list pages are asked for a few at a time once the first says how many there are",
    `(the client's connections less one), so a no-op plan of 10,000 at 20 ms cannot beat about 100 × latency / ${CONCURRENCY - 1}; writes run ${CONCURRENCY} at a time, so creating 10,000`,
    `cannot beat 10,000 × latency / ${CONCURRENCY} (12.5 s at 20 ms).`,
  ];
  return lines.join("\n");
}

function cliSection(plans) {
  if (!plans) return [];
  const n = CLI_SIZE.toLocaleString("en");
  return [
    `**As an operator runs it:** \`topsync websites plan --json\` from spawn to exit (median of ${CLI_ROUNDS}), ${n} websites declared`,
    "in config.yaml, the sandbox at 0 ms (in this process), the embedded database on disk, rate limit lifted: starting Node,",
    `reading the ${n}-item config.yaml, opening the embedded database (PGlite's start is some 0.5 s of CPU), listing,`,
    "planning, recording the pass. These move with the machine's load far more than the in-process figures.",
    "",
    "| plan | changes | spawn to exit |",
    "|---|---:|---:|",
    `| no-op | 0 | ${fmt(plans.noop)} |`,
    `| every website's privacy changed | ${n} updates | ${fmt(plans.updates)} |`,
    `| nothing on the service yet | ${n} creates | ${fmt(plans.creates)} |`,
    "",
  ];
}

const rows = [];
for (const latencyMs of LATENCIES) {
  for (const size of SIZES) {
    const row = await scenario(size, latencyMs);
    rows.push(row);
    console.log(
      `${String(size).padStart(6)} websites @ ${String(latencyMs).padStart(2)} ms: create ${fmt(row.create.ms)} (${count(row.create)}), ` +
        `no-op plan ${fmt(row.noop.ms)} (${count(row.noop)}), ${size} changes ${fmt(row.changes.ms)}, drift ${fmt(row.update.ms)} (${count(row.update)}), planner ${fmt(row.plannerMs)}`,
    );
  }
}
const plans = CLI_SIZE > 0 ? await cliPlans() : undefined;
if (plans) {
  console.log(
    `websites plan --json, ${CLI_SIZE} websites: no-op ${fmt(plans.noop)}, ${CLI_SIZE} updates ${fmt(plans.updates)}, ${CLI_SIZE} creates ${fmt(plans.creates)}`,
  );
}
const text = section(rows, plans);
writeSection("Websites", text);
console.log(`\n${text}`);
