// `npm run bench:console`: the console's pages on a year of ledger. Creates its own PostgreSQL database, migrates
// it, seeds it as bench:ledger-year does (default 10,000,000 purchases over 400 days, bench/year-ledger-seed.js),
// vacuums it and seals the report's rollups, then serves the console in-process on a loopback port (the daemon's
// HTTP server and the console's handler from dist/) and times each page from request to the last byte of its
// answer — the server's time plus a loopback round trip — logged in as an approver. Medians and maxima of
// --rounds rounds after one warm-up. Writes the `## Console pages on a year of ledger` section of bench/RESULTS.md.
//
//   npm run bench:console                        # the full year (the seed takes minutes)
//   npm run bench:console -- --purchases 200000  # a smoke run
//
//   npm run bench:console -- --keep 1           # keep the seeded database, and print its URL
//   npm run bench:console -- --database URL     # reuse a database a run kept: migrated and sealed again, not seeded
//
// It drops the database it created when it ends, fails or is interrupted (unless --keep 1).
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { stringify } from "yaml";
import { createDatabase, machine, writeSection } from "./lib.js";
import { JOBS, SEED_AFTER, seedPurchases } from "./year-ledger-seed.js";

const DIST = process.env.BENCH_DIST ?? fileURLToPath(new URL("../dist/", import.meta.url));
const FLAGS = { purchases: 10_000_000, days: 400, rounds: 5, keep: 0, database: "" };
for (let i = 2; i < process.argv.length; i += 2) {
  const name = process.argv[i]?.replace(/^--/, "");
  if (!(name in FLAGS) || process.argv[i + 1] === undefined) {
    console.error(
      "usage: node bench/console.js [--purchases N] [--days N] [--rounds N] [--keep 1] [--database URL]",
    );
    process.exit(64);
  }
  FLAGS[name] = name === "database" ? process.argv[i + 1] : Number(process.argv[i + 1]);
}

const PASSWORD = "a benchmark password";
let dropDatabase = async () => {};
for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, () => dropDatabase().finally(() => process.exit(130)));

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

/** What the pages are asked about: a purchase's reference and request key, one in_doubt, and the ledger's size. */
async function sample(session) {
  const [found] = await session`
      select (select reference from purchases where reference is not null order by id desc limit 1 offset 5000) as reference,
        (select request_key from purchases order by id desc limit 1 offset 7000) as request_key,
        (select id from purchases where state = 'in_doubt' order by id desc limit 1) as in_doubt,
        (select count(*) from purchases)::bigint as purchases,
        (select count(*) from purchase_events)::bigint as events`;
  return found;
}

/** A database seeded by an earlier run (--keep 1): reused as it is, and kept. */
async function reuse(url) {
  const session = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return { seconds: null, sample: await sample(session) };
  } finally {
    await session.end();
  }
}

