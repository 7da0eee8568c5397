// `npm run bench:purchases`: topsync on PostgreSQL and on PGlite, graphile-worker (batching on), and a
// no-database loop doing only the HTTP work, side by side on one sandbox process, in-process (bench:memory measures
// the memory of a run as an operator starts it). Figures go to bench/RESULTS.md.
import { createDatabase, machine, runWorker, startSandboxProcess, writeSection } from "./lib.js";

const KINDS = ["no-database", "topsync-postgres", "graphile-worker", "topsync-pglite"];
// Counts long enough for a steady rate: a 3,000-purchase cell at 0 ms spends a good part of its two seconds
// while V8 is still compiling the hot paths (of topsync and of graphile-worker alike).
const GRID = [
  { latency: 0, concurrency: 8, count: 6000 },
  { latency: 0, concurrency: 32, count: 10000 },
  { latency: 20, concurrency: 8, count: 600 },
  { latency: 20, concurrency: 32, count: 2000 },
];
async function measure(sandbox, kind, cell) {
  const database = await createDatabase();
  await sandbox.admin("reset", {});
  try {
    return await runWorker("purchases-worker.js", {
      kind,
      count: kind === "topsync-pglite" ? Math.min(cell.count, 2000) : cell.count,
      concurrency: cell.concurrency,
      resellerUrl: sandbox.resellerUrl,
      databaseUrl: database.url,
      sandboxPid: sandbox.pid,
    });
  } finally {
    await database.drop();
  }
}

/**
 * Rounds per cell: this machine's speed drifts from minute to minute, so each figure is a median of rounds. The
 * 0 ms cells (CPU-bound, the noisiest) get more.
 */
const ROUNDS = { 0: Number(process.env.BENCH_ROUNDS ?? 7), 20: Number(process.env.BENCH_ROUNDS ?? 3) };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The geometric mean of ratios and twice its standard error (on the log scale, as a fraction either side). */
function meanRatio(ratios) {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const variance = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, logs.length - 1);
  return { mean: Math.exp(mean), twoSe: 2 * Math.sqrt(variance / logs.length) };
}

const rows = [];
for (const latency of [0, 20]) {
  const sandbox = await startSandboxProcess({ latency });
  try {
    await measure(sandbox, "no-database", { latency, concurrency: 8, count: 500 }); // warm the sandbox up
    for (const cell of GRID.filter((c) => c.latency === latency)) {
      // Every round runs each contender once, one after the other, so a round's ratios compare runs that
      // saw the same machine.
      const rounds = [];
      for (let round = 0; round < ROUNDS[latency]; round++) {
        const results = {};
        // Every other round runs the contenders in reverse order, so none always runs first or last.
        for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
          results[kind] = await measure(sandbox, kind, cell);
          console.error(
            `${latency} ms c${cell.concurrency} round ${round + 1} ${kind}: ${results[kind].rate.toFixed(0)}/s`,
          );
        }
        rounds.push(results);
      }
      const rate = (kind) => median(rounds.map((r) => r[kind].rate));
      const ratios = (kind) => rounds.map((r) => r["topsync-postgres"].rate / r[kind].rate);
      const roundsVsGraphile = ratios("graphile-worker");
      // CPU per purchase in µs, by process: the worker, PostgreSQL, the sandbox, and the whole machine.
      const cpu = (kind) =>
        Object.fromEntries(
          ["workerCpuSeconds", "postgresCpuSeconds", "sandboxCpuSeconds", "machineCpuSeconds"].map((key) => [
            key,
            median(rounds.map((r) => (r[kind][key] / r[kind].done) * 1e6)),
          ]),
        );
      rows.push({
        ...cell,
        rate: Object.fromEntries(KINDS.map((kind) => [kind, rate(kind)])),
        cpu: Object.fromEntries(KINDS.map((kind) => [kind, cpu(kind)])),
        vsGraphile: median(roundsVsGraphile),
        roundsVsGraphile,
        meanVsGraphile: meanRatio(roundsVsGraphile),
        vsCeiling: median(ratios("no-database")),
      });
    }
  } finally {
    await sandbox.stop();
  }
}

/** Says, from the figures, which targets this run met. */
function verdict() {
  const fast = rows.filter((row) => row.latency === 0);
  const slow = rows.filter((row) => row.latency === 20);
  const fastMet = fast.every((row) => row.vsGraphile >= 1 && row.rate["topsync-postgres"] >= 1000);
  const slowMet = slow.every((row) => row.vsCeiling >= 0.9);
  const pct = (x) => `${(x * 100).toFixed(0)}%`;
  return (
    `This run: at 20 ms ${slowMet ? "**met**" : "**not met**"} (${slow.map((row) => pct(row.vsCeiling)).join(", ")} of the ceiling); ` +
    `at 0 ms ${fastMet ? "**met**" : "**not met**"} (${fast.map((row) => `${pct(row.vsGraphile)} of graphile-worker and ${row.rate["topsync-postgres"].toFixed(0)}/s at c${row.concurrency}`).join("; ")}).`
  );
}

