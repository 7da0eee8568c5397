// `npm run bench:ledger-year`: a year of ledger. Creates its own PostgreSQL database, migrates it
// with topsync's migrate, seeds it in SQL (default 10,000,000 purchases with about 30,000,000 events over 400 days:
// year-ledger-seed.js), and times, against the same on an empty ledger, in rounds taken in turn:
// a /metrics scrape of a running daemon; `report --since 7d` and `--since 365d`; `purchases list --state in_doubt`
// and `purchases show ID`; `plan --window 24h`; each command from spawn to exit, and beside it the query or core
// function in-process (the command's fixed start-up cost is not the ledger's); and the rate of a 10,000-purchase
// run (bench/purchases-worker.js, as bench:purchases runs it). Writes the `## A year of ledger` section of
// bench/RESULTS.md.
//
//   npm run bench:ledger-year                       # the full year (seeding takes a while: see RESULTS.md)
//   npm run bench:ledger-year -- --purchases 200000 # a smoke run
//
// Flags: --purchases N (10000000), --days N (400), --rounds N (5), --run-count N (10000), --timeout 4h.
// It refuses a database it did not create (the name is taken), drops what it created when it ends, fails, is
// interrupted (SIGINT, SIGTERM) or passes --timeout, and stops every process it started.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import postgres from "postgres";
import { machine, runWorker, SERVER, startSandboxProcess, writeSection } from "./lib.js";
import { SEED_AFTER, SEED_CHUNK, seedPurchases } from "./year-ledger-seed.js";

const DIST = process.env.BENCH_DIST ?? fileURLToPath(new URL("../dist/", import.meta.url));
const CLI = path.join(DIST, "cli.js");
const WORKER = pathToFileURL(path.join(DIST, "../bench/purchases-worker.js")).href;
const PREFIX = `topsync_bench_year_${process.pid}`;

function parseFlags(argv) {
  const flags = { purchases: 10_000_000, days: 400, rounds: 5, "run-count": 10_000, timeout: "4h" };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]?.replace(/^--/, "");
    if (!(name in flags) || argv[i + 1] === undefined) {
      console.error(
        `usage: node bench/year-ledger.js [--purchases N] [--days N] [--rounds N] [--run-count N] [--timeout 4h]`,
      );
      process.exit(64);
    }
    flags[name] = name === "timeout" ? argv[i + 1] : Number(argv[i + 1]);
  }
  const hours = /^(\d+(?:\.\d+)?)h$/.exec(flags.timeout);
  const minutes = /^(\d+(?:\.\d+)?)m$/.exec(flags.timeout);
  flags.timeoutMs = hours ? Number(hours[1]) * 3_600_000 : minutes ? Number(minutes[1]) * 60_000 : Number.NaN;
  for (const [name, value, min, max] of [
    ["purchases", flags.purchases, 1000, 100_000_000],
    ["days", flags.days, 2, 3650],
    ["rounds", flags.rounds, 1, 50],
    ["run-count", flags["run-count"], 100, 1_000_000],
  ])
    if (!Number.isInteger(value) || value < min || value > max) {
      console.error(`--${name} must be a whole number from ${min} to ${max}`);
      process.exit(64);
    }
  if (!(flags.timeoutMs > 0)) {
    console.error("--timeout must be hours or minutes, e.g. 4h or 30m");
    process.exit(64);
  }
  return flags;
}

const FLAGS = parseFlags(process.argv.slice(2));

// ------------------------------------------------------------------------------------------- cleaning up after
const created = new Set();
const children = new Set();
let cleaning;
function cleanUp() {
  cleaning ??= (async () => {
    for (const child of children) child.kill("SIGKILL");
    const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
    try {
      for (const name of created) await admin.unsafe(`drop database if exists ${name} with (force)`);
    } finally {
      await admin.end();
    }
    created.clear();
  })();
  return cleaning;
}
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.once(signal, () => {
    console.error(`${signal}: dropping the benchmark's databases and stopping`);
    cleanUp().finally(() => process.exit(code));
  });
}
const watchdog = setTimeout(() => {
  console.error(`stopped after --timeout ${FLAGS.timeout}: dropping the benchmark's databases`);
  cleanUp().finally(() => process.exit(1));
}, FLAGS.timeoutMs);
watchdog.unref();

/** A new database of this run; a database of that name that already exists is not ours, and is refused. */
async function createOwnDatabase(suffix = "") {
  const name = `${PREFIX}${suffix}`;
  const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const [taken] = await admin`select 1 from pg_database where datname = ${name}`;
    if (taken) throw new Error(`database ${name} exists and is not this run's: refusing to touch it`);
    await admin.unsafe(`create database ${name}`);
    created.add(name);
  } finally {
    await admin.end();
  }
  return { name, url: `${SERVER}/${name}` };
}