async function seed(url) {
  const started = performance.now();
  const sessions = Array.from({ length: 8 }, () => postgres(url, { max: 1, onnotice: () => {} }));
  try {
    const start = await seedPurchases(sessions, {
      purchases: FLAGS.purchases,
      days: FLAGS.days,
      queued: 100,
      onDay: (done) => {
        if (done % 40 === 0 || done === FLAGS.days)
          console.error(
            `seeded ${done}/${FLAGS.days} days (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
      },
    });
    for (const statement of SEED_AFTER)
      await sessions[0].unsafe(statement, statement.includes("$1") ? [new Date(start).toISOString()] : []);
    await sessions[0].unsafe("vacuum analyze");
    return { seconds: (performance.now() - started) / 1000, sample: await sample(sessions[0]) };
  } finally {
    await Promise.all(sessions.map((s) => s.end()));
  }
}

async function main() {
  const [
    { openDatabase },
    { migrate },
    { createConsole },
    { startHealthServer },
    { parseConfig },
    { hashPassword },
    { silentLogger },
    rollups,
    { Readiness },
  ] = await Promise.all(
    [
      "db/client.js",
      "db/migrate.js",
      "console/handler.js",
      "server/health.js",
      "config/index.js",
      "console/password.js",
      "log/logger.js",
      "purchases/rollups.js",
      "server/readiness.js",
    ].map((file) => import(path.join(DIST, file))),
  );
  const created = FLAGS.database
    ? { url: FLAGS.database, drop: async () => {} }
    : await createDatabase("topsync_bench_console");
  const dropOrKeep = async () => {
    if (FLAGS.keep && !FLAGS.database) console.error(`kept the seeded database: --database ${created.url}`);
    else await created.drop();
  };
  dropDatabase = dropOrKeep;
  let server;
  let database;
  try {
    database = await openDatabase({ url: created.url });
    await migrate(database.db);
    if (!FLAGS.database)
      console.error(`seeding ${FLAGS.purchases.toLocaleString("en")} purchases over ${FLAGS.days} days`);
    const seeded = FLAGS.database ? await reuse(created.url) : await seed(created.url);
    await rollups.sealLedgerRollups(database.db);
    const port = await freePort();
    const config = parseConfig(
      stringify({
        reseller: { base_url: "http://127.0.0.1:9", api_key: "bench-key" },
        analytics: { base_url: "http://127.0.0.1:9", api_key: "bench-key" },
        purchases: JOBS.map(([name, network, plan, minutes]) => ({
          name,
          schedule:
            minutes >= 1440
              ? "0 8 * * *"
              : minutes >= 60
                ? `0 */${minutes / 60} * * *`
                : `*/${minutes} * * * *`,
          plan: { network, plan_id: plan },
          recipients: ["08031234567"],
        })),
        console: {
          enabled: true,
          users: { ada: { password_hash: await hashPassword(PASSWORD), role: "approver" } },
        },
      }),
      "bench-console.yaml",
      {},
    ).config;
    const logger = silentLogger();
    const unavailable = async () => {
      throw new Error("no service in this benchmark");
    };
    const handler = createConsole({
      config,
      database: () => database,
      logger,
      reseller: unavailable,
      analytics: unavailable,
    });
    server = await startHealthServer({
      host: "127.0.0.1",
      port,
      readiness: new Readiness(),
      logger,
      mounted: handler,
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/console/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
      body: new URLSearchParams({ user: "ada", password: PASSWORD }).toString(),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    if (login.status !== 303 || !cookie) throw new Error(`login failed: ${login.status}`);
    const { sample } = seeded;
    const pages = [
      ["needs a person (home)", "/console/"],
      ["purchases: the last 7 days", "/console/purchases"],
      ["purchases: by reference", `/console/purchases?q=${encodeURIComponent(sample.reference)}`],
      ["purchases: by request key", `/console/purchases?q=${encodeURIComponent(sample.request_key)}`],
      ["purchases: state in_doubt", "/console/purchases?state=in_doubt"],
      ["purchases: state failed, 31 days", `/console/purchases?state=failed&from=${day(-30)}&to=${day(0)}`],
      ["purchases: a job, 7 days", `/console/purchases?job=${JOBS[0][0]}`],
      ["purchases: phone ends with 4567, 7 days", "/console/purchases?phone=4567"],
      ["one purchase (in_doubt, its evidence)", `/console/purchases/${sample.in_doubt}`],
      ["plans", "/console/plans"],
      ["jobs", "/console/jobs"],
      ["websites", "/console/websites"],
      ["report, 7 days", "/console/report?since=7d"],
      ["report, 365 days", "/console/report?since=365d"],
    ];
    const rows = [];
    for (const [label, target] of pages) {
      const times = [];
      for (let round = 0; round <= FLAGS.rounds; round++) {
        const started = performance.now();
        const answer = await fetch(`${base}${target}`, { headers: { cookie } });
        const body = await answer.text();
        const ms = performance.now() - started;
        if (answer.status !== 200) throw new Error(`${target}: ${answer.status} ${body.slice(0, 300)}`);
        if (round > 0) times.push(ms);
      }
      times.sort((a, b) => a - b);
      rows.push({ label, median: times[Math.floor(times.length / 2)], max: times[times.length - 1] });
      console.error(`${label}: ${times[Math.floor(times.length / 2)].toFixed(1)} ms`);
    }
    const markdown = `\`npm run bench:console${FLAGS.purchases === 10_000_000 ? "" : ` -- --purchases ${FLAGS.purchases}`}\` on ${machine()}: ${Number(seeded.sample.purchases).toLocaleString("en")} purchases and ${Number(seeded.sample.events).toLocaleString("en")} events over ${FLAGS.days} days (bench/year-ledger-seed.js, ${seeded.seconds === null ? "a database seeded by an earlier run, reused" : `seeded in ${(seeded.seconds / 60).toFixed(1)} min, vacuumed`}, rollups sealed). Each page requested over loopback with a session, from the request to the last byte of the answer; ${FLAGS.rounds} rounds after a warm-up. Targets: every page < 300 ms, a search by reference or request key < 50 ms.

| page | median | max |
|---|---:|---:|
${rows.map((r) => `| ${r.label} | ${r.median.toFixed(1)} ms | ${r.max.toFixed(1)} ms |`).join("\n")}
`;
    console.log(markdown);
    if (process.env.BENCH_DIST) console.error("BENCH_DIST is set: bench/RESULTS.md left as it is");
    else writeSection("Console pages on a year of ledger", markdown);
  } finally {
    await server?.close();
    await database?.close();
    await dropOrKeep();
  }
}

function day(offset) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
