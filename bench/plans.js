// `npm run bench:plans`: saved plans as an operator uses them, spawn to exit, 10,000 purchases: `apply` of a saved plan
// against `purchases run` of the same job's fire (the same items, each bought and verified), and saving the plan
// (`purchases plan --save`) against the dry run it saves (`purchases run --dry-run`). Targets: apply ≥ 0.95× the
// run's rate; saving < 1.5× the dry run's time. Figures go to bench/RESULTS.md.
//
// Every database it uses it creates (topsync_bench_…) and drops, also on Ctrl-C; it never touches another.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, createDatabase, machine, startSandboxProcess, writeSection } from "./lib.js";

const COUNT = Number(process.env.BENCH_PLAN_ITEMS ?? 10_000);
const CONCURRENCY = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const FIRE = "2026-01-01T08:00:00Z";

const scratch = mkdtempSync(join(tmpdir(), "topsync-bench-plans-"));
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
    console.error(`bench:plans: ${signal}, cleaning up`);
    cleanUp().finally(() => process.exit(130));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (x) => `${(x * 100).toFixed(0)}%`;
const phones = (count) =>
  Array.from({ length: count }, (_, i) => `0803${String(1_000_000 + i).padStart(7, "0")}`);

function writeConfig(name, databaseUrl) {
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(
    file,
    `reseller:
  base_url: "${sandbox.resellerUrl}"
  api_key: sandbox-reseller-key
  concurrency: ${CONCURRENCY}
  rate_limit: 1000000
  retry: { max_attempts: 5, base_delay: 5ms, max_delay: 50ms }
analytics: { base_url: "${sandbox.analyticsUrl}", api_key: sandbox-analytics-key }
database: { url: "${databaseUrl}" }
verification: { initial_delay: 1ms, max_interval: 1ms, timeout: 60s }
purchases:
  - name: campaign
    plan: { network: MTN, plan_id: "102" }
    recipients:
${phones(COUNT)
  .map((phone) => `      - "${phone}"`)
  .join("\n")}
`,
  );
  return file;
}

function timeCommand(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TOPSYNC_LOG_LEVEL: "warn", TOPSYNC_COMPILE_CACHE: CODE_CACHE },
    });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`topsync ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve(performance.now() - started);
    });
  });
}

async function withDatabase(body) {
  const database = await createDatabase();
  live.add(database);
  try {
    return await body(writeConfig(database.url.split("/").pop(), database.url));
  } finally {
    live.delete(database);
    await database.drop();
  }
}

async function debits() {
  return (await sandbox.admin("debits")).debits.length;
}

/** `purchases run` of the fire: the reference for apply. */
async function runFire() {
  return withDatabase(async (config) => {
    await timeCommand(["migrate", "-c", config]);
    await sandbox.admin("reset", {});
    const ms = await timeCommand([
      "purchases",
      "run",
      "--job",
      "campaign",
      "--fire-time",
      FIRE,
      "-c",
      config,
    ]);
    if ((await debits()) !== COUNT) throw new Error("purchases run did not buy every item");
    return { rate: COUNT / (ms / 1000) };
  });
}

/** The dry run, the save of the same plan, and its apply, on one database. */
async function planAndApply() {
  return withDatabase(async (config) => {
    await timeCommand(["migrate", "-c", config]);
    const fire = ["--job", "campaign", "--fire-time", FIRE, "-c", config];
    const dryMs = await timeCommand(["purchases", "run", ...fire, "--dry-run"]);
    const file = join(scratch, "campaign.plan");
    const saveMs = await timeCommand(["purchases", "plan", ...fire, "--save", file]);
    await sandbox.admin("reset", {});
    const applyMs = await timeCommand(["apply", file, "-c", config]);
    if ((await debits()) !== COUNT) throw new Error("apply did not buy every item");
    return { dryMs, saveMs, rate: COUNT / (applyMs / 1000), applyMs };
  });
}

const rounds = [];
const load = loadavg()[0].toFixed(1);
try {
  sandbox = await startSandboxProcess({ latency: 0 });
  // A round not counted: the sandbox warms up, and each command's code cache (src/cli.cts) is written.
  await runFire();
  await planAndApply();
  for (let round = 0; round < ROUNDS; round++) {
    const pair = round % 2 === 0 ? [runFire, planAndApply] : [planAndApply, runFire];
    const results = {};
    for (const step of pair)
      Object.assign(results, step === runFire ? { run: await runFire() } : { plan: await planAndApply() });
    rounds.push(results);
    console.error(
      `round ${round + 1}: purchases run ${results.run.rate.toFixed(0)}/s, apply ${results.plan.rate.toFixed(0)}/s ` +
        `(${pct(results.plan.rate / results.run.rate)}); dry run ${results.plan.dryMs.toFixed(0)} ms, save ${results.plan.saveMs.toFixed(0)} ms ` +
        `(${(results.plan.saveMs / results.plan.dryMs).toFixed(2)}×)`,
    );
  }
  const applyRatio = median(rounds.map((r) => r.plan.rate / r.run.rate));
  const saveRatio = median(rounds.map((r) => r.plan.saveMs / r.plan.dryMs));
  const meets = (ok) => (ok ? "meets the target" : "misses the target");
  writeSection(
    "Saved plans",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:plans\` on ${machine()}, 2 cores shared with the
sandbox (its own process, 0 ms) and PostgreSQL 15; ${COUNT.toLocaleString("en")} purchases of one job's fire, inline in
config.yaml, reseller.concurrency ${CONCURRENCY}, no approval rules; each command timed from spawn to exit on a migrated
database; ${ROUNDS} rounds, alternating which goes first; ratios are medians of each round's own ratio. Load average
${load} at the start (other work on the machine): single rounds swing widely, so read the median and the spread.

**Targets:** \`apply\` of the saved plan ≥ 0.95× the rate of \`purchases run\` over the same items:
${pct(applyRatio)} — ${meets(applyRatio >= 0.95)}; saving the plan < 1.5× the time of the dry run it saves:
${saveRatio.toFixed(2)}× — ${meets(saveRatio < 1.5)}.

| round | purchases run | apply | apply ÷ run | dry run | save | save ÷ dry run |
|---:|---:|---:|---:|---:|---:|---:|
${rounds
  .map(
    (r, i) =>
      `| ${i + 1} | ${r.run.rate.toFixed(0)}/s | ${r.plan.rate.toFixed(0)}/s | ${pct(r.plan.rate / r.run.rate)} | ${r.plan.dryMs.toFixed(0)} ms | ${r.plan.saveMs.toFixed(0)} ms | ${(r.plan.saveMs / r.plan.dryMs).toFixed(2)}× |`,
  )
  .join("\n")}

What apply does beside the run: it reads the plan file and hashes its items, checks its record and approvals, reads
the ledger's rows of its 10,000 keys and the guard state for the stale check, and queues the items (in batches
growing from 125 to 1,000, buying from the first); the run writes the fire's rows the same way. Saving is the dry run's projection
plus hashing the items, one \`saved_plans\` row and the file.`,
  );
  console.log(`apply ÷ purchases run ${pct(applyRatio)}; save ÷ dry run ${saveRatio.toFixed(2)}×`);
} finally {
  await cleanUp();
}
