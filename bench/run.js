// `npm run bench`: every benchmark in turn (each writes its own section of bench/RESULTS.md), after the start-up
// time of `topsync --help`. bench:ledger-year seeds a ledger of 10,000,000 purchases (about 10 GB of PostgreSQL and
// half an hour on 2 cores); BENCH_SKIP=ledger-year,webhooks leaves benchmarks out by name.
import { execFileSync, spawnSync } from "node:child_process";
import { CLI, machine, writeSection } from "./lib.js";

const BENCHMARKS = {
  purchases: "purchases.js",
  memory: "memory.js",
  command: "command.js",
  websites: "websites.js",
  plan: "plan.js",
  csv: "large-csv.js",
  hostile: "hostile-config.js",
  webhooks: "webhooks.js",
  "ledger-year": "year-ledger.js",
  statement: "statement.js",
  plans: "plans.js",
  gate: "gate-memory.js",
  "embedded-floor": "embedded-floor.js",
  notify: "notify.js",
  "scale-out": "scale-out.js",
  console: "console.js",
  "verify-reads": "verify-reads.js",
};
// bench:statement seeds a ledger of 10,000,000 purchases by default; BENCH_STATEMENT_ARGS="--purchases 1000000"
// measures a smaller one. bench:scale-out drains 30,000 purchases at 100 ms a call six times
// over (1, 2 and 3 processes of each contender), about an hour and a half; BENCH_SCALE_OUT_COUNT=3000 drains fewer.
const ARGS = { statement: (process.env.BENCH_STATEMENT_ARGS ?? "").split(" ").filter(Boolean) };
const skipped = new Set((process.env.BENCH_SKIP ?? "").split(",").filter(Boolean));
for (const name of skipped)
  if (!(name in BENCHMARKS)) throw new Error(`BENCH_SKIP names no benchmark: ${name}`);

const runs = [];
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  spawnSync(process.execPath, [CLI, "--help"], { stdio: "ignore" });
  runs.push(performance.now() - started);
}
runs.sort((a, b) => a - b);
writeSection(
  "Start-up",
  `Measured on ${machine()}: \`topsync --help\` median **${runs[5].toFixed(0)} ms**, slowest ${runs[9].toFixed(0)} ms over 10 runs, spawn to exit (target < 300 ms). Command modules load only when their command runs.`,
);
console.log(`topsync --help: median ${runs[5].toFixed(0)} ms`);
for (const [name, script] of Object.entries(BENCHMARKS)) {
  if (skipped.has(name)) {
    console.log(`bench:${name} skipped (BENCH_SKIP)`);
    continue;
  }
  execFileSync(process.execPath, [new URL(script, import.meta.url).pathname, ...(ARGS[name] ?? [])], {
    stdio: "inherit",
  });
}
