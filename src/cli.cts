#!/usr/bin/env node
// Starts the topsync command line (src/cli/program.ts) from the bundle that `npm run build` makes of it,
// dist/topsync.cjs, compiled with a V8 code cache; without the bundle, from the modules tsc wrote. This launcher is
// CommonJS (dist/cli.cjs, the `topsync` bin and the Docker image's entry point): an ES module as the entry point
// costs Node.js its ES module loader before the first line runs, some 10 ms of every command. dist/cli.js, an ES
// module, runs it too, for whoever starts `node dist/cli.js`.
//
// A command's start is most of what a short command costs: Node.js reads ES modules one file at a time (some
// 500 with the dependencies), and V8 compiles each function the first time it runs. The bundle is one file; the
// code cache keeps the compiled functions of the last run of the same command, so the next run does not
// compile them again. The cache is a private folder under the system's temporary folder, checked to be this
// user's and no one else's before it is read; TOPSYNC_COMPILE_CACHE=off (or NODE_DISABLE_COMPILE_CACHE=1) turns
// it off, TOPSYNC_COMPILE_CACHE=<folder> puts it elsewhere. A cache V8 refuses (another Node.js, other flags)
// is written anew; one that cannot be written is not used.
//
// V8 checks a cache's version and flags but not its bytes, and a damaged one crashes the process (a flipped bit
// made every later run of the command die with SIGSEGV or SIGTRAP). So a cache file starts with the CRC-32 of
// what follows and is not read unless that matches (damage, not an attacker, is what it guards against: the
// folder is this user's alone, and a file is renamed into place only once whole; SHA-256 of the 2.2 MB took
// 4 to 11 ms of every start, the CRC some 1.4); and a run that reads a cache leaves a marker beside it for as
// long as it runs, so a run that dies while using one (a crash, or a kill) makes the next run of the command
// compile afresh and write the cache anew. A folder that cannot be written or fills up costs speed only: no
// partial file is left behind.

// verbatimModuleSyntax: a CommonJS module says require.
import crypto = require("node:crypto");
import fs = require("node:fs");
import Module = require("node:module");
import os = require("node:os");
import path = require("node:path");
import v8 = require("node:v8");
import vm = require("node:vm");
import zlib = require("node:zlib");

const { createHash } = crypto;
const {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = fs;
const { tmpdir } = os;
const { dirname, join } = path;

const bundle = join(__dirname, "topsync.cjs");
/** Cache files kept in the folder: each build and command has its own, so older ones are removed as new come. */
const KEEP_CACHES = 48;
/** A cache file is the CRC-32 of V8's data (big-endian), then the data. */
const DIGEST_BYTES = 4;
/** A cache's file; a run's partial copy of it (`<cache>.<pid>`) or its marker while it uses it (`<cache>.<pid>.in-use`). */
const CACHE_NAME = /^[0-9a-f]{32}\.v8$/;
const RUN_FILE_NAME = /^([0-9a-f]{32}\.v8)\.(\d+)(\.in-use)?$/;

type Main = (argv: string[]) => Promise<number>;

const heapGrowth = holdHeapGrowth();

async function start(): Promise<void> {
  const main: Main = existsSync(bundle)
    ? loadBundle(bundle)
    : ((await import("./cli/program.js")) as { main: Main }).main;
  process.exitCode = await main(process.argv);
  // The command is done and has closed what it opened; the process exits once its output is out, without waiting
  // for the goodbyes in flight (PostgreSQL's backends ending, sockets closing): tens of milliseconds an operator
  // would otherwise wait for nothing. The daemon and the sandbox return from main only once they have stopped.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit();
}

/**
 * How far V8 lets the heap grow past what survived its last full collection: up to four times when the heap's
 * limit is 2 GB or more (plain `node` on a machine of 4 GB or more), twice below. A purchase run keeps some 20 MB
 * alive, yet under plain `node` it reached 220 MB resident, almost all of it garbage not collected yet (measured in
 * bench/RESULTS.md); held to twice, as below that limit, it stays near 165 MB at the same speed. Set before
 * anything is compiled (the code cache records V8's flags), and not when the operator chose a growth of their own.
 * The flag set, if any.
 */
function holdHeapGrowth(): string | undefined {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) =>
    arg.includes("--heap-growing-percent"),
  );
  if (chosen || v8.getHeapStatistics().heap_size_limit < 2 * 1024 ** 3) return undefined;
  const flag = "--heap-growing-percent=100";
  v8.setFlagsFromString(flag);
  return flag;
}

