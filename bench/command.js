// `npm run bench:command`: topsync as an operator runs it — `topsync purchases run --job campaign --now`, timed
// from the spawn of the command to its exit, with the N recipients inline in its config, on a database already
// migrated — beside the same work done by graphile-worker (batched, its addJobs of N timed, its worker already
// started) and by the no-database loop, on one sandbox process. Then the fixed costs an operator pays on every
// command. Figures go to bench/RESULTS.md.
//
// Every database it uses it creates (topsync_bench_…) and drops, also on Ctrl-C; it never touches another.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { STEPS as MARKED_STEPS, readTimings } from "../dist/timings.js";
import { CLI, createDatabase, machine, ROOT, runWorker, startSandboxProcess, writeSection } from "./lib.js";

const CONCURRENCY = 32;
// Each cell with its target: the median ratio against graphile-worker at 0 ms, against the
// no-database loop at 20 ms.
const GRID = [
  { latency: 0, count: 2000, target: { vs: "vsGraphile", ratio: 0.9 } },
  { latency: 0, count: 10000, target: { vs: "vsGraphile", ratio: 1 } },
  { latency: 20, count: 1000, target: { vs: "vsCeiling", ratio: 0.9 } },
  { latency: 20, count: 4000, target: { vs: "vsCeiling", ratio: 0.95 } },
];
const FIRST_POST_TARGET_MS = 400;
// The steps of a run that `TOPSYNC_TIMINGS=1` marks (src/timings.ts), in the order the table shows them.
const STEPS = ["node", ...MARKED_STEPS, "exit"];
// At 20 ms, from the first POST on: topsync's rate at least this share of the no-database loop's.
const STEADY_TARGET = 0.97;
/**
 * How the provider's verify answers a new transaction, each a sandbox setting laid over its defaults at every
 * run's reset. `sandbox`: not found on the first read, `pending` on the next, then the final status. `pending-once`:
 * `pending` on the first read and the final status on the next, with no not-found window (a provider nearly, not
 * fully, up to date).
 */
const PROFILES = {
  sandbox: { verifyNotFoundPolls: 1, verifyPendingPolls: 1 },
  "pending-once": { verifyNotFoundPolls: 0, verifyPendingPolls: 1 },
};
// BENCH_PROFILES="pending-once" measures only those profiles.
const profiles = (process.env.BENCH_PROFILES ?? Object.keys(PROFILES).join(","))
  .split(",")
  .map((name) => name.trim());
for (const name of profiles)
  if (!PROFILES[name])
    throw new Error(
      `BENCH_PROFILES=${process.env.BENCH_PROFILES}: each is one of ${Object.keys(PROFILES).join(", ")}`,
    );
// Three rounds per cell and profile, the contenders in alternating order; BENCH_ROUNDS for more.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FIXED_ROUNDS = Number(process.env.BENCH_FIXED_ROUNDS ?? 9);
const KINDS = ["topsync", "graphile-worker", "no-database"];
// BENCH_CELLS="0:10000,20:1000" times only those cells (latency:N), prints their ratios and writes nothing to
// RESULTS.md: for comparing builds, where a full run would take half an hour.
const CELLS = process.env.BENCH_CELLS?.split(",").map((cell) => cell.trim());
const grid = CELLS ? GRID.filter((c) => CELLS.includes(`${c.latency}:${c.count}`)) : GRID;
if (CELLS && grid.length !== CELLS.length)
  throw new Error(
    `BENCH_CELLS=${process.env.BENCH_CELLS}: each cell is latency:N, one of ${GRID.map((c) => `${c.latency}:${c.count}`).join(", ")}`,
  );

