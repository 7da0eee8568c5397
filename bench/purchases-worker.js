// One purchases benchmark run in its own process: topsync (PostgreSQL or PGlite), graphile-worker, or the
// no-database ceiling — the same buy-and-verify HTTP work each time. Prints one JSON line.
import { readdirSync, readFileSync } from "node:fs";
import { parseConfig } from "../dist/config/index.js";
import { openDatabase } from "../dist/db/client.js";
import { migrate } from "../dist/db/migrate.js";
import { ServiceClient } from "../dist/http/service-client.js";
import { silentLogger } from "../dist/log/logger.js";
import { executePurchases } from "../dist/purchases/executor.js";
import { insertPurchases } from "../dist/purchases/ledger.js";
import { ResellerClient } from "../dist/reseller/client.js";

const args = JSON.parse(process.argv[2]);
const { kind, count, concurrency, resellerUrl, databaseUrl } = args;
// Request keys are `<keyPrefix>:<phone>`: a benchmark that queues several runs into one ledger gives each its own.
const keyPrefix = args.keyPrefix ?? "bench";
const phones = Array.from({ length: count }, (_, i) => `0803${String(1_000_000 + i).padStart(7, "0")}`);
const VERIFY_DELAY_MS = 1;

function reseller() {
  return new ResellerClient(
    new ServiceClient({
      service: "reseller",
      baseUrl: resellerUrl,
      apiKey: "sandbox-reseller-key",
      timeout: { connect: 5000, headers: 15000, body: 15000 },
      concurrency,
      rateLimit: 1_000_000,
      retry: { max_attempts: 5, base_delay: 5, max_delay: 50 },
    }),
  );
}

/** Buy, then poll until a final status: the work every contender does per purchase. */
async function buyAndVerify(client, phone) {
  const answer = await client.buyData({ network_id: "1", plan_id: "102", phone_number: phone });
  if (!answer.accepted) return "failed";
  let pending = false;
  for (;;) {
    // With `rereadAtOnce`, a read after a `pending` answer goes at once, as an application polling a provider
    // that is nearly up to date would; the first read (and one after a 404) waits the verify delay.
    if (!(pending && args.rereadAtOnce)) await new Promise((resolve) => setTimeout(resolve, VERIFY_DELAY_MS));
    const v = await client.verifyTransaction(answer.reference);
    if (v.found && v.status !== "pending" && v.status !== "unknown") return v.status;
    pending = v.found;
  }
}

function config() {
  const yaml = `
reseller: { base_url: "${resellerUrl}", api_key: sandbox-reseller-key, concurrency: ${concurrency}, rate_limit: 1000000,
  retry: { max_attempts: 5, base_delay: 5ms, max_delay: 50ms } }
analytics: { base_url: "http://127.0.0.1:1", api_key: x }
verification: { initial_delay: ${VERIFY_DELAY_MS}ms, max_interval: ${VERIFY_DELAY_MS}ms, timeout: 60s }
`;
  return parseConfig(yaml, "bench.yaml", {}).config;
}

/** Queues `count` purchases in the ledger. For the memory figure this runs in its own process first. */
async function queue(database) {
  await migrate(database.db);
  for (let i = 0; i < count; i += 5000) {
    await insertPurchases(
      database.db,
      phones.slice(i, i + 5000).map((phone) => ({
        request_key: `${keyPrefix}:${phone}`,
        source: "intake",
        network: "MTN",
        plan_id: "102",
        phone,
        ported: false,
      })),
      "bench",
    );
  }
}

async function seed() {
  const database = await openDatabase({ url: databaseUrl, maxConnections: 2 });
  await queue(database);
  await database.close();
  return { seconds: 0, done: count };
}

async function topsync(databaseOptions) {
  const database = await openDatabase({ ...databaseOptions, maxConnections: Math.min(20, concurrency + 4) });
  if (!args.seeded) await queue(database);
  const client = reseller();
  const started = performance.now();
  startPhase();
  const summary = await executePurchases(
    { database, reseller: client, config: config(), logger: silentLogger() },
    { concurrency },
  );
  const seconds = (performance.now() - started) / 1000;
  endPhase();
  await client.close();
  await database.close();
  return { seconds, done: summary.succeeded + summary.failed };
}

async function noDatabase() {
  const client = reseller();
  const started = performance.now();
  startPhase();
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const phone = phones[next++];
        await buyAndVerify(client, phone);
        done++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // When the last purchase was done, by the wall clock (bench:command compares it with the sandbox's first debit).
  const endedAt = Date.now();
  endPhase();
  await client.close();
  return { seconds, done, endedAt };
}