/** Resolves once what was written to the stream has been handed to the system (at once for files and pipes on Linux). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) resolve();
    else stream.write("", () => resolve());
  });
}

function loadBundle(file: string): Main {
  const bytes = readFileSync(file);
  const cache = cacheFile(file, bytes);
  const cachedData = cache ? readCache(cache) : undefined;
  if (cache && cachedData) markInUse(cache);
  // One-byte text: tools/bundle.js makes sure every byte of the bundle is ASCII.
  const script = new vm.Script(Module.wrap(bytes.toString("latin1")), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const compiled = script.runInThisContext() as (...args: unknown[]) => void;
  const module = new Module(file);
  module.filename = file;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
    dirname(file),
  );
  const require = Module.createRequire(file);
  compiled.call(module.exports, module.exports, require, module, file, dirname(file));
  if (cache && (cachedData === undefined || script.cachedDataRejected)) {
    // At exit, so the functions this command ran are in it; the next run of the same command skips them.
    // The flags the command changed as it ran are put back first (to V8's defaults, then this start's own), else
    // V8 stamps the cache with flags the next start does not have, and refuses it then (src/v8-flags.ts).
    const { restoreRuntimeFlags } = module.exports as { restoreRuntimeFlags?: () => void };
    process.once("exit", () => {
      restoreRuntimeFlags?.();
      if (heapGrowth) v8.setFlagsFromString(heapGrowth);
      writeCache(cache, () => script.createCachedData());
    });
  }
  return (module.exports as { main: Main }).main;
}

/** The cache file for this bundle, this Node.js and this command, or undefined when there is to be none. */
function cacheFile(file: string, bytes: Buffer): string | undefined {
  const setting = process.env.TOPSYNC_COMPILE_CACHE;
  if (setting === "off" || setting === "0" || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const folder = setting || join(tmpdir(), `topsync-compile-cache-${process.getuid?.() ?? "user"}`);
  if (!privateFolder(folder)) return undefined;
  // V8 checks a cache's V8 version, flags and the source's length, not the source itself: the key must.
  const words = process.argv.slice(2).filter((arg) => /^[a-z][a-z-]*$/.test(arg));
  const key = createHash("sha256")
    .update(bundleDigest(file) ?? bytes)
    .update(
      `\0${process.version}\0${process.arch}\0${process.execArgv.join(" ")}\0${words.slice(0, 2).join(" ")}`,
    )
    .digest("hex")
    .slice(0, 32);
  return join(folder, `${key}.v8`);
}

/**
 * The bundle's SHA-256 as tools/bundle.js wrote it beside the bundle, with the bundle's size and modification time
 * (a bundle changed after the build is another key): hashing the 2.4 MB at every start took 4 to 10 ms. Undefined
 * without the file, and the bundle itself is hashed.
 */
function bundleDigest(file: string): string | undefined {
  const digest = readIfPresent(`${file}.sha256`)?.toString("latin1");
  if (!digest || !/^[0-9a-f]{64}$/.test(digest)) return undefined;
  const stat = statSync(file);
  return `${digest}\0${stat.size}\0${stat.mtimeMs}`;
}

/** A folder only this user can write: anyone who could write the cache could choose the code that runs. */
function privateFolder(folder: string): boolean {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stat = lstatSync(folder);
    const uid = process.getuid?.();
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The cache's data when it checks out: its digest matches, and no run that used it died before its end (it left a
 * marker whose process is gone; that cache is removed). Undefined otherwise, and the run writes the cache anew.
 */
function readCache(cache: string): Buffer | undefined {
  if (diedUsing(cache)) {
    rmQuietly(cache);
    return undefined;
  }
  const file = readIfPresent(cache);
  if (!file || file.length <= DIGEST_BYTES) return undefined;
  const data = file.subarray(DIGEST_BYTES);
  return file.readUInt32BE(0) === zlib.crc32(data) ? data : undefined;
}

/** Whether a run that used the cache is gone without removing its marker; those markers are removed. */
function diedUsing(cache: string): boolean {
  const folder = dirname(cache);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return false;
  }
  let died = false;
  for (const name of names) {
    const run = RUN_FILE_NAME.exec(name);
    if (!run?.[3] || join(folder, run[1] as string) !== cache || running(Number(run[2]))) continue;
    rmQuietly(join(folder, name));
    died = true;
  }
  return died;
}

/** Marks the cache as used by this run until it exits; a folder the marker cannot be written to goes unguarded. */
function markInUse(cache: string): void {
  const marker = `${cache}.${process.pid}.in-use`;
  try {
    writeFileSync(marker, "", { mode: 0o600 });
    process.once("exit", () => rmQuietly(marker));
  } catch {
    // A folder that cannot be written has no marker; the cache's digest still guards what it holds.
  }
}

/**
 * Writes the cache through a partial file of this run's own, renamed into place once whole. The partial file is
 * opened before V8 is asked for the data, so a folder that cannot be written costs no more than the attempt; one
 * that fills up midway has its partial file removed.
 */
function writeCache(cache: string, data: () => Buffer): void {
  const partial = `${cache}.${process.pid}`;
  try {
    const fd = openSync(partial, "w", 0o600);
    try {
      const cached = data();
      const digest = Buffer.alloc(DIGEST_BYTES);
      digest.writeUInt32BE(zlib.crc32(cached));
      writeFileSync(fd, digest);
      writeFileSync(fd, cached);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, cache);
    pruneCaches(dirname(cache));
  } catch {
    // A cache is an optimisation: a folder that went away or filled up costs the next run its speed only.
    rmQuietly(partial);
  }
}

/**
 * Removes all but the KEEP_CACHES newest cache files (a cache is written once per build and command), and the
 * partial files and markers of runs that are gone (a partial file of a run killed while writing; a marker of a run
 * that died using its cache takes that cache with it).
 */
function pruneCaches(folder: string): void {
  const names = readdirSync(folder);
  for (const name of names) {
    const run = RUN_FILE_NAME.exec(name);
    if (!run || running(Number(run[2]))) continue;
    rmQuietly(join(folder, name));
    if (run[3]) rmQuietly(join(folder, run[1] as string));
  }
  const caches = names
    .filter((name) => CACHE_NAME.test(name) && existsSync(join(folder, name)))
    .map((name) => {
      const path = join(folder, name);
      return { path, written: statSync(path).mtimeMs };
    });
  if (caches.length <= KEEP_CACHES) return;
  caches.sort((a, b) => b.written - a.written);
  for (const old of caches.slice(KEEP_CACHES)) rmSync(old.path, { force: true });
}

/** Whether a process of this id is alive (one of another user's counts: the folder is private, so it is not ours). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function rmQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Left for the next run's pruning.
  }
}

// Last, so the exit handlers find every constant above declared.
void start();
