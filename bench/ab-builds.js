// An A/B of the purchase hot path between two builds of topsync, in turns on one sandbox: the in-process run of
// bench/purchases-worker.js (N queued purchases bought and verified, PostgreSQL, concurrency 32, 0 ms), with the
// rate and the PostgreSQL CPU per purchase of each; the "after" build also with the ledger's triggers switched off
// (what they cost). Each build is a folder holding dist/ and bench/ (e.g. `git archive REV | tar -x -C DIR`, then
// `npm run build` there with node_modules linked). Prints a markdown table; writes nothing else.
//
//   node bench/ab-builds.js --before /tmp/before --after . [--rounds 6] [--count 10000]
import { spawn } from "node:child_process";
import path from "node:path";
import postgres from "postgres";
import { machine, SERVER, startSandboxProcess } from "./lib.js";

function flags(argv) {
  const out = { rounds: 6, count: 10_000 };
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, "")] = argv[i + 1];
  if (!out.before || !out.after) {
    console.error("usage: node bench/ab-builds.js --before DIR --after DIR [--rounds 6] [--count 10000]");
    process.exit(64);
  }
  return { ...out, rounds: Number(out.rounds), count: Number(out.count) };
}
const FLAGS = flags(process.argv.slice(2));
const VARIANTS = {
  before: { dir: FLAGS.before, triggers: true },
  after: { dir: FLAGS.after, triggers: true },
  "after, triggers off": { dir: FLAGS.after, triggers: false },
};

function worker(dir, args) {
  return new Promise((resolve, reject) => {
    const script = path.resolve(dir, "bench/purchases-worker.js");
    const child = spawn(process.execPath, [script, JSON.stringify(args)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`${script}: ${out}`)),
    );
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sandbox = await startSandboxProcess({ latency: 0, resellerPort: 4731, analyticsPort: 4741 });
const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
const results = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, { rate: [], pg: [] }]));
try {
  const names = Object.keys(VARIANTS);
  for (let round = 0; round < FLAGS.rounds; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const variant = VARIANTS[name];
      const database = `topsync_bench_ab_${process.pid}`;
      await admin.unsafe(`create database ${database}`);
      try {
        const url = `${SERVER}/${database}`;
        await sandbox.admin("reset", {});
        const common = {
          count: FLAGS.count,
          concurrency: 32,
          resellerUrl: sandbox.resellerUrl,
          databaseUrl: url,
        };
        await worker(variant.dir, { kind: "seed", ...common });
        if (!variant.triggers) {
          const session = postgres(url, { max: 1, onnotice: () => {} });
          await session.unsafe("alter table purchases disable trigger user");
          await session.end();
        }
        const run = await worker(variant.dir, {
          kind: "topsync-postgres",
          seeded: true,
          sandboxPid: sandbox.pid,
          ...common,
        });
        results[name].rate.push(run.rate);
        results[name].pg.push((run.postgresCpuSeconds / run.done) * 1e6);
        console.error(
          `round ${round + 1} ${name}: ${run.rate.toFixed(0)}/s, PostgreSQL ${results[name].pg.at(-1).toFixed(0)} µs/purchase`,
        );
      } finally {
        await admin.unsafe(`drop database if exists ${database} with (force)`);
      }
    }
  }
} finally {
  await admin.end();
  await sandbox.stop();
}
const base = results.before;
console.log(
  `On ${machine()}, ${new Date().toISOString().slice(0, 10)}: \`node bench/ab-builds.js --before ${FLAGS.before} --after ${FLAGS.after} --rounds ${FLAGS.rounds} --count ${FLAGS.count}\`\n`,
);
console.log(
  "| build | rate (median) | ÷ before, per round | PostgreSQL CPU per purchase (median) | each round |",
);
console.log("|---|---:|---|---:|---|");
for (const [name, r] of Object.entries(results)) {
  const ratios = r.rate.map((x, i) => (x / base.rate[i]).toFixed(2)).join(" ");
  console.log(
    `| ${name} | ${median(r.rate).toFixed(0)}/s | ${ratios} | ${median(r.pg).toFixed(0)} µs | ${r.pg.map((x) => x.toFixed(0)).join(" ")} |`,
  );
}
