// `npm run bench:statement`: `topsync purchases reconcile --statement` over a provider's statement of 1,000,000
// lines against a ledger of 10,000,000 purchases, spawn to exit, with plain `node` (no heap flag): its time and
// peak RSS (target: under 200 MB), beside the same statement against an empty ledger (what reading the file costs
// alone). Seeds its own PostgreSQL database with year-ledger-seed.js, writes the statement from the ledger's
// newest purchases as a Nigerian export writes it (DD/MM/YYYY in Lagos time without a zone, `₦1,405.00`), with
// purchases left out, debits the ledger lacks, amount differences and lines dated 01/01/1970; writes the
// `## Statements: purchases reconcile` section of bench/RESULTS.md with the commit measured.
//
//   npm run bench:statement                                       # 10,000,000 purchases, 1,000,000 lines
//   npm run bench:statement -- --purchases 200000 --lines 50000  # a smoke run
//   npm run bench:statement -- --keep                             # leave the seeded database (its name printed)
//   npm run bench:statement -- --ledger topsync_bench_statement_x # reuse a kept one (not dropped)
//
// Flags: --purchases N (10000000), --days N (400), --lines N (1000000), --timeout 3h, --keep, --ledger NAME.
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import postgres from "postgres";
import { CLI, machine, PEAK_RSS_ON_EXIT, ROOT, SERVER, writeSection } from "./lib.js";
import { seedPurchases } from "./year-ledger-seed.js";

const PREFIX = "topsync_bench_statement";
const TARGET_MB = 200;

function parseFlags(argv) {
  const flags = {
    purchases: 10_000_000,
    days: 400,
    lines: 1_000_000,
    timeout: "3h",
    keep: false,
    ledger: "",
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]?.replace(/^--/, "");
    if (name === "keep") {
      flags.keep = true;
      continue;
    }
    if (!(name in flags) || argv[i + 1] === undefined) usage();
    const value = argv[++i];
    flags[name] = ["timeout", "ledger"].includes(name) ? value : Number(value);
  }
  for (const [name, min, max] of [
    ["purchases", 1000, 100_000_000],
    ["days", 2, 3650],
    ["lines", 100, 20_000_000],
  ])
    if (!Number.isInteger(flags[name]) || flags[name] < min || flags[name] > max) {
      console.error(`--${name} must be a whole number from ${min} to ${max}`);
      process.exit(64);
    }
  const m = /^(\d+(?:\.\d+)?)([hm])$/.exec(flags.timeout);
  flags.timeoutMs = m ? Number(m[1]) * (m[2] === "h" ? 3_600_000 : 60_000) : Number.NaN;
  if (!(flags.timeoutMs > 0)) usage();
  if (flags.ledger && !/^topsync_bench_statement_[a-z0-9_]+$/.test(flags.ledger)) {
    console.error(`--ledger takes a database this benchmark kept (${PREFIX}_…), not "${flags.ledger}"`);
    process.exit(64);
  }
  return flags;
}

function usage() {
  console.error(
    "usage: node bench/statement.js [--purchases N] [--days N] [--lines N] [--timeout 3h] [--keep] [--ledger NAME]",
  );
  process.exit(64);
}

const FLAGS = parseFlags(process.argv.slice(2));

// ------------------------------------------------------------------------------------- databases and clean-up
const created = new Set();
const dir = mkdtempSync(path.join(tmpdir(), "topsync-bench-statement-"));
let cleaning;
function cleanUp() {
  cleaning ??= (async () => {
    rmSync(dir, { recursive: true, force: true });
    const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
    try {
      for (const name of created) await admin.unsafe(`drop database if exists ${name} with (force)`);
    } finally {
      await admin.end();
    }
  })();
  return cleaning;
}
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.once(signal, () => {
    console.error(`${signal}: dropping the benchmark's databases and stopping`);
    cleanUp().finally(() => process.exit(code));
  });
}
setTimeout(() => {
  console.error(`stopped after --timeout ${FLAGS.timeout}: dropping the benchmark's databases`);
  cleanUp().finally(() => process.exit(1));
}, FLAGS.timeoutMs).unref();

