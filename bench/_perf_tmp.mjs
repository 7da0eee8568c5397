import { writeFileSync, mkdtempSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
const run = promisify(execFile);
import { stringify } from "yaml";
import { startSandbox } from "../dist/sandbox/index.js";
const N = 10000;
const sb = await startSandbox();
if (!process.env.NOSEED) sb.seedWebsites(Array.from({ length: N }, (_, i) => ({ domain: `site-${String(i).padStart(5, "0")}.example.com`, privacy: 1 })));
const dir = mkdtempSync("/tmp/wt15/perf-");
writeFileSync(`${dir}/config.yaml`, stringify({
  reseller: { base_url: "http://127.0.0.1:9", api_key: "x" },
  analytics: { base_url: sb.analyticsUrl, api_key: sb.analyticsApiKey, rate_limit: 100000, concurrency: 16 },
  database: { url: "", pglite_dir: `${dir}/pglite` },
  websites: { items: Array.from({ length: N }, (_, i) => ({ domain: `site-${String(i).padStart(5, "0")}.example.com`, privacy: process.argv[2] ?? "public" })) },
}));
for (const args of [["migrate"], ["websites", "plan", "--json"], ["websites", "plan", "--json"]]) {
  const t = performance.now();
  try { await run(process.execPath, [...(process.env.PROF ? ["--cpu-prof", "--cpu-prof-dir=/tmp/wt15/prof"] : []), "/work/wt15/dist/cli.js", "-c", `${dir}/config.yaml`, ...args], { maxBuffer: 1e9 }); } catch (e) { console.log("exit", e.status); }
  console.log(args.join(" "), Math.round(performance.now() - t), "ms");
}
await sb.close();