async function graphileWorker() {
  const { run, makeWorkerUtils } = await import("graphile-worker");
  const postgres = (await import("postgres")).default;
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  await sql`create table bench_results (phone text primary key, status text not null)`;
  const utils = await makeWorkerUtils({ connectionString: databaseUrl });
  await utils.migrate();
  const addAll = async () => {
    for (let i = 0; i < count; i += 5000) {
      await utils.addJobs(
        phones.slice(i, i + 5000).map((phone) => ({ identifier: "buy", payload: { phone }, maxAttempts: 1 })),
      );
    }
  };
  // bench:command times the adding too, as an operator waits for it, with the worker already started.
  if (!args.addTimed) await addAll();
  const client = reseller();
  let started = performance.now();
  startPhase();
  // `asAdvised`: configured as graphile-worker's performance notes advise (a local queue of concurrency + 1, a pool
  // of concurrency + 2, completions and failures written at once), and done when its jobs table is empty, which is
  // checked once its last job has completed instead of polling the results table.
  const advised = args.asAdvised === true;
  let completed = 0;
  let allCompleted;
  const lastCompleted = new Promise((resolve) => {
    allCompleted = resolve;
  });
  const runner = await run({
    connectionString: databaseUrl,
    concurrency,
    noHandleSignals: true,
    pollInterval: 100,
    ...(advised ? { maxPoolSize: concurrency + 2 } : {}),
    logger: new (await import("graphile-worker")).Logger(() => () => {}),
    taskList: {
      buy: async (payload, helpers) => {
        const status = await buyAndVerify(client, payload.phone);
        await helpers.query("insert into bench_results (phone, status) values ($1, $2)", [
          payload.phone,
          status,
        ]);
      },
    },
    preset: {
      worker: {
        localQueue: { size: advised ? concurrency + 1 : concurrency * 4 },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  });
  let failed = 0;
  if (advised) {
    runner.events.on("job:complete", () => {
      if (++completed === count) allCompleted();
    });
    runner.events.on("job:failed", () => {
      failed++;
    });
  }
  if (args.addTimed) {
    started = performance.now();
    startPhase();
    await addAll();
  }
  if (advised) {
    // A worker that stops (its pool refused by a server out of connections, as on a busy shared machine) fails the
    // run instead of leaving it waiting: so does one that completes nothing for a minute.
    let lastCount = -1;
    const stalled = new Promise((_, reject) => {
      const watch = setInterval(() => {
        if (completed === lastCount) {
          clearInterval(watch);
          reject(new Error(`graphile-worker completed nothing for 60 s (${completed} of ${count})`));
        }
        lastCount = completed;
      }, 60_000);
      lastCompleted.then(() => clearInterval(watch));
    });
    await Promise.race([lastCompleted, runner.promise.then(() => lastCompleted), stalled]);
    // The last completions are written in a batch a moment later: done when the jobs table is empty but for
    // jobs that failed for good (one attempt each: a failed purchase stays there, unlocked, and is not counted).
    for (;;) {
      const [{ left }] = await sql`select exists (select 1 from graphile_worker._private_jobs
        where locked_at is not null or attempts < max_attempts) as left`;
      if (!left) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } else {
    for (;;) {
      const [{ n }] = await sql`select count(*)::int as n from bench_results`;
      if (n >= count) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const seconds = (performance.now() - started) / 1000;
  // When the last purchase was done, by the wall clock (bench:command compares it with the sandbox's first debit).
  const endedAt = Date.now();
  endPhase();
  await runner.stop();
  await utils.release();
  await client.close();
  await sql.end();
  return { seconds, done: count - failed, failed, endedAt };
}

/**
 * CPU while the purchases run (setup and queueing excluded): of this process, of the sandbox, of every PostgreSQL
 * process, and of the whole machine.
 */
const phase = {};
function machineBusy() {
  const [user, nice, system, , , irq, softirq] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq) / 100;
}
/** CPU seconds (user + system) a process has used, from /proc; 0 for one that has gone. */
function processCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
/** CPU of every PostgreSQL server process, per pid (backends come and go, so the phase compares pid by pid). */
function postgresCpu() {
  const byPid = new Map();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") byPid.set(pid, processCpu(pid));
    } catch {}
  }
  return byPid;
}
function startPhase() {
  phase.cpu = process.cpuUsage();
  phase.busy = machineBusy();
  phase.elu = performance.eventLoopUtilization();
  phase.sandbox = args.sandboxPid ? processCpu(args.sandboxPid) : 0;
  phase.postgres = postgresCpu();
}
function endPhase() {
  const cpu = process.cpuUsage(phase.cpu);
  phase.workerCpuSeconds = (cpu.user + cpu.system) / 1e6;
  phase.machineCpuSeconds = machineBusy() - phase.busy;
  phase.eventLoopUtilization = performance.eventLoopUtilization(phase.elu).utilization;
  phase.sandboxCpuSeconds = args.sandboxPid ? processCpu(args.sandboxPid) - phase.sandbox : 0;
  let postgres = 0;
  for (const [pid, seconds] of postgresCpu()) postgres += seconds - (phase.postgres.get(pid) ?? 0);
  phase.postgresCpuSeconds = postgres;
}

const runs = {
  seed,
  "topsync-postgres": () => topsync({ url: databaseUrl }),
  "topsync-pglite": () => topsync({ pgliteDir: "memory://" }),
  "graphile-worker": graphileWorker,
  "no-database": noDatabase,
};
const result = await runs[kind]();
const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
result.cpuSeconds = (userCPUTime + systemCPUTime) / 1e6;
result.userSeconds = userCPUTime / 1e6;
result.switches =
  process.resourceUsage().voluntaryContextSwitches + "/" + process.resourceUsage().involuntaryContextSwitches;
console.log(
  JSON.stringify({
    kind,
    count,
    concurrency,
    ...result,
    rate: result.done / result.seconds,
    workerCpuSeconds: phase.workerCpuSeconds,
    machineCpuSeconds: phase.machineCpuSeconds,
    sandboxCpuSeconds: phase.sandboxCpuSeconds,
    postgresCpuSeconds: phase.postgresCpuSeconds,
    eventLoopUtilization: phase.eventLoopUtilization,
    peakRssMb: maxRSS / 1024,
  }),
);
process.exit(0);
