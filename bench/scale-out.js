// `npm run bench:scale-out`: N queued purchases (30,000 by default; BENCH_SCALE_OUT_COUNT sets it) drained by 1, 2
// and 3 replicas of `topsync run` on one PostgreSQL database, beside the same work done by as many graphile-worker
// processes, in the same run. The sandbox runs in its own process at 100 ms latency (real providers answer in
// 100 ms to 2 s); every process buys and verifies with the reseller concurrency of config.yaml. Figures go to
// bench/RESULTS.md: purchases per second, p99 time from queued to succeeded, CPU per purchase of the workers and
// of PostgreSQL.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { parse, stringify } from "yaml";
import { CLI, createDatabase, machine, ROOT, startSandboxProcess, writeSection } from "./lib.js";

const COUNT = Number(process.env.BENCH_SCALE_OUT_COUNT ?? 30_000);
const REPLICAS = (process.env.BENCH_SCALE_OUT_REPLICAS ?? "1,2,3").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_SCALE_OUT_ROUNDS ?? 1);
const LATENCY_MS = 100;
/** The reseller concurrency an operator gets from the shipped config.yaml: requests in flight per process. */
const CONCURRENCY = parse(readFileSync(join(ROOT, "config.yaml"), "utf8")).reseller.concurrency;
/** The wait before each status read, for both contenders (topsync: verification.initial_delay and max_interval). */
const VERIFY_DELAY_MS = 1;
const POLL_MS = 250;
const FINAL = ["succeeded", "failed", "rejected", "in_doubt", "unverified", "cancelled"];
if (!Number.isInteger(COUNT) || COUNT < 1)
  throw new Error(`BENCH_SCALE_OUT_COUNT must be a whole number above 0`);
for (const n of REPLICAS)
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_SCALE_OUT_REPLICAS must list whole numbers above 0`);

// ------------------------------------------------------------------------------------------------- CPU from /proc

const TICKS = 100; // USER_HZ on Linux
/** CPU seconds (utime + stime) of a process, or undefined once it has gone. */
function processCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/**
 * CPU of the PostgreSQL server processes of one database, sampled while the purchases run: the backends
 * pg_stat_activity lists for it (the contender's connections and autovacuum workers on it), apart from this
 * benchmark's own monitoring session; and, in a column of its own, the server's background writers (WAL writer,
 * checkpointer, background writer), which serve every database of the server. Backends that come and go are
 * counted from when they start (or from the start of the phase) to the last sample that saw them.
 */
class PostgresCpu {
  constructor(sql, database) {
    this.sql = sql;
    this.database = database;
    this.backends = new Map();
    this.background = new Map();
  }

  async sample(phaseStart) {
    const sessions = await this.sql`
      select pid, backend_type, datname, backend_start from pg_stat_activity
      where (datname = ${this.database} and pid <> pg_backend_pid())
         or backend_type in ('walwriter', 'checkpointer', 'background writer')`;
    for (const s of sessions) {
      const cpu = processCpu(s.pid);
      if (cpu === undefined) continue;
      const map = s.datname === this.database ? this.backends : this.background;
      const seen = map.get(s.pid);
      if (seen) seen.last = cpu;
      else {
        const startedDuring = phaseStart !== undefined && s.backend_start.getTime() >= phaseStart;
        map.set(s.pid, { base: startedDuring ? 0 : cpu, last: cpu });
      }
    }
  }

  totals() {
    const sum = (map) => [...map.values()].reduce((a, { base, last }) => a + last - base, 0);
    return { backends: sum(this.backends), background: sum(this.background) };
  }
}

// ------------------------------------------------------------------------------------------------- the contenders

/** Starts `count` processes, resolves with them once each is ready. */
async function startProcesses(count, start) {
  const processes = [];
  try {
    for (let i = 0; i < count; i++) processes.push(await start(i));
    await Promise.all(processes.map((p) => p.ready));
  } catch (error) {
    for (const p of processes) p.child.kill("SIGKILL");
    throw error;
  }
  return processes;
}

function track(child, name) {
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  return { child, pid: child.pid, exited, tail: () => `${name} ${child.pid}: ${stderr}` };
}

async function stopProcesses(processes) {
  for (const p of processes) p.child.kill("SIGTERM");
  return Promise.all(processes.map((p) => p.exited));
}

async function waitReady(port, child) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (child.exitCode !== null)
      throw new Error(`a replica exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`a replica was not ready within 60 s`);
}

