// `npm run bench`: every benchmark in turn, plus the start-up time of `topsync --help`.
import { execFileSync, spawnSync } from "node:child_process";
import { CLI, machine, writeSection } from "./lib.js";

const runs = [];
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  spawnSync(process.execPath, [CLI, "--help"], { stdio: "ignore" });
  runs.push(performance.now() - started);
}
runs.sort((a, b) => a - b);
writeSection(
  "Start-up",
  `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}: \`topsync --help\` median **${runs[5].toFixed(0)} ms**, slowest ${runs[9].toFixed(0)} ms over 10 runs (target < 300 ms). Command modules load only when their command runs.`,
);
console.log(`topsync --help: median ${runs[5].toFixed(0)} ms`);
// bench:statement seeds a ledger of 10,000,000 purchases by default; BENCH_STATEMENT_ARGS="--purchases 1000000"
// measures a smaller one.
const statementArgs = (process.env.BENCH_STATEMENT_ARGS ?? "").split(" ").filter(Boolean);
for (const [script, ...args] of [
  ["purchases.js"],
  ["command.js"],
  ["websites.js"],
  ["plan.js"],
  ["large-csv.js"],
  ["statement.js", ...statementArgs],
  ["notify.js"],
]) {
  execFileSync(process.execPath, [new URL(script, import.meta.url).pathname, ...args], { stdio: "inherit" });
}