async function dropOwnDatabase(database) {
  if (!created.has(database.name))
    throw new Error(`refusing to drop ${database.name}: this run did not create it`);
  const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${database.name} with (force)`);
    created.delete(database.name);
  } finally {
    await admin.end();
  }
}

async function migrated(database) {
  const [{ openDatabase }, { migrate }] = await Promise.all([
    import(path.join(DIST, "db/client.js")),
    import(path.join(DIST, "db/migrate.js")),
  ]);
  const handle = await openDatabase({ url: database.url, maxConnections: 2 });
  try {
    await migrate(handle.db);
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------- seeding
/**
 * Seeds the year: a statement per day, two at a time over eight sessions (the counts' shards, as a daemon's pool
 * spreads its statements); vacuums and analyzes, as autovacuum would have over the year; then seals the report's
 * rollups, as the daemon does every hour.
 */
async function seed(database) {
  const started = performance.now();
  const sessions = Array.from({ length: 8 }, () => postgres(database.url, { max: 1, onnotice: () => {} }));
  try {
    const start = await seedPurchases(sessions, {
      purchases: FLAGS.purchases,
      days: FLAGS.days,
      queued: 100,
      onDay: (done) => {
        if (done % 40 === 0 || done === FLAGS.days)
          console.error(
            `seeded ${done}/${FLAGS.days} days (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
      },
    });
    for (const statement of SEED_AFTER)
      await sessions[0].unsafe(statement, statement.includes("$1") ? [new Date(start).toISOString()] : []);
    const seeded = (performance.now() - started) / 1000;
    // What autovacuum would have done over the year: visibility maps, block ranges summarised, statistics.
    await sessions[0].unsafe("vacuum analyze");
    const sealedAt = performance.now();
    const sealedDays = await seal(database);
    const sealSeconds = (performance.now() - sealedAt) / 1000;
    // The seed wrote 10 GB in minutes; a ledger that grew over a year has long had it on disk. A checkpoint makes
    // sure no flush of it is left to share the machine with the timings (in the runs so far it took 0.0-0.2 s: the
    // vacuum had written most of it). Needs a superuser or pg_checkpoint; without, the run says so.
    const flushedAt = performance.now();
    const checkpoint = await sessions[0].unsafe("checkpoint").then(
      () => `checkpoint ${((performance.now() - flushedAt) / 1000).toFixed(1)} s`,
      (error) => `no checkpoint (${error.message})`,
    );
    const [sizes] = await sessions[0]`
      select (select count(*) from purchases)::bigint as purchases, (select count(*) from purchase_events)::bigint as events,
        (select count(*) from schedule_fires)::bigint as fires, (select count(*) from website_runs)::bigint as passes,
        pg_database_size(current_database()) as bytes,
        (select count(*) from purchases where state = 'in_doubt')::int as in_doubt`;
    return {
      seconds: seeded,
      sealSeconds,
      sealedDays,
      vacuumSeconds: (sealedAt - started) / 1000 - seeded,
      checkpoint,
      sizes,
    };
  } finally {
    await Promise.all(sessions.map((s) => s.end()));
  }
}

/** Seals the report's rollups, as the daemon does every hour (when the build under test has them). */
async function seal(database) {
  const [{ openDatabase }, rollups] = await Promise.all([
    import(path.join(DIST, "db/client.js")),
    import(path.join(DIST, "purchases/rollups.js")).catch(() => undefined),
  ]);
  if (!rollups?.sealLedgerRollups) return 0;
  const handle = await openDatabase({ url: database.url, maxConnections: 1 });
  try {
    return await rollups.sealLedgerRollups(handle.db);
  } finally {
    await handle.close();
  }
}

/** The "empty" ledger holds one purchase (and its events), so `purchases show` has something to show. */
async function seedOne(database) {
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(SEED_CHUNK, [1, 1, new Date(Date.now() - 3_600_000).toISOString(), 60, 0]);
  } finally {
    await sql.end();
  }
}

// -------------------------------------------------------------------------------------------------- measuring
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `topsync ARGS` and resolves to the milliseconds from spawn to exit; a failure or 10 minutes is an error. */
function timeCommand(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    const limit = setTimeout(() => child.kill("SIGKILL"), 600_000);
    let err = "";
    child.stdout.resume();
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.once("exit", (code) => {
      clearTimeout(limit);
      children.delete(child);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`topsync ${args.join(" ")} exited with ${code}: ${err.slice(-2000)}`));
      else resolve(ms);
    });
  });
}

