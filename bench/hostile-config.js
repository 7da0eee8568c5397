// `npm run bench:hostile`: what loading a config written to exhaust topsync costs — an alias bomb, more inline
// recipients than allowed, a file over the size limit. Each is loaded by `topsync config check` in a child
// process, which is refused (exit 78); its time and peak RSS (the child's VmHWM) go to RESULTS.md.
import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, machine, PEAK_RSS_ON_EXIT, writeSection } from "./lib.js";

const HEAD = `reseller:
  base_url: http://127.0.0.1:4010
  api_key: k123
analytics:
  base_url: http://127.0.0.1:4020
  api_key: k123
`;

const job = (recipients) =>
  `${HEAD}purchases:\n  - name: big\n    plan: {network: MTN, plan_id: '102'}\n    recipients: [${recipients}]\n`;
const phones = (n) => Array.from({ length: n }, (_, i) => `'0803${String(i).padStart(7, "0")}'`).join(",");

function aliasBomb() {
  const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(",")}]`,
    );
  return `${HEAD}${lines.join("\n")}\nserver: *a8\n`;
}

const cases = [
  ["alias bomb (9 levels × 9 aliases: 387 million values if expanded)", aliasBomb()],
  ["145,000 inline recipients (just under the 2 MiB file limit)", job(phones(145_000))],
  ["2,000,000 inline recipients (over the file limit)", job(phones(2_000_000))],
];

const dir = mkdtempSync(join(tmpdir(), "topsync-bench-hostile-"));
// A child that runs the CLI in-process and reports its own peak RSS when it exits.
const probe = join(dir, "probe.mjs");
writeFileSync(
  probe,
  `${PEAK_RSS_ON_EXIT}
process.argv = [process.argv[0], ${JSON.stringify(CLI)}, ...process.argv.slice(2)];
await import(${JSON.stringify(CLI)});`,
);
const rows = [];
for (const [name, text] of cases) {
  const file = join(dir, "config.yaml");
  writeFileSync(file, text);
  const started = performance.now();
  const run = spawnSync(process.execPath, [probe, "-c", file, "config", "check"], { encoding: "utf8" });
  const ms = performance.now() - started;
  const rss = Number(/maxrss (\d+)/.exec(run.stderr)?.[1] ?? 0) / 1024;
  const size = statSync(file).size;
  rows.push(
    `| ${name} | ${size.toLocaleString("en")} B | ${run.status} | ${ms.toFixed(0)} ms | ${rss.toFixed(0)} MB |`,
  );
  console.log(`${name}: exit ${run.status}, ${ms.toFixed(0)} ms, ${rss.toFixed(0)} MB peak RSS`);
}
writeSection(
  "Hostile configs",
  `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} by \`npm run bench:hostile\`: \`topsync config check\` on configs written to exhaust it (before the hardening of 2026-11-23 a 370-byte alias bomb took 16 s and 266 MB, a 330-byte one 2.1 GB, and 2,000,000 inline recipients 2.26 GB). Peak RSS is the whole process.

| config | size | exit | time | peak RSS |
|---|---|---|---|---|
${rows.join("\n")}`,
);
