// `npm run bench:gate`: peak RSS of `topsync purchases run` whose due rows the approval gate weighs and holds, as an
// operator starts it: the CLI spawned with plain `node` (no flags) over 1,000,000 queued purchases (BENCH_GATE_COUNT)
// with an approval rule they are all above, so the gate prices every row, registers one held plan of them all
// (its digest and document) and moves every row to `held`; nothing is bought. PostgreSQL, and the embedded database
// when BENCH_GATE_PGLITE is set (BENCH_GATE_PGLITE_COUNT rows, 100,000 unless given). A run that does not exit 0, or
// does not hold every row, is a failure. Writes the `## Approval gate memory` section of bench/RESULTS.md.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase, rows } from "../dist/db/client.js";
import { migrate } from "../dist/db/migrate.js";
import { insertPurchases } from "../dist/purchases/ledger.js";
import { CLI, createDatabase, machine, PEAK_RSS_ON_EXIT, startSandboxProcess, writeSection } from "./lib.js";

const COUNT = Number(process.env.BENCH_GATE_COUNT ?? 1_000_000);
const PGLITE_COUNT = Number(process.env.BENCH_GATE_PGLITE_COUNT ?? 100_000);
const TARGET_MB = 200;

const dir = mkdtempSync(join(tmpdir(), "topsync-bench-gate-"));
const probe = join(dir, "probe.mjs");
writeFileSync(
  probe,
  `${PEAK_RSS_ON_EXIT}
process.argv = [process.argv[0], ${JSON.stringify(CLI)}, ...process.argv.slice(2)];
await import(${JSON.stringify(CLI)});`,
);

async function queue(databaseOptions, count) {
  const database = await openDatabase(databaseOptions);
  try {
    await migrate(database.db);
    for (let i = 0; i < count; i += 5000) {
      const batch = [];
      for (let n = i; n < Math.min(count, i + 5000); n++) {
        const phone = `0803${String(1_000_000 + n).padStart(7, "0")}`;
        batch.push({
          request_key: `gate:${phone}`,
          source: "intake",
          network: "MTN",
          plan_id: "102",
          phone,
          ported: false,
        });
      }
      await insertPurchases(database.db, batch, "bench");
    }
  } finally {
    await database.close();
  }
}

async function heldCount(databaseOptions) {
  const database = await openDatabase(databaseOptions);
  try {
    const [row] = await rows(database.db, sql`select count(*)::int as n from purchases where state = 'held'`);
    return row.n;
  } finally {
    await database.close();
  }
}

function configFile(sandbox, database, publicKey) {
  const file = join(dir, "config.yaml");
  writeFileSync(
    file,
    `reseller: { base_url: "${sandbox.resellerUrl}", api_key: sandbox-reseller-key, concurrency: 32, rate_limit: 1000000 }
analytics: { base_url: "${sandbox.analyticsUrl}", api_key: sandbox-analytics-key }
database: { url: "${database.url ?? ""}", pglite_dir: "${database.pgliteDir ?? join(dir, "unused")}" }
approvals:
  rules: [{ above: "500.00", approvals: 1 }]
  approvers: { ada: "${publicKey}" }
`,
  );
  return file;
}

async function measure(kind, count) {
  const port = 4900 + Math.floor(Math.random() * 400) * 2;
  const sandbox = await startSandboxProcess({
    resellerPort: port,
    analyticsPort: port + 1,
    // Its notification receivers on a port of their own too, so two benchmarks can run at once.
    extra: ["--receiver-port", String(port + 1000)],
  });
  const server = kind === "postgres" ? await createDatabase("topsync_bench_gate") : undefined;
  const database = server ? { url: server.url } : { pgliteDir: join(dir, "pglite") };
  try {
    const made = spawnSync(
      process.execPath,
      [CLI, "--json", "keys", "new", "--as", "ada", "--out", join(dir, "ada.key")],
      {
        encoding: "utf8",
      },
    );
    const publicKey = JSON.parse(made.stdout).public_key;
    await queue(database, count);
    const started = performance.now();
    const run = spawnSync(
      process.execPath,
      [probe, "-c", configFile(sandbox, database, publicKey), "purchases", "run"],
      {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const held = await heldCount(database);
    if (run.status !== 0 || held !== count)
      throw new Error(
        `topsync purchases run on ${kind} exited ${run.status} having held ${held} of ${count}:\n${run.stdout}\n${run.stderr.slice(-2000)}`,
      );
    const rss = Number(/maxrss (\d+)/.exec(run.stderr)?.[1] ?? 0) / 1024;
    return { kind, count, seconds, rss };
  } finally {
    await sandbox.stop();
    await server?.drop();
    rmSync(join(dir, "pglite"), { recursive: true, force: true });
    rmSync(join(dir, "ada.key"), { force: true });
  }
}

const results = [];
try {
  const kinds = process.env.BENCH_GATE_PGLITE
    ? [
        ["postgres", COUNT],
        ["pglite", PGLITE_COUNT],
      ]
    : [["postgres", COUNT]];
  for (const [kind, count] of kinds) {
    const result = await measure(kind, count);
    results.push(result);
    console.log(
      `${kind}: ${count} purchases held in ${result.seconds.toFixed(1)} s, peak RSS ${result.rss.toFixed(0)} MB`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const NAMES = {
  postgres: "PostgreSQL 15 (loopback)",
  pglite: "the embedded database (a PGlite folder on disk)",
};
writeSection(
  "Approval gate memory",
  `**Target:** a run of 1,000,000 new purchases weighed by the approval gate under ${TARGET_MB} MB peak RSS, with plain \`node\`.
${results.map((r) => `${NAMES[r.kind]}, ${r.count.toLocaleString("en")} purchases: **${r.rss.toFixed(0)} MB**, ${r.rss < TARGET_MB ? "met" : "**not met**"}`).join("; ")}.

Measured by \`npm run bench:gate\` on ${machine()}: the purchases queued first by the benchmark, then
\`topsync purchases run\` spawned with plain \`node\` (no flags) under one approval rule (above 500.00) that their total
passes, so the gate prices every row, registers them as one held plan and holds them all; nothing is bought.

| database | purchases held | spawn to exit | peak RSS |
|---|---:|---:|---:|
${results.map((r) => `| ${NAMES[r.kind]} | ${r.count.toLocaleString("en")} | ${r.seconds.toFixed(1)} s | ${r.rss.toFixed(0)} MB |`).join("\n")}

The gate reads the run's rows 5,000 at a time (locked as it goes), keeps what it decided of each in a table of its
transaction's own, and has the database put the plan's document together; its digest is hashed from that table read
in request key order, a page at a time. So the process holds a page, whatever the run's size; the database holds the
document (some 280 bytes an item), which on the embedded database is this process's memory too.
`,
);