/** A port nothing listens on now (the machine is shared: fixed ports may be taken). */
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * topsync: `replicas` processes of `topsync run` (dist/cli.cjs) with the intake on, each with its own config file
 * and port. The purchases enter as a CRM asks for them: one insert of every row into `purchase_requests` (its
 * trigger wakes every replica), which the replicas move into the ledger as `queued` and buy.
 */
const topsync = {
  name: "topsync run",
  async prepare(database, sandbox) {
    const dir = mkdtempSync(join(tmpdir(), "topsync-scale-out-"));
    const config = (port) => {
      const file = join(dir, `replica-${port}.yaml`);
      writeFileSync(
        file,
        stringify({
          reseller: {
            base_url: sandbox.resellerUrl,
            api_key: "sandbox-reseller-key",
            timeout: { connect: "5s", headers: "15s", body: "15s", total: "60s" },
            concurrency: CONCURRENCY,
            // config.yaml's 20 requests a second per replica would be the limit, not the fleet (see the section)
            rate_limit: 1_000_000,
            retry: { max_attempts: 5, base_delay: "200ms", max_delay: "30s" },
          },
          analytics: { base_url: sandbox.analyticsUrl, api_key: "sandbox-analytics-key" },
          database: { url: database.url, pglite_dir: join(dir, "pglite") },
          verification: {
            initial_delay: `${VERIFY_DELAY_MS}ms`,
            max_interval: `${VERIFY_DELAY_MS}ms`,
            timeout: "10m",
            horizon: "72h",
          },
          intake: { enabled: true, poll_interval: "30s", batch_size: 500 },
          server: { host: "127.0.0.1", port, shutdown_grace: "30s" },
          log: { level: "warn" },
        }),
      );
      return file;
    };
    const migrated = spawn(process.execPath, [CLI, "-c", config(9464), "migrate"], { stdio: "inherit" });
    const code = await new Promise((resolve) => migrated.once("exit", resolve));
    if (code !== 0) throw new Error(`topsync migrate exited with ${code}`);
    return { dir, config };
  },
  async start(prepared) {
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, "-c", prepared.config(port), "run"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const p = track(child, "topsync run");
    return {
      ...p,
      ready: waitReady(port, child).catch((error) => {
        throw new Error(`${error.message}\n${p.tail()}`);
      }),
    };
  },
  async queue(sql) {
    await sql`
      insert into purchase_requests (request_key, network, plan_id, phone, requested_by)
      select 'crm:' || n, 'MTN', '102', '0803' || (1000000 + n)::text, 'bench'
      from generate_series(0, ${COUNT - 1}::int) as n`;
  },
  async finished(sql) {
    const [{ n }] = await sql`select count(*)::int as n from purchases where state in ${sql(FINAL)}`;
    return n;
  },
  /** Queued: the intake row's created_at (the CRM's insert); done: the purchase's settled_at. */
  async outcome(sql) {
    const [row] = await sql`
      select count(*) filter (where p.state = 'succeeded')::int as succeeded,
             count(*) filter (where p.state <> 'succeeded')::int as other,
             extract(epoch from max(p.settled_at) - min(r.created_at))::float8 as span,
             extract(epoch from percentile_cont(0.5) within group (order by p.settled_at - r.created_at))::float8 as p50,
             extract(epoch from percentile_cont(0.99) within group (order by p.settled_at - r.created_at))::float8 as p99
      from purchase_requests r join purchases p on p.id = r.purchase_id`;
    return row;
  },
  async cleanup(prepared) {
    rmSync(prepared.dir, { recursive: true, force: true });
  },
};

/**
 * graphile-worker: `replicas` processes of bench/scale-out-graphile.js, each at the same concurrency. The
 * purchases enter as one `addJobs` of every job (one statement), with the workers already polling.
 */