/** A new database, migrated by topsync's own `migrate`; dropped at the end unless kept. */
async function createLedger(suffix) {
  const name = `${PREFIX}_${suffix}_${process.pid}`;
  const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const [taken] = await admin`select 1 from pg_database where datname = ${name}`;
    if (taken) throw new Error(`database ${name} exists and is not this run's: refusing to touch it`);
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  if (!FLAGS.keep || suffix === "empty") created.add(name);
  const url = `${SERVER}/${name}`;
  const migrate = spawnSync(process.execPath, [CLI, "-c", writeConfig(url, name), "migrate"], {
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migrate failed: ${migrate.stderr}`);
  return { name, url };
}

function writeConfig(url, name) {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `reseller: {base_url: "http://127.0.0.1:9", api_key: unused}
analytics: {base_url: "http://127.0.0.1:9", api_key: unused}
database: {url: "${url}"}
timezone: Africa/Lagos
log: {level: warn}
`,
  );
  return file;
}

// ------------------------------------------------------------------------------------------------ the ledger
async function seed(url) {
  const started = performance.now();
  const sessions = Array.from({ length: 8 }, () => postgres(url, { max: 1, onnotice: () => {} }));
  try {
    await seedPurchases(sessions, {
      purchases: FLAGS.purchases,
      days: FLAGS.days,
      onDay: (done) => {
        if (done % 40 === 0 || done === FLAGS.days)
          console.error(
            `seeded ${done}/${FLAGS.days} days (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
      },
    });
    const seeded = (performance.now() - started) / 1000;
    await sessions[0].unsafe("vacuum analyze purchases");
    return seeded;
  } finally {
    await Promise.all(sessions.map((s) => s.end()));
  }
}

// --------------------------------------------------------------------------------------------- the statement
const STATUS = { succeeded: "successful", failed: "failed", unverified: "successful" };
const PLACEHOLDERS = 10;

/** "1405.00" as a Nigerian export writes it: thousands separated by commas, every third with the naira sign. */
function written(amount, i) {
  const [whole, decimals = "00"] = amount.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `"${i % 3 === 0 ? "₦" : ""}${grouped}.${decimals.padEnd(2, "0")}"`;
}