const perSecond = (x) => `${x.toFixed(0)}/s`;
const micros = (x) => `${x.toFixed(0)} µs`;
const table = rows
  .map(
    (row) =>
      `| ${row.latency} ms | ${row.concurrency} | ${perSecond(row.rate["topsync-postgres"])} | ${perSecond(row.rate["topsync-pglite"])} | ${perSecond(row.rate["graphile-worker"])} | ${perSecond(row.rate["no-database"])} | ${(row.vsGraphile * 100).toFixed(0)}% | ${row.roundsVsGraphile.map((x) => (x * 100).toFixed(0)).join(" ")} | ${(row.meanVsGraphile.mean * 100).toFixed(0)}% ± ${(row.meanVsGraphile.twoSe * 100).toFixed(0)} | ${(row.vsCeiling * 100).toFixed(0)}% |`,
  )
  .join("\n");
const CPU_KINDS = {
  "topsync-postgres": "topsync PostgreSQL",
  "graphile-worker": "graphile-worker",
  "no-database": "no database",
};
const cpuTable = rows
  .filter((row) => row.latency === 0)
  .flatMap((row) =>
    Object.entries(CPU_KINDS).map(([kind, name]) => {
      const c = row.cpu[kind];
      const pg = kind === "no-database" ? "–" : micros(c.postgresCpuSeconds);
      return `| ${row.concurrency} | ${name} | ${micros(c.workerCpuSeconds)} | ${pg} | ${micros(c.sandboxCpuSeconds)} | ${micros(c.machineCpuSeconds)} |`;
    }),
  )
  .join("\n");

writeSection(
  "Purchases",
  `
Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:purchases\` on ${machine()}, 2 cores shared by the
worker, the sandbox (its own process) and PostgreSQL 15. Each purchase is bought and verified to a final status: one
POST and three verify reads (the sandbox answers 404, then pending, then success), so at least four round trips.
Every contender does exactly this work per purchase through the same HTTP client, at the same concurrency:

- **topsync (PostgreSQL / PGlite)**: \`executePurchases\` over queued ledger rows — claims with guards, every transition
  and its event written (PGlite runs at most 2,000 purchases per cell; it is the single-process embedded default);
- **graphile-worker 0.17**: one job per purchase whose task buys, verifies and inserts a result row; local queue of
  4 × concurrency and \`completeJobBatchDelay: 0\` (batched completions, as its performance docs advise);
- **no database**: a loop of the same HTTP calls — the ceiling of this machine.

Purchases per run: ${GRID.map((c) => `${c.count.toLocaleString("en")} at ${c.latency} ms and concurrency ${c.concurrency}`).join(", ")}.
Each figure is the median of ${ROUNDS[0]} rounds at 0 ms and ${ROUNDS[20]} at 20 ms; a round runs every contender once, one
after the other (every other round in reverse order), and the ratios are medians of each round's own ratios (this
machine's speed drifts by a third from one minute to the next, and a round compares runs that saw the same machine).
Beside the median, the geometric mean of the rounds' ratios to graphile-worker with twice its standard error: the
range the true ratio most likely lies in, given how much the rounds disagree.

| sandbox latency | concurrency | topsync PostgreSQL | topsync PGlite | graphile-worker | no database | topsync ÷ graphile | each round (%) | geometric mean ± 2 SE | topsync ÷ ceiling |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${table}

CPU per purchase while the purchases run, at 0 ms (medians of the rounds): of the worker process, of every PostgreSQL
process, of the sandbox, and of the whole machine. The worker column includes the HTTP client every contender shares
(the no-database row is that part alone); the rest of it, and the PostgreSQL column, are what the queue costs. The
sandbox answers the same requests for every contender.

| concurrency | contender | worker | PostgreSQL | sandbox | whole machine |
|---|---|---:|---:|---:|---:|
${cpuTable}

**Targets.** At 0 ms: at least graphile-worker's rate and ≥ 1,000/s on PostgreSQL. At 20 ms: ≥ 90% of the
no-database ceiling. ${verdict()} (Memory: the section "Memory", \`npm run bench:memory\`.)
`,
);
console.log(table);
console.log(cpuTable);