const graphile = {
  name: "graphile-worker",
  async prepare(database) {
    const { makeWorkerUtils } = await import("graphile-worker");
    const utils = await makeWorkerUtils({ connectionString: database.url });
    await utils.migrate();
    await utils.withPgClient((client) =>
      client.query(
        "create table bench_results (phone text primary key, status text not null, queued_at timestamptz not null, done_at timestamptz not null)",
      ),
    );
    return { utils, database };
  },
  async start(prepared, _i, sandbox) {
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL("scale-out-graphile.js", import.meta.url)),
        JSON.stringify({
          databaseUrl: prepared.database.url,
          resellerUrl: sandbox.resellerUrl,
          concurrency: CONCURRENCY,
          verifyDelayMs: VERIFY_DELAY_MS,
        }),
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    const p = track(child, "graphile-worker");
    const ready = new Promise((resolve, reject) => {
      child.once("exit", (code) =>
        reject(new Error(`a graphile-worker process exited with ${code}: ${p.tail()}`)),
      );
      child.stdout.on("data", (chunk) => {
        if (String(chunk).includes("ready")) resolve();
      });
    });
    return { ...p, ready };
  },
  async queue(_sql, prepared) {
    const phones = Array.from({ length: COUNT }, (_, n) => `0803${1_000_000 + n}`);
    await prepared.utils.addJobs(
      phones.map((phone) => ({ identifier: "buy", payload: { phone }, maxAttempts: 1 })),
    );
  },
  async finished(sql) {
    const [{ n }] = await sql`select count(*)::int as n from bench_results`;
    return n;
  },
  /** Queued: the job's created_at (the addJobs statement); done: when its result row was inserted. */
  async outcome(sql) {
    const [row] = await sql`
      select count(*) filter (where status = 'succeeded')::int as succeeded,
             count(*) filter (where status <> 'succeeded')::int as other,
             extract(epoch from max(done_at) - min(queued_at))::float8 as span,
             extract(epoch from percentile_cont(0.5) within group (order by done_at - queued_at))::float8 as p50,
             extract(epoch from percentile_cont(0.99) within group (order by done_at - queued_at))::float8 as p99
      from bench_results`;
    return row;
  },
  async cleanup(prepared) {
    await prepared.utils.release();
  },
};

/**
 * One cell: fresh database, `replicas` processes up and idle, then every purchase queued in one statement. The
 * clock runs from that statement's start (the rows' own queued time, read back from the database) to the last
 * purchase settled; CPU is counted from just before the statement to the moment the last one settled.
 */
async function measure(contender, replicas, sandbox) {
  const database = await createDatabase("topsync_scaleout");
  const name = new URL(database.url).pathname.slice(1);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  const prepared = await contender.prepare(database, sandbox);
  let processes = [];
  try {
    await sandbox.admin("reset", {});
    processes = await startProcesses(replicas, (i) => contender.start(prepared, i, sandbox));
    await sleep(1000); // past start-up work (catch-up, first sweep)
    const pg = new PostgresCpu(sql, name);
    await pg.sample();
    const workerBase = processes.map((p) => processCpu(p.pid));
    const phaseStart = Date.now();
    await contender.queue(sql, prepared);
    let last = 0;
    let lastChange = Date.now();
    for (;;) {
      await sleep(POLL_MS);
      await pg.sample(phaseStart);
      const done = await contender.finished(sql);
      if (done >= COUNT) break;
      if (done !== last) [last, lastChange] = [done, Date.now()];
      if (Date.now() - lastChange > 120_000)
        throw new Error(
          `${contender.name} × ${replicas}: stuck at ${done} of ${COUNT}\n${processes.map((p) => p.tail()).join("\n")}`,
        );
    }
    const workerCpu = processes.reduce((a, p, i) => a + (processCpu(p.pid) ?? 0) - (workerBase[i] ?? 0), 0);
    await pg.sample(phaseStart);
    const outcome = await contender.outcome(sql);
    const postgresCpu = pg.totals();
    const result = {
      replicas,
      rate: outcome.succeeded / outcome.span,
      ...outcome,
      workerCpuMs: (workerCpu / COUNT) * 1000,
      postgresCpuMs: (postgresCpu.backends / COUNT) * 1000,
      backgroundCpuMs: (postgresCpu.background / COUNT) * 1000,
    };
    console.error(
      `${contender.name} × ${replicas}: ${result.rate.toFixed(1)}/s, p99 ${result.p99.toFixed(2)} s, ` +
        `worker ${result.workerCpuMs.toFixed(2)} ms, PostgreSQL ${result.postgresCpuMs.toFixed(2)} ms per purchase` +
        (outcome.other > 0 ? `, ${outcome.other} not succeeded` : ""),
    );
    return result;
  } finally {
    const codes = await stopProcesses(processes);
    if (codes.some((code) => code !== 0))
      console.error(
        `${contender.name}: exit codes ${codes.join(", ")}\n${processes.map((p) => p.tail()).join("\n")}`,
      );
    await contender.cleanup(prepared);
    await sql.end();
    await database.drop();
  }
}

