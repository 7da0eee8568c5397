// Shared pieces of the benchmarks: a sandbox in its own process, fresh databases, results sections.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import postgres from "postgres";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CLI = fileURLToPath(new URL("../dist/cli.cjs", import.meta.url));
export const SERVER = process.env.BENCH_DATABASE_SERVER ?? "postgres://postgres@127.0.0.1:5432";

/**
 * Starts `topsync sandbox` in a child process (its own core) and resolves when it listens. Its ports are free ones the
 * system picks unless given (the machine may run other sandboxes), read back from what it prints. Its verify lags by
 * reads unless `verifyLag: "time"` (the sandbox's own default, 3 s since each purchase): the benchmarks of
 * throughput measure topsync's own costs, not the wait for a provider to settle.
 */
export async function startSandboxProcess({
  latency = 0,
  resellerPort = 0,
  analyticsPort = 0,
  verifyLag = "reads",
  extra = [],
} = {}) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      "sandbox",
      "--reseller-port",
      String(resellerPort),
      "--analytics-port",
      String(analyticsPort),
      "--latency",
      String(latency),
      "--wallet",
      "1000000000.00",
      ...(extra.includes("--receiver-port") ? [] : ["--receiver-port", "0"]),
      "--verify-lag",
      verifyLag,
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let printed = "";
  await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      printed += chunk;
      if (/sandbox analytics\s+http\S+/.test(printed)) resolve();
    });
  });
  const resellerUrl = /sandbox reseller\s+(http\S+)/.exec(printed)?.[1];
  const analyticsUrl = /sandbox analytics\s+(http\S+)/.exec(printed)?.[1];
  if (!resellerUrl || !analyticsUrl) throw new Error(`the sandbox did not say where it listens: ${printed}`);
  return {
    resellerUrl,
    pid: child.pid,
    analyticsUrl,
    async admin(path, body) {
      const response = await fetch(
        `${resellerUrl}/__admin/${path}`,
        body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
      );
      return response.json();
    },
    async stop() {
      child.removeAllListeners("exit");
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

export async function createDatabase(prefix = "topsync_bench") {
  const name = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  return {
    url: `${SERVER}/${name}`,
    async drop() {
      const again = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

/** Runs a bench worker script in a child process; resolves to the JSON it prints last. */
export function runWorker(script, args, nodeFlags = []) {
  return new Promise((resolve, reject) => {
    const flags = [...nodeFlags, ...(process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean)];
    const child = spawn(
      process.execPath,
      [...flags, fileURLToPath(new URL(script, import.meta.url)), JSON.stringify(args)],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.once("exit", (code) => {
      const last = out.trim().split("\n").pop();
      if (code !== 0 || !last) reject(new Error(`${script} exited with ${code}: ${out}`));
      else resolve(JSON.parse(last));
    });
  });
}

const LOAD_AT_START = os.loadavg()[0];

/**
 * What a section was measured on: the commit (and whether src/ or bench/ differed from it), and how busy the
 * machine was — `node -e 0` timed now (median of 5) and the load average when the benchmark started and now.
 */
export function provenance() {
  const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
  let commit = "unknown";
  let dirty = "";
  try {
    commit = git("rev-parse", "--short", "HEAD").trim();
    // The results file is what a benchmark writes, not what it measures.
    dirty = git("status", "--porcelain", "--", "src", "bench", "package.json", "tools", ":!bench/RESULTS.md");
  } catch {
    // not a git checkout
  }
  const runs = Array.from({ length: 5 }, () => {
    const started = performance.now();
    spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
    return performance.now() - started;
  }).sort((a, b) => a - b);
  const changed = [
    ...new Set(
      dirty
        .split("\n")
        .filter((line) => line.length > 3)
        .map((line) => line.slice(3).split("/")[0]),
    ),
  ];
  const changes = changed.length > 0 ? ` with uncommitted changes to ${changed.join(", ")}` : "";
  return (
    `*Commit \`${commit}\`${changes}; measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; ` +
    `\`node -e 0\` ${runs[2].toFixed(0)} ms then; load average ${LOAD_AT_START.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end.*`
  );
}

/**
 * Replaces (or appends) one `## Title` section of bench/RESULTS.md, leaving the others as they are; the section
 * starts with its provenance (the commit measured, the machine's state).
 */
export function writeSection(title, markdown) {
  const file = fileURLToPath(new URL("RESULTS.md", import.meta.url));
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text = "# Benchmark results\n";
  }
  const heading = `## ${title}`;
  const start = text.indexOf(`${heading}\n`);
  const section = `${heading}\n\n${provenance()}\n\n${markdown.trim()}\n`;
  if (start === -1) {
    text = `${text.trimEnd()}\n\n${section}`;
  } else {
    const next = text.indexOf("\n## ", start + heading.length);
    text = text.slice(0, start) + section + (next === -1 ? "" : text.slice(next));
  }
  writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`);
}

export function machine() {
  const cpu = readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  return `${cpu.trim()}, ${process.version}`;
}

/**
 * The first line of a probe that runs the CLI in a child and prints the child's own peak RSS (in KB) as it exits.
 * On Linux that is VmHWM of /proc/self/status: the high-water mark of the process's memory since it started the
 * probe. getrusage's maxRSS is not: Linux carries the parent's resident size at fork into the child's maxRSS, so a
 * benchmark process that had opened the embedded database (hundreds of MB) saw that figure as the child's peak.
 */
export const PEAK_RSS_ON_EXIT = `import { readFileSync as readStatus } from "node:fs";
process.on("exit", () => {
  let kb = process.resourceUsage().maxRSS;
  try {
    kb = Number(/VmHWM:\\s*(\\d+)/.exec(readStatus("/proc/self/status", "utf8"))[1]);
  } catch {}
  process.stderr.write("\\nmaxrss " + kb + "\\n");
});`;