const scratch = mkdtempSync(join(tmpdir(), "topsync-bench-command-"));
// A code cache of its own (src/cli.cts), empty at the start: "first run" is a first run after an install.
const CODE_CACHE = join(scratch, "code-cache");
const live = new Set();
let sandbox;
async function cleanUp() {
  await sandbox?.stop().catch(() => {});
  for (const database of live) await database.drop().catch(() => {});
  rmSync(scratch, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    console.error(`bench:command: ${signal}, cleaning up`);
    cleanUp().finally(() => process.exit(130));
  });
}

/** Whether an error is the machine's, not the contender's: a server out of connections, a worker that stalled or died (a worker that fails for its own sake fails every attempt). */
const busyMachine = (error) =>
  /too many clients|completed nothing|purchases-worker.js exited with/.test(String(error?.message ?? error));

async function withDatabase(body) {
  let database;
  for (let attempt = 1; !database; attempt++) {
    database = await createDatabase().catch(async (error) => {
      if (!busyMachine(error) || attempt === 12) throw error;
      console.error(`bench:command: ${error.message}; creating the database again in 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    });
  }
  live.add(database);
  try {
    return await body(database);
  } finally {
    live.delete(database);
    await database.drop();
  }
}

const pct = (x) => `${(x * 100).toFixed(0)}%`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const phones = (count) =>
  Array.from({ length: count }, (_, i) => `0803${String(1_000_000 + i).padStart(7, "0")}`);

/** A config as an operator writes it: one job, N recipients inline, verification polled quickly. */
function writeConfig(name, { resellerUrl, analyticsUrl = "http://127.0.0.1:1", databaseUrl, count }) {
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(
    file,
    `reseller:
  base_url: "${resellerUrl}"
  api_key: sandbox-reseller-key
  concurrency: ${CONCURRENCY}
  rate_limit: 1000000
  retry: { max_attempts: 5, base_delay: 5ms, max_delay: 50ms }
analytics: { base_url: "${analyticsUrl}", api_key: sandbox-analytics-key }
database: { url: "${databaseUrl}" }
verification: { initial_delay: 1ms, max_interval: 1ms, timeout: 60s }
purchases:
  - name: campaign
    plan: { network: MTN, plan_id: "102" }
    max_price: "100000.00"
    recipients:
${phones(count)
  .map((phone) => `      - "${phone}"`)
  .join("\n")}
`,
  );
  return file;
}

/** Spawns the CLI and resolves when it exits: wall milliseconds from spawn to exit, exit code, output. */
function timeCommand(args, env = {}, unset = []) {
  return new Promise((resolve, reject) => {
    const environment = {
      ...process.env,
      TOPSYNC_COMPILE_CACHE: CODE_CACHE,
      ...env,
    };
    for (const name of unset) delete environment[name];
    const started = performance.now();
    const startedAt = Date.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: environment,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      resolve({ ms: performance.now() - started, startedAt, code, stdout, stderr }),
    );
  });
}

async function migrated(config) {
  const result = await timeCommand(["migrate", "-c", config]);
  if (result.code !== 0) throw new Error(`topsync migrate failed: ${result.stderr}`);
}

/** One `purchases run` of N inline recipients, on a fresh migrated database. */
async function topsyncRun(cell, profile = "sandbox") {
  return withDatabase(async (database) => {
    const config = writeConfig("campaign", {
      resellerUrl: sandbox.resellerUrl,
      databaseUrl: database.url,
      count: cell.count,
    });
    await migrated(config);
    await sandbox.admin("reset", PROFILES[profile]);
    // TOPSYNC_TIMINGS (src/timings.ts): the run's steps, in ms since its process started, on its last line.
    const run = await timeCommand(["purchases", "run", "--job", "campaign", "--now", "-c", config], {
      TOPSYNC_TIMINGS: "1",
    });
    if (run.code !== 0) throw new Error(`purchases run exited ${run.code}: ${run.stderr.slice(-2000)}`);
    const firstPost = await firstDebitAt(cell.count);
    return {
      rate: cell.count / (run.ms / 1000),
      seconds: run.ms / 1000,
      firstPostMs: firstPost - run.startedAt,
      afterFirstPostRate: cell.count / ((run.startedAt + run.ms - firstPost) / 1000),
      steps: stepsOf(run.stderr),
    };
  });
}

/** The steps of the run's timings line (src/timings.ts), by name. */
function stepsOf(stderr) {
  const found = readTimings(stderr);
  if (!found) throw new Error(`purchases run printed no timings (TOPSYNC_TIMINGS=1): ${stderr.slice(-500)}`);
  return Object.fromEntries(found);
}

/**
 * When the sandbox took the first purchase of a run (wall clock ms). A run whose sandbox took fewer than `count`
 * purchases (a purchase that failed on a machine too busy to answer in time) is said on the terminal, not hidden.
 */
async function firstDebitAt(count) {
  const { debits } = await sandbox.admin("debits");
  if (debits.length !== count) console.error(`bench:command: ${debits.length} debits for ${count} purchases`);
  if (debits.length === 0) throw new Error(`no debits for ${count} purchases`);
  return Math.min(...debits.map((d) => Date.parse(`${d.at.slice(0, 23)}Z`)));
}

async function workerRun(kind, cell, profile = "sandbox") {
  return withDatabase(async (database) => {
    await sandbox.admin("reset", PROFILES[profile]);
    const result = await runWorker("purchases-worker.js", {
      kind,
      count: cell.count,
      concurrency: CONCURRENCY,
      resellerUrl: sandbox.resellerUrl,
      databaseUrl: database.url,
      sandboxPid: sandbox.pid,
      addTimed: true,
      // Both re-read at once after `pending`; graphile-worker records each outcome with one insert and is
      // configured as its performance notes advise (purchases-worker.js).
      rereadAtOnce: true,
      asAdvised: true,
    });
    if (result.endedAt === undefined) return result;
    // Its first purchase after its clock started, and its rate from then on.
    const firstPost = await firstDebitAt(cell.count);
    return {
      ...result,
      firstPostMs: firstPost - (result.endedAt - result.seconds * 1000),
      afterFirstPostRate: cell.count / ((result.endedAt - firstPost) / 1000),
    };
  });
}

const run = {
  topsync: topsyncRun,
  "graphile-worker": (c, profile) => workerRun("graphile-worker", c, profile),
  "no-database": (c, profile) => workerRun("no-database", c, profile),
};

/** The machine as a cell starts: `node -e 0` (median of 3) and the load average of the last minute. */
function machineNow() {
  const runs = Array.from({ length: 3 }, () => {
    const started = performance.now();
    spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
    return performance.now() - started;
  });
  return { nodeMs: median(runs), load: loadavg()[0] };
}

let commit = "unknown";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
} catch {
  // not a git checkout
}

const rows = [];
try {
  for (const latency of [...new Set(grid.map((c) => c.latency))]) {
    sandbox = await startSandboxProcess({ latency });
    // Warm the sandbox up (its process's compiled code and heap), so that the first contender of the first round
    // does not pay for it: after 300 purchases, the first run of 2,000 took the sandbox 0.58 s of CPU and the third
    // 0.35 s; after 5,000, 0.49 and 0.38 s (bench/RESULTS.md, stop 43). Then topsync's code cache for `purchases run`.
    await workerRun("no-database", { count: latency === 0 ? 5000 : 1500 });
    await topsyncRun({ count: 50 });
    for (const cell of grid.filter((c) => c.latency === latency)) {
      for (const profile of profiles) {
        const before = machineNow();
        const rounds = [];
        for (let round = 0; round < ROUNDS; round++) {
          const results = {};
          for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
            // A run that fails for the machine's sake (a server out of connections) is run again, a few times.
            for (let attempt = 1; ; attempt++) {
              try {
                results[kind] = await run[kind](cell, profile);
                break;
              } catch (error) {
                if (!busyMachine(error) || attempt === 5) throw error;
                console.error(
                  `${profile} ${latency} ms N=${cell.count} round ${round + 1} ${kind} failed, again in 10 s: ${error.message}`,
                );
                await new Promise((resolve) => setTimeout(resolve, 10_000));
              }
            }
            console.error(
              `${profile} ${latency} ms N=${cell.count} round ${round + 1} ${kind}: ${results[kind].rate.toFixed(0)}/s` +
                ` (first POST ${results[kind].firstPostMs.toFixed(0)} ms, after it ${results[kind].afterFirstPostRate.toFixed(0)}/s)`,
            );
          }
          rounds.push(results);
        }
        const ratios = (kind) => rounds.map((r) => r.topsync.rate / r[kind].rate);
        const after = (kind) => rounds.map((r) => r.topsync.afterFirstPostRate / r[kind].afterFirstPostRate);
        rows.push({
          ...cell,
          profile,
          commit,
          nodeMs: before.nodeMs,
          load: [before.load, loadavg()[0]],
          rate: Object.fromEntries(KINDS.map((kind) => [kind, median(rounds.map((r) => r[kind].rate))])),
          seconds: median(rounds.map((r) => r.topsync.seconds)),
          firstPostMs: median(rounds.map((r) => r.topsync.firstPostMs)),
          vsGraphile: ratios("graphile-worker"),
          vsCeiling: ratios("no-database"),
          graphileFirstPostMs: median(rounds.map((r) => r["graphile-worker"].firstPostMs)),
          loopFirstPostMs: median(rounds.map((r) => r["no-database"].firstPostMs)),
          afterFirstPost: after("graphile-worker"),
          afterFirstPostVsLoop: after("no-database"),
          steps: Object.fromEntries(
            STEPS.map((step) => [step, median(rounds.map((r) => r.topsync.steps[step] ?? Number.NaN))]),
          ),
        });
      }
    }
    await sandbox.stop();
    sandbox = undefined;
  }
  if (CELLS) printCells(rows);
  else await writeResults(rows);
} finally {
  await cleanUp();
}

/** BENCH_CELLS: each cell's ratios on the terminal, nothing written. */
function printCells(rows) {
  for (const row of rows)
    console.log(
      `${row.profile} ${row.latency} ms N=${row.count} (${row.commit}, node -e 0 ${row.nodeMs.toFixed(0)} ms, load ${row.load.map((l) => l.toFixed(1)).join("→")}): ` +
        `÷ graphile-worker ${pct(median(row.vsGraphile))} (${row.vsGraphile.map(pct).join(" ")}), ` +
        `÷ no database ${pct(median(row.vsCeiling))} (${row.vsCeiling.map(pct).join(" ")}), first POST ${row.firstPostMs.toFixed(0)} ms ` +
        `(graphile-worker ${row.graphileFirstPostMs.toFixed(0)} ms), after it ÷ graphile-worker ${pct(median(row.afterFirstPost))} ` +
        `(${row.afterFirstPost.map(pct).join(" ")}), ÷ no database ${pct(median(row.afterFirstPostVsLoop))} (${row.afterFirstPostVsLoop.map(pct).join(" ")}); ` +
        `topsync's steps (ms since start) ${STEPS.map((step) => `${step} ${row.steps[step]?.toFixed(0)}`).join(", ")}`,
    );
}

/** The fixed costs of each command, then the section of bench/RESULTS.md with every figure. */
async function writeResults(rows) {
  // ---- fixed costs: each command on an empty, migrated ledger, spawn to exit
  // (plan reads the live catalogue: the sandbox answers it.)
  sandbox = await startSandboxProcess({ latency: 0 });
  const fixed = await withDatabase(async (database) => {
    const small = writeConfig("small", {
      resellerUrl: sandbox.resellerUrl,
      analyticsUrl: sandbox.analyticsUrl,
      databaseUrl: database.url,
      count: 3,
    });
    const large = writeConfig("large", {
      resellerUrl: sandbox.resellerUrl,
      databaseUrl: database.url,
      count: 10000,
    });
    await migrated(small);
    // name, arguments, target in ms (none for --help)
    const commands = [
      ["topsync --help", ["--help"]],
      ["migrate (nothing to apply)", ["migrate", "-c", small], 150],
      ["config check, 10,000 inline recipients", ["config", "check", "-c", large], 150],
      ["purchases list", ["purchases", "list", "-c", small], 250],
      ["purchases show 1 (no such purchase)", ["purchases", "show", "1", "-c", small], 250],
      ["report", ["report", "-c", small], 250],
      ["plan", ["plan", "-c", small], 250],
    ];
    const figures = [];
    for (const [name, args, target] of commands) {
      // The first run after an install has no code cache yet (it writes it); then FIXED_ROUNDS timed runs.
      const first = await timeCommand(args);
      const runs = [];
      for (let i = 0; i < FIXED_ROUNDS; i++) runs.push((await timeCommand(args)).ms);
      const uncached = [];
      for (let i = 0; i < 3; i++)
        uncached.push((await timeCommand(args, { TOPSYNC_COMPILE_CACHE: "off" })).ms);
      const withoutCa = [];
      if (process.env.NODE_EXTRA_CA_CERTS)
        for (let i = 0; i < FIXED_ROUNDS; i++)
          withoutCa.push((await timeCommand(args, {}, ["NODE_EXTRA_CA_CERTS"])).ms);
      figures.push({
        name,
        target,
        code: first.code,
        first: first.ms,
        median: median(runs),
        uncached: median(uncached),
        withoutCa: withoutCa.length ? median(withoutCa) : undefined,
      });
      console.error(`${name}: median ${median(runs).toFixed(0)} ms (exit ${first.code})`);
    }
    const bare = [];
    const bareWithoutCa = [];
    for (let i = 0; i < FIXED_ROUNDS; i++) {
      for (const [list, env] of [
        [bare, process.env],
        [bareWithoutCa, { ...process.env, NODE_EXTRA_CA_CERTS: "" }],
      ]) {
        const started = performance.now();
        await new Promise((resolve) => spawn(process.execPath, ["-e", "0"], { env }).once("exit", resolve));
        list.push(performance.now() - started);
      }
    }
    // The config of 10,000 recipients loaded in-process, in a fresh process, as a command loads it (cold).
    const inProcess = [];
    for (let i = 0; i < 5; i++) {
      const loaded = await runWorker("load-config.js", { file: large });
      inProcess.push(loaded.ms);
    }
    return {
      figures,
      bare: median(bare),
      bareWithoutCa: median(bareWithoutCa),
      loadInProcess: median(inProcess),
    };
  });

  const rounds = (xs) => `**${pct(median(xs))}** (${xs.map(pct).join(" ")})`;
  const profileName = (row) => `\`${row.profile}\``;
  const machineAt = (row) =>
    `${row.commit}, \`node -e 0\` ${row.nodeMs.toFixed(0)} ms, load ${row.load.map((l) => l.toFixed(1)).join(" → ")}`;
  const table = rows
    .map(
      (row) =>
        `| ${profileName(row)} | ${row.count.toLocaleString("en")} | ${row.latency} ms | ${row.rate.topsync.toFixed(0)}/s (${row.seconds.toFixed(2)} s) | ${row.rate["graphile-worker"].toFixed(0)}/s | ${row.rate["no-database"].toFixed(0)}/s | ${rounds(row.vsGraphile)} | ${rounds(row.vsCeiling)} | ${row.firstPostMs.toFixed(0)} ms | ${machineAt(row)} |`,
    )
    .join("\n");
  const verdicts = rows
    .map((row) => {
      const ratio = median(row[row.target.vs]);
      const against = row.target.vs === "vsGraphile" ? "graphile-worker" : "the no-database loop";
      const steady =
        row.latency > 0
          ? `; after the first POST ${pct(median(row.afterFirstPostVsLoop))} of the loop's rate, target ${pct(STEADY_TARGET)}: **${median(row.afterFirstPostVsLoop) >= STEADY_TARGET ? "met" : "not met"}**`
          : "";
      return `- ${profileName(row)}, N = ${row.count.toLocaleString("en")} at ${row.latency} ms: ${pct(ratio)} of ${against}, target ${pct(row.target.ratio)}: **${ratio >= row.target.ratio ? "met" : "not met"}**${steady}`;
    })
    .concat(
      rows
        .filter((row) => row.count === 10000)
        .map(
          (row) =>
            `- ${profileName(row)}, first POST at N = 10,000: ${row.firstPostMs.toFixed(0)} ms, target under ${FIRST_POST_TARGET_MS} ms: **${row.firstPostMs < FIRST_POST_TARGET_MS ? "met" : "not met"}**`,
        ),
    )
    .join("\n");
  const phases = rows
    .map(
      (row) =>
        `| ${profileName(row)} | ${row.count.toLocaleString("en")} | ${row.latency} ms | ${row.firstPostMs.toFixed(0)} ms | ${row.graphileFirstPostMs.toFixed(0)} ms | ${row.loopFirstPostMs.toFixed(0)} ms | ${rounds(row.afterFirstPost)} | ${rounds(row.afterFirstPostVsLoop)} |`,
    )
    .join("\n");
  const ms = (value) => (Number.isFinite(value) ? value.toFixed(0) : "–");
  const steps = rows
    .map(
      (row) =>
        `| ${profileName(row)} | ${row.count.toLocaleString("en")} | ${row.latency} ms | ${STEPS.map((step) => ms(row.steps[step])).join(" | ")} | ${ms(row.steps.exit - row.steps.settled)} |`,
    )
    .join("\n");
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const fixedTable = fixed.figures
    .map(
      (f) =>
        `| ${f.name} | **${f.median.toFixed(0)} ms** | ${f.first.toFixed(0)} ms | ${f.uncached.toFixed(0)} ms |${ca ? ` ${f.withoutCa.toFixed(0)} ms |` : ""} ${f.code} | ${f.target ? `< ${f.target} ms: ${f.median < f.target ? "met" : "**not met**"}` : ""} |`,
    )
    .join("\n");
  const caCerts = ca
    ? ` This machine sets NODE_EXTRA_CA_CERTS (${ca}), which Node.js reads and parses at every start (\`node -e 0\`: ${fixed.bare.toFixed(0)} ms with it, ${fixed.bareWithoutCa.toFixed(0)} ms without): it is in every figure here, as in every command run on this machine; the column "without it" is the same command with the variable unset, as on a machine that does not set it.`
    : "";
  writeSection(
    "Commands, spawn to exit",
    `
Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:command\` on ${machine()}, 2 cores shared by the
command, the sandbox (its own process) and PostgreSQL 15.

**A purchase run as an operator waits for it**: \`topsync purchases run --job campaign --now\` timed from spawn to
exit, N recipients inline in its config.yaml, on a fresh database already migrated, concurrency ${CONCURRENCY}: the
command loads its config, reads the catalogue, queues the N purchases, buys and verifies each to a final status
(one POST, then verify reads until success). Beside it, the same buy-and-verify work done by **graphile-worker 0.17**
(the clock starts before its \`addJobs\` of N, with its worker already running; its task records each outcome with
one insert into a results table; a local queue of ${CONCURRENCY + 1}, a pool of ${CONCURRENCY + 2}, completions and failures
written at once; done when its jobs table is empty) and by the **no-database loop** (the same HTTP calls only: this
machine's ceiling). Both re-read at once after a \`pending\` answer.

Two provider profiles, each set on the sandbox before every run: \`sandbox\`, whose verify answers not found on the
first read of a transaction, \`pending\` on the next, then the final status; and \`pending-once\`, whose verify answers
\`pending\` on the first read and the final status on the next, with no not-found window (a provider nearly, not
fully, up to date).

A round runs each contender once (every other round in reverse order); the ratios are topsync's rate over the
other's, per round, and their median (bold). ${ROUNDS} rounds per cell and profile. "First POST" is the median time from
the spawn to the sandbox receiving the first purchase. Each row names the commit, \`node -e 0\` timed as the cell
started, and the load average (1 minute) at its start and end: this machine is shared, and a cell measured at a
load of 10 says less than one measured idle, though the contenders of a round share the same machine.

| profile | N | latency | topsync (spawn to exit) | graphile-worker | no database | topsync ÷ graphile-worker | topsync ÷ no database | first POST | commit, machine |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
${table}

Targets, for both profiles: at 0 ms at least graphile-worker's rate at N = 10,000 and 0.9 of it at 2,000; at
20 ms at least 0.95 of the no-database loop at 4,000 and 0.9 at 1,000, and from the first POST on at least
${pct(STEADY_TARGET)} of the loop's rate; the first POST under ${FIRST_POST_TARGET_MS} ms at N = 10,000.

${verdicts}

**Where the difference lies.** Each contender's run in two parts: from its clock's start to the sandbox taking its first
purchase (topsync: the spawn, so starting Node.js, loading the config, opening the ledger, writing the first rows and
claiming them; graphile-worker, already running: its \`addJobs\` of N and its first fetch; the loop: its first
call), and from that first purchase to the end, where all do the same buying and verifying. The ratios are topsync's
rate over the other's in that second part, per round, and their median.

| profile | N | latency | topsync: spawn to first POST | graphile-worker: addJobs to first POST | loop: first POST | after the first POST: topsync ÷ graphile-worker | after the first POST: topsync ÷ no database |
|---|---:|---:|---:|---:|---:|---:|---:|
${phases}

**Where topsync's time goes**: the steps of its runs above as \`TOPSYNC_TIMINGS=1\` marks them (src/timings.ts), in ms
since its process started (the spawn is a millisecond or two earlier), medians of the rounds. \`node\`: Node.js's own
start done (reading NODE_EXTRA_CA_CERTS where set is in it); \`main\`: the bundle loaded (src/cli.cts) and the command
line's first line; \`config\`: the config read and checked; \`ledger\`: connected, migrations checked; \`catalogue\`:
the reseller's networks and plans read; \`rows\`: the fire's first batch of rows written; \`claimed\`: the first claim
done; \`post\`: the first purchase sent; \`settled\`: the last purchase settled; \`done\`: the command returned
(the summary written, connections closed); \`exit\`: the process exiting. The last column is what follows the last
purchase's settling.

| profile | N | latency | ${STEPS.join(" | ")} | settled → exit |
|---|---:|---:|${STEPS.map(() => "---:").join("|")}|---:|
${steps}

**Fixed costs**, each command on an empty migrated ledger, spawn to exit: the median of ${FIXED_ROUNDS} runs; beside it the
first run after a build (it compiles everything and writes the code cache, src/cli.cts) and the median of 3 runs with
the code cache off (\`TOPSYNC_COMPILE_CACHE=off\`). \`node -e 0\` alone takes ${fixed.bare.toFixed(0)} ms here.${caCerts}

| command | median | first run | cache off |${ca ? " without NODE_EXTRA_CA_CERTS |" : ""} exit code | target (median) |
|---|---:|---:|---:|${ca ? "---:|" : ""}---:|---|
${fixedTable}

Loading the config of 10,000 inline recipients in-process (\`loadConfig\`, in a fresh process, as a command does):
median **${fixed.loadInProcess.toFixed(0)} ms** of 5.
`,
  );
}