// ------------------------------------------------------------------------------------------------- the run

const uptime = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(", ");
const sandbox = await startSandboxProcess({
  latency: LATENCY_MS,
  resellerPort: await freePort(),
  analyticsPort: await freePort(),
  extra: ["--receiver-port", String(await freePort())],
});
const rounds = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const cells = {};
    for (const [index, replicas] of REPLICAS.entries()) {
      // Every other cell (and round) runs graphile-worker first, so neither always sees the machine first.
      const order = (index + round) % 2 === 0 ? [topsync, graphile] : [graphile, topsync];
      cells[replicas] = {};
      for (const contender of order)
        cells[replicas][contender.name] = await measure(contender, replicas, sandbox);
    }
    rounds.push(cells);
  }
} finally {
  await sandbox.stop();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figure = (replicas, name, key) => median(rounds.map((r) => r[replicas][name][key]));
const one = REPLICAS[0];
const rows = REPLICAS.map((n) => {
  const t = (key) => figure(n, topsync.name, key);
  const g = (key) => figure(n, graphile.name, key);
  return {
    n,
    t,
    g,
    scale: t("rate") / figure(one, topsync.name, "rate"),
    gScale: g("rate") / figure(one, graphile.name, "rate"),
  };
});
const fixed = (x, digits = 1) => x.toFixed(digits);
/** What the latency allows: each process has `CONCURRENCY` calls in flight and a purchase is four round trips. */
const CEILING = CONCURRENCY / ((4 * LATENCY_MS) / 1000);
/** topsync ÷ graphile-worker in each round (both ran in it, one after the other). */
const vsGraphile = (n) => rounds.map((r) => r[n][topsync.name].rate / r[n][graphile.name].rate);
const pct = (x) => `${fixed(x * 100, 0)}%`;
const rateTable = rows
  .map(
    ({ n, t, g, scale, gScale }) =>
      `| ${n} | ${fixed(t("rate"))}/s | ${fixed(scale, 2)}× | ${pct(t("rate") / (n * CEILING))} | ${fixed(g("rate"))}/s | ${fixed(gScale, 2)}× | ${pct(g("rate") / (n * CEILING))} | ${pct(median(vsGraphile(n)))} | ${vsGraphile(n).map(pct).join(" ")} | ${fixed(t("p50"), 1)} s / ${fixed(t("p99"), 1)} s | ${fixed(g("p50"), 1)} s / ${fixed(g("p99"), 1)} s |`,
  )
  .join("\n");
const cpuTable = rows
  .map(
    ({ n, t, g }) =>
      `| ${n} | ${fixed(t("workerCpuMs"), 2)} ms | ${fixed(t("postgresCpuMs"), 2)} ms | ${fixed(g("workerCpuMs"), 2)} ms | ${fixed(g("postgresCpuMs"), 2)} ms | ${fixed(t("backgroundCpuMs"), 2)} / ${fixed(g("backgroundCpuMs"), 2)} ms |`,
  )
  .join("\n");
const top = rows.at(-1);
const scaled = top.scale >= 0.9 * top.n;
const ahead = rows.every(({ n }) => median(vsGraphile(n)) > 1);
const pgMs = median(rows.map(({ t }) => t("postgresCpuMs")));
const perCore = 1000 / pgMs;
const notSucceeded = rows.flatMap(({ n, t, g }) =>
  t("other") + g("other") > 0 ? [`${n}: topsync ${t("other")}, graphile-worker ${g("other")}`] : [],
);

writeSection(
  "Scale-out",
  `
Measured by \`${process.env.BENCH_SCALE_OUT_COUNT ? `BENCH_SCALE_OUT_COUNT=${COUNT} ` : ""}npm run bench:scale-out\` on ${machine()}, 2 cores
**shared with other engineers' work** (load average ${uptime} when it started, by \`/proc/loadavg\`), one
PostgreSQL server. ${COUNT.toLocaleString("en")} purchases drained by ${REPLICAS.join(", ")} processes of each
contender, the sandbox in its own process at ${LATENCY_MS} ms latency, ${ROUNDS} round${ROUNDS > 1 ? "s (medians)" : ""}; in each
cell the two contenders run one after the other (every other cell graphile-worker first). Every process has the
reseller concurrency of config.yaml (${CONCURRENCY} requests in flight) and does the same work per purchase: the POST,
then status reads ${VERIFY_DELAY_MS} ms apart until final (the sandbox answers 404, then pending, then success: four round trips).

- **topsync**: \`topsync run\` replicas (dist/cli.cjs), intake on. The purchases enter as a CRM asks for them: one
  insert of every row into \`purchase_requests\`, with every replica up and idle; its trigger wakes the replicas,
  which move the rows into the ledger as \`queued\`, claim them (\`FOR UPDATE SKIP LOCKED\`), buy and verify them.
  \`rate_limit\` is lifted (config.yaml's 20 requests a second per replica would make each replica pace at 5
  purchases a second, and the figure that of the limiter).
- **graphile-worker 0.17**: processes of \`bench/scale-out-graphile.js\`, concurrency ${CONCURRENCY}, a local queue of
  ${CONCURRENCY * 4} and \`completeJobBatchDelay: 0\`; the purchases enter as one \`addJobs\` of every job with the workers
  polling; its task buys and verifies through the same HTTP client and records the outcome with one insert.

What is timed: from the queueing statement's start (the rows' own \`created_at\`) to the last purchase settled
(\`settled_at\` in the ledger; the result row's insert time for graphile-worker). Rate = purchases succeeded ÷ that
span. Time to done: each purchase's settled time minus its queued time, from those same timestamps (topsync's
includes the intake's move into the ledger). Every purchase is queued at once, so its time to done is mostly its wait
in the queue: the p99 is close to the whole drain, and falls as processes are added. "Of ceiling": the rate ÷ what
the latency allows, processes × ${CONCURRENCY} calls in flight ÷ four round trips of ${LATENCY_MS} ms (${fixed(CEILING, 0)} purchases a second per
process). "Each round": topsync ÷ graphile-worker in each round, both measured in it.

| processes | topsync | × one | of ceiling | graphile-worker | × one | of ceiling | topsync ÷ graphile | each round | topsync p50 / p99 | graphile p50 / p99 |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rateTable}

CPU per purchase (utime + stime from \`/proc/<pid>/stat\`, from just before the queueing statement to the last
purchase settled). Workers: the sum over the replicas' (or graphile-worker processes') own processes. PostgreSQL:
the server processes pg_stat_activity lists for the contender's database (its connections, and autovacuum on it),
sampled every ${POLL_MS} ms, this benchmark's own monitoring session left out. The last column is the server's WAL
writer, checkpointer and background writer over the same span: they serve every database of the server, so
other engineers' work lands there too.

| processes | topsync workers | topsync PostgreSQL | graphile workers | graphile PostgreSQL | PG background (topsync / graphile) |
|---:|---:|---:|---:|---:|---:|
${cpuTable}

**Targets.** ${top.n} replicas ≥ ${fixed(0.9 * top.n, 1)}× one: ${scaled ? "**met**" : "**not met**"} (${fixed(top.scale, 2)}×); ahead of graphile-worker at every count: ${ahead ? "**met**" : "**not met**"}.
${notSucceeded.length > 0 ? `Not succeeded (by processes): ${notSucceeded.join("; ")}.` : "Every purchase succeeded."}
PostgreSQL spent about ${fixed(pgMs, 2)} ms of CPU per topsync purchase (median over the counts): one core of
PostgreSQL serves about ${perCore.toFixed(0)} purchases a second before it, not the replicas, is the limit.
`,
);
console.log(rateTable);
console.log(cpuTable);