async function timed(body) {
  const started = process.hrtime.bigint();
  await body();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function configYaml(sandbox, databaseUrl, extra = "") {
  return [
    `reseller: { base_url: "${sandbox.resellerUrl}", api_key: sandbox-reseller-key }`,
    `analytics: { base_url: "${sandbox.analyticsUrl}", api_key: sandbox-analytics-key }`,
    `database: { url: "${databaseUrl}" }`,
    "timezone: Africa/Lagos",
    extra,
  ].join("\n");
}

/** Jobs for `plan`: the seeded operator's, each with five inline recipients. */
async function planJobs() {
  const { JOBS } = await import("./year-ledger-seed.js");
  const cron = {
    1440: "0 8 * * *",
    720: "0 */12 * * *",
    360: "0 */6 * * *",
    60: "0 * * * *",
    30: "*/30 * * * *",
    15: "*/15 * * * *",
    180: "0 */3 * * *",
  };
  const lines = ["purchases:"];
  for (const [name, network, plan, minutes] of JOBS)
    lines.push(
      `  - name: ${name}`,
      `    schedule: "${cron[minutes]}"`,
      `    plan: { network: "${network}", plan_id: "${plan}" }`,
      `    recipients: [${Array.from({ length: 5 }, (_, i) => `"0803${String(7_000_000 + i)}"`).join(", ")}]`,
    );
  return lines.join("\n");
}

/** Starts `topsync run` on `config` and resolves once /metrics answers; returns its URL and a stop function. */
async function startDaemon(configFile, port) {
  const child = spawn(process.execPath, [CLI, "-c", configFile, "--log-level", "warn", "run"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.add(child);
  const url = `http://127.0.0.1:${port}/metrics`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`topsync run exited with ${child.exitCode}`);
    try {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (ready.status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error("topsync run was not ready within 2 minutes");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      children.delete(child);
    },
  };
}

async function scrape(url) {
  let body = "";
  const ms = await timed(async () => {
    const response = await fetch(url);
    body = await response.text();
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  });
  if (!body.includes("topsync_database_up 1")) throw new Error("/metrics could not read the ledger");
  return ms;
}

/** The in-process side: the query or core function each command runs, on a database handle already open. */
async function inProcess(databaseUrl) {
  const [{ openDatabase }, { readLedgerStats }, { makeLedgerReport }, ledgerRead] = await Promise.all([
    import(path.join(DIST, "db/client.js")),
    import(path.join(DIST, "server/ledger-stats.js")),
    import(path.join(DIST, "report/ledger.js")),
    import(path.join(DIST, "purchases/ledger-read.js")),
  ]);
  const database = await openDatabase({ url: databaseUrl, maxConnections: 2 });
  const period = (days) => ({
    now: new Date(),
    since: new Date(Date.now() - days * 86_400_000),
    timeZone: "Africa/Lagos",
  });
  return {
    metrics: () => timed(() => readLedgerStats(database.db, new Date(), "Africa/Lagos")),
    report7: () => timed(() => makeLedgerReport(database.db, period(7))),
    report365: () => timed(() => makeLedgerReport(database.db, period(365))),
    list: () => timed(() => ledgerRead.listPurchases(database.db, { state: "in_doubt" }, 100)),
    show: (id) => timed(() => ledgerRead.readPurchaseHistory(database.db, String(id))),
    close: () => database.close(),
  };
}

/** A purchase to show: the newest in_doubt one, else the newest. */
async function someId(databaseUrl) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select coalesce((select max(id) from purchases where state = 'in_doubt'),
      (select max(id) from purchases)) as id`;
    return row?.id ?? 1;
  } finally {
    await sql.end();
  }
}

const ROWS = [
  ["metrics", "/metrics scrape (HTTP, daemon running)", "in-process `readLedgerStats`", "< 50 ms"],
  ["report7", "`report --since 7d --format json`", "in-process `makeLedgerReport`", "< 500 ms"],
  ["report365", "`report --since 365d --format json`", "in-process `makeLedgerReport`", "< 3 s"],
  ["list", "`purchases list --state in_doubt`", "in-process `listPurchases`", "< 200 ms"],
  ["show", "`purchases show ID`", "in-process `readPurchaseHistory`", "< 200 ms"],
  ["plan", "`plan --window 24h --format json` (10 jobs)", null, "unchanged"],
];

/**
 * A ledger's side of the measurements: its daemon (for /metrics), its config and an open connection for the in-process
 * figures. `round()` times every row once. The empty ledger's rounds and the year's alternate (every other round in
 * reverse order), so a machine that drifts over the minutes the rounds take weighs on both alike.
 */
async function openLedgerProbe(label, database, sandbox, dir) {
  const port = await freePort();
  const daemonConfig = path.join(dir, `${label}-daemon.yaml`);
  writeFileSync(
    daemonConfig,
    configYaml(sandbox, database.url, `server: { host: 127.0.0.1, port: ${port} }\npurchases: []`),
  );
  const config = path.join(dir, `${label}.yaml`);
  writeFileSync(config, configYaml(sandbox, database.url, await planJobs()));
  const id = await someId(database.url);
  const spawned = Object.fromEntries(ROWS.map(([key]) => [key, []]));
  const direct = Object.fromEntries(ROWS.map(([key]) => [key, []]));
  const daemon = await startDaemon(daemonConfig, port);
  const local = await inProcess(database.url).catch(async (error) => {
    await daemon.stop();
    throw error;
  });
  await scrape(daemon.url); // the daemon's first scrape prepares its statements
  return {
    figures: { spawned, direct },
    async round(round) {
      spawned.metrics.push(median(await Promise.all([0, 1, 2].map(async () => scrape(daemon.url)))));
      direct.metrics.push(await local.metrics());
      spawned.report7.push(await timeCommand(["-c", config, "report", "--since", "7d", "--format", "json"]));
      direct.report7.push(await local.report7());
      spawned.report365.push(
        await timeCommand(["-c", config, "report", "--since", "365d", "--format", "json"]),
      );
      direct.report365.push(await local.report365());
      spawned.list.push(await timeCommand(["-c", config, "purchases", "list", "--state", "in_doubt"]));
      direct.list.push(await local.list());
      spawned.show.push(await timeCommand(["-c", config, "purchases", "show", String(id)]));
      direct.show.push(await local.show(id));
      spawned.plan.push(await timeCommand(["-c", config, "plan", "--window", "24h", "--format", "json"]));
      console.error(
        `${label} round ${round + 1}: ${ROWS.map(([key]) => `${key} ${spawned[key].at(-1).toFixed(0)}${direct[key].length ? `/${direct[key].at(-1).toFixed(1)}` : ""} ms`).join(", ")}`,
      );
    },
    async close() {
      await local.close();
      await daemon.stop();
    },
  };
}

/** The rate of a 10,000-purchase run into `databaseUrl` (queued by another process first), as bench:purchases. */
async function runRate(sandbox, databaseUrl, keyPrefix) {
  const common = {
    count: FLAGS["run-count"],
    concurrency: 32,
    resellerUrl: sandbox.resellerUrl,
    databaseUrl,
    sandboxPid: sandbox.pid,
    keyPrefix,
  };
  await sandbox.admin("reset", {});
  await runWorker(WORKER, { kind: "seed", ...common });
  return runWorker(WORKER, { kind: "topsync-postgres", seeded: true, ...common });
}

// -------------------------------------------------------------------------------------------------------- main
async function main() {
  const loadBefore = os.loadavg()[0];
  const dir = mkdtempSync(path.join(os.tmpdir(), "topsync-year-"));
  const year = await createOwnDatabase();
  const empty = await createOwnDatabase("_empty");
  const sandbox = await startSandboxProcess({
    latency: 0,
    resellerPort: await freePort(),
    analyticsPort: await freePort(),
  });
  try {
    await migrated(year);
    await migrated(empty);
    await seedOne(empty);
    console.error(
      `seeding ${FLAGS.purchases.toLocaleString("en")} purchases over ${FLAGS.days} days into ${year.name}`,
    );
    const seeded = await seed(year);
    console.error(
      `seeded in ${seeded.seconds.toFixed(0)} s (vacuum analyze ${seeded.vacuumSeconds.toFixed(0)} s): ${JSON.stringify(seeded.sizes)}`,
    );
    const probes = {};
    try {
      probes.empty = await openLedgerProbe("empty", empty, sandbox, dir);
      probes.year = await openLedgerProbe("year", year, sandbox, dir);
      for (let round = 0; round < FLAGS.rounds; round++)
        for (const label of round % 2 ? ["year", "empty"] : ["empty", "year"])
          await probes[label].round(round);
    } finally {
      await Promise.all(Object.values(probes).map((probe) => probe.close()));
    }
    const measured = { empty: probes.empty.figures, year: probes.year.figures };

    // Run rates, a round on each in turn; the empty ledger is a new database each round.
    const rates = { empty: [], year: [] };
    for (let round = 0; round < FLAGS.rounds; round++) {
      for (const label of round % 2 ? ["year", "empty"] : ["empty", "year"]) {
        let result;
        if (label === "year") {
          result = await runRate(sandbox, year.url, `bench-year-${round}`);
        } else {
          const fresh = await createOwnDatabase(`_run${round}`);
          try {
            await migrated(fresh);
            result = await runRate(sandbox, fresh.url, "bench");
          } finally {
            await dropOwnDatabase(fresh);
          }
        }
        rates[label].push(result.rate);
        console.error(`run rate round ${round + 1} ${label}: ${result.rate.toFixed(0)}/s`);
      }
    }
    writeResults(seeded, measured, rates, loadBefore);
  } finally {
    await sandbox.stop();
    await cleanUp();
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeResults(seeded, measured, rates, loadBefore) {
  const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x < 10 ? x.toFixed(1) : x.toFixed(0)} ms`);
  const limit = { metrics: 50, report7: 500, report365: 3000, list: 200, show: 200 };
  const lines = [];
  for (const [key, command, core, target] of ROWS) {
    const e = measured.empty;
    const y = measured.year;
    const met =
      key === "plan"
        ? `${((median(y.spawned.plan) / median(e.spawned.plan) - 1) * 100).toFixed(0)}% vs empty`
        : median(y.direct[key]) >= limit[key]
          ? "**not met**"
          : median(y.spawned[key]) < limit[key]
            ? `**met** (${key === "metrics" ? "the HTTP scrape" : "spawn to exit"} and in-process)`
            : "**met** in-process only";
    lines.push(
      `| ${command} | ${ms(median(e.spawned[key]))} | ${ms(median(y.spawned[key]))} | ${target} | ${met} |`,
    );
    if (core)
      lines.push(`| ${core} | ${ms(median(e.direct[key]))} | ${ms(median(y.direct[key]))} | ${target} | |`);
  }
  const rateEmpty = median(rates.empty);
  const rateYear = median(rates.year);
  const ratios = rates.year.map((r, i) => r / rates.empty[i]);
  const s = seeded.sizes;
  const gb = (bytes) => `${(Number(bytes) / 2 ** 30).toFixed(1)} GB`;
  const markdown = `
Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:ledger-year${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\` on ${machine()}, ${os.cpus().length} cores shared with
PostgreSQL 15 (shared_buffers 128 MB), the sandbox and other work (load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after).
The year: ${Number(s.purchases).toLocaleString("en")} purchases and ${Number(s.events).toLocaleString("en")} events over ${FLAGS.days} days
(${Number(s.in_doubt)} in_doubt), ${Number(s.fires).toLocaleString("en")} schedule fires, ${Number(s.passes).toLocaleString("en")} website passes; ${gb(s.bytes)} on disk.
Seeded in SQL (bench/year-ledger-seed.js, a statement per day, the ledger's triggers on) in ${(seeded.seconds / 60).toFixed(1)} min, then
\`vacuum analyze\` in ${(seeded.vacuumSeconds / 60).toFixed(1)} min and the report's rollups sealed as the daemon seals them
(${seeded.sealedDays} days) in ${(seeded.sealSeconds / 60).toFixed(1)} min; then what the seed wrote was flushed to disk before
anything was timed (${seeded.checkpoint}). Medians of ${FLAGS.rounds} rounds, the empty ledger's and the year's taken in turn; a command is timed from spawn to exit
(\`node dist/cli.cjs …\`, its start-up included), /metrics as an HTTP scrape of a running daemon (no start-up in it), and
beside each the function it runs, in-process on an open connection: what the ledger costs, apart from the start-up
every command pays. The run's rate is in-process.

| what | empty ledger | a year of ledger | target | |
|---|---:|---:|---|---|
${lines.join("\n")}
| a ${FLAGS["run-count"].toLocaleString("en")}-purchase run at concurrency 32, sandbox at 0 ms, in-process (\`executePurchases\` over rows queued by another process, as bench:purchases) | ${rateEmpty.toFixed(0)}/s | ${rateYear.toFixed(0)}/s | within 10% | ${(median(ratios) * 100).toFixed(0)}% of empty (rounds: ${ratios.map((r) => (r * 100).toFixed(0)).join(", ")}) |
`;
  console.log(markdown);
  if (process.env.BENCH_DIST) console.error("BENCH_DIST is set: bench/RESULTS.md left as it is");
  else writeSection("A year of ledger", markdown);
}

main().then(
  () => process.exit(0),
  async (error) => {
    console.error(error);
    await cleanUp();
    process.exit(1);
  },
);