/** "305.00" plus 5 naira, exactly. */
const plusFive = (amount) => {
  const cents = BigInt(amount.replace(".", "")) + 500n;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`;
};

/**
 * The ledger's newest `lines` purchases with a reference, as the provider's export: one in 500 left out (the
 * provider does not list it), one in 1,000 followed by a debit the ledger lacks, one in 2,000 charged 5 naira more,
 * and PLACEHOLDERS lines dated 01/01/1970 at the end.
 */
async function writeStatement(url, file) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const out = createWriteStream(file);
  const expected = { lines: 0, ledgerOnly: 0, providerOnly: 0, amountDifferences: 0, setAside: PLACEHOLDERS };
  const write = async (text) => {
    if (!out.write(text)) await once(out, "drain");
  };
  try {
    const [edge] = await sql`
      select submitted_at::text as at from purchases where reference is not null and submitted_at is not null
      order by submitted_at desc offset ${FLAGS.lines - 1} limit 1`;
    if (!edge) throw new Error(`the ledger has fewer than ${FLAGS.lines} purchases with a reference`);
    await write("Reference,Phone,Amount,Date,Status\n");
    let i = 0;
    const cursor = sql`
      select reference, phone, state, coalesce(charged_amount, amount)::text as amount,
        to_char(submitted_at at time zone 'Africa/Lagos', 'DD/MM/YYYY HH24:MI:SS') as date
      from purchases where reference is not null and submitted_at >= ${edge.at}::timestamptz
      order by submitted_at, id`.cursor(10_000);
    for await (const batch of cursor) {
      for (const row of batch) {
        i++;
        if (i % 500 === 7) {
          expected.ledgerOnly++;
          continue;
        }
        const differs = i % 2000 === 11;
        if (differs) expected.amountDifferences++;
        const amount = written(differs ? plusFive(row.amount) : row.amount, i);
        await write(
          `${row.reference},${row.phone},${amount},${row.date},${STATUS[row.state] ?? "pending"}\n`,
        );
        expected.lines++;
        if (i % 1000 === 3) {
          await write(
            `PROVIDER${String(i).padStart(12, "0")},${row.phone},${amount},${row.date},successful\n`,
          );
          expected.lines++;
          expected.providerOnly++;
        }
      }
    }
    for (let k = 0; k < PLACEHOLDERS; k++)
      await write(`NEVER${String(k).padStart(15, "0")},08030000000,"305.00",01/01/1970 00:00:00,failed\n`);
    expected.lines += PLACEHOLDERS;
    out.end();
    await finished(out);
    return expected;
  } finally {
    await sql.end();
  }
}

// ----------------------------------------------------------------------------------------------- measuring
// A child that runs the CLI and reports its own peak RSS when it exits.
const probe = path.join(dir, "probe.mjs");
writeFileSync(
  probe,
  `${PEAK_RSS_ON_EXIT}
process.argv = [process.argv[0], ${JSON.stringify(CLI)}, ...process.argv.slice(2)];
await import(${JSON.stringify(CLI)});`,
);

function reconcile(database, statement) {
  const out = path.join(dir, `${database.name}.json`);
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [
      probe,
      "-c",
      writeConfig(database.url, database.name),
      "purchases",
      "reconcile",
      "--statement",
      statement,
      "--date-format",
      "DD/MM/YYYY",
      "--format",
      "json",
      "--out",
      out,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (performance.now() - started) / 1000;
  const rss = Number(/maxrss (\d+)/.exec(run.stderr)?.[1] ?? 0) / 1024;
  if (run.status !== 0) throw new Error(`reconcile exited ${run.status}: ${run.stderr}`);
  const report = JSON.parse(readFileSync(out, "utf8"));
  rmSync(out);
  return { seconds, rss, report };
}

const commit = () => {
  const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    encoding: "utf8",
  }).stdout.trim();
  const dirty = spawnSync("git", ["status", "--porcelain", "--", "src", "bench"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return `${head}${dirty.stdout.trim() ? " (with uncommitted changes)" : ""}`;
};

try {
  const measured = commit();
  let ledger;
  let seededSeconds;
  if (FLAGS.ledger) {
    ledger = { name: FLAGS.ledger, url: `${SERVER}/${FLAGS.ledger}` };
    console.error(`reusing ${ledger.name}`);
  } else {
    ledger = await createLedger("ledger");
    seededSeconds = await seed(ledger.url);
    if (FLAGS.keep) console.error(`kept ${ledger.name}: --ledger ${ledger.name} reuses it`);
  }
  const sql = postgres(ledger.url, { max: 1, onnotice: () => {} });
  const [sizes] =
    await sql`select (select count(*) from purchases)::bigint as purchases, pg_database_size(current_database()) as bytes`;
  await sql.end();
  const statement = path.join(dir, "statement.csv");
  const expected = await writeStatement(ledger.url, statement);
  const mb = (statSync(statement).size / 1024 / 1024).toFixed(1);
  console.error(`statement: ${expected.lines} lines, ${mb} MB; ledger: ${sizes.purchases} purchases`);
  const empty = await createLedger("empty");
  const rounds = [
    ["an empty ledger", empty],
    [`${Number(sizes.purchases).toLocaleString("en")} purchases`, ledger],
  ].map(([what, database]) => {
    const result = reconcile(database, statement);
    console.log(`${what}: ${result.seconds.toFixed(1)} s, peak RSS ${result.rss.toFixed(0)} MB`);
    return { what, ...result };
  });
  const full = rounds[1].report;
  const found = {
    lines: full.lines,
    matched: full.matched,
    ledgerOnly: full.totals.ledgerOnly,
    providerOnly: full.totals.providerOnly,
    amountDifferences: full.totals.amountDifferences,
    setAside: full.totals.setAside,
  };
  console.log(`expected ${JSON.stringify(expected)}\nfound    ${JSON.stringify(found)}`);
  const rows = rounds.map(
    ({ what, seconds, rss }) =>
      `| ${what} | ${seconds.toFixed(1)} s | ${rss.toFixed(0)} MB | ${rss < TARGET_MB ? "yes" : "**no**"} |`,
  );
  writeSection(
    "Statements: purchases reconcile",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:statement${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\` at commit ${measured}, on
${machine()}, 2 cores shared with PostgreSQL 15 and other work (load average ${loadavg()[0].toFixed(1)} at the end).
The ledger: ${Number(sizes.purchases).toLocaleString("en")} purchases over ${FLAGS.days} days (bench/year-ledger-seed.js, with their events;
${(Number(sizes.bytes) / 1024 ** 3).toFixed(1)} GB on disk${seededSeconds ? `, seeded in ${(seededSeconds / 60).toFixed(1)} min` : ""}). The statement: ${expected.lines.toLocaleString("en")} lines (${mb} MB), the ledger's newest
purchases with a reference as a Nigerian export writes them (\`DD/MM/YYYY HH:MM:SS\` in Lagos time without a zone,
\`"₦1,405.00"\`), one in 500 left out, one in 1,000 followed by a debit the ledger lacks, one in 2,000 charged 5 naira
more, and ${PLACEHOLDERS} lines dated 01/01/1970. \`topsync purchases reconcile --statement F --date-format DD/MM/YYYY
--format json --out R\` from spawn to exit with plain \`node\` (no heap flag), peak RSS the child's own (VmHWM);
beside it the same statement against an empty ledger, what reading the file twice costs alone. Before the statement
was streamed, 120,000 lines crashed the command ("Maximum call stack size exceeded"), and a line dated 1970 made
the period the whole ledger, read into memory at once.

| ledger | time | peak RSS | under ${TARGET_MB} MB |
|---|---:|---:|---|
${rows.join("\n")}

Found on the full ledger: ${found.matched.toLocaleString("en")} lines on ledger purchases, ${found.ledgerOnly.toLocaleString("en")} purchases the statement leaves out,
${found.providerOnly.toLocaleString("en")} debits with no ledger purchase, ${found.amountDifferences.toLocaleString("en")} amount differences, ${found.setAside} lines set aside (as written:
${expected.ledgerOnly.toLocaleString("en")}, ${expected.providerOnly.toLocaleString("en")}, ${expected.amountDifferences.toLocaleString("en")}, ${expected.setAside}; the period's edges add the purchases of the day of slack either side).`,
  );
} finally {
  await cleanUp();
}
