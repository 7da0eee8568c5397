#!/usr/bin/env node
// Starts the topsync command line (src/cli/program.ts) from the bundle that `npm run build` makes of it,
// dist/topsync.cjs, compiled with a V8 code cache; without the bundle, from the modules tsc wrote.
//
// A command's start is most of what a short command costs: Node.js reads ES modules one file at a time (some
// 500 with the dependencies), and V8 compiles each function the first time it runs. The bundle is one file; the
// code cache keeps the compiled functions of the last run of the same command, so the next run does not
// compile them again. The cache is a private folder under the system's temporary folder, checked to be this
// user's and no one else's before it is read; TOPSYNC_COMPILE_CACHE=off (or NODE_DISABLE_COMPILE_CACHE=1) turns
// it off, TOPSYNC_COMPILE_CACHE=<folder> puts it elsewhere. A cache V8 refuses (another Node.js, other flags)
// is written anew; one that cannot be written is not used.
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";

const bundle = fileURLToPath(new URL("./topsync.cjs", import.meta.url));
/** Cache files kept in the folder: each build and command has its own, so older ones are removed as new come. */
const KEEP_CACHES = 48;

type Main = (argv: string[]) => Promise<number>;

holdHeapGrowth();
const main: Main = existsSync(bundle)
  ? loadBundle(bundle)
  : ((await import("./cli/program.js")) as { main: Main }).main;
process.exitCode = await main(process.argv);
// The command is done and has closed what it opened; the process exits once its output is out, without waiting for
// the goodbyes in flight (PostgreSQL's backends ending, sockets closing): tens of milliseconds an operator would
// otherwise wait for nothing. The daemon and the sandbox return from main only once they have stopped. (The exit
// handlers run here: what they use must be declared above.)
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit();

/**
 * How far V8 lets the heap grow past what survived its last full collection: up to four times when the heap's
 * limit is 2 GB or more (plain `node` on a machine of 4 GB or more), twice below. A purchase run keeps some 20 MB
 * alive, yet under plain `node` it reached 220 MB resident, almost all of it garbage not collected yet (measured in
 * bench/RESULTS.md); held to twice, as below that limit, it stays near 165 MB at the same speed. Set before
 * anything is compiled (the code cache records V8's flags), and not when the operator chose a growth of their own.
 */
function holdHeapGrowth(): void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) =>
    arg.includes("--heap-growing-percent"),
  );
  if (chosen || v8.getHeapStatistics().heap_size_limit < 2 * 1024 ** 3) return;
  v8.setFlagsFromString("--heap-growing-percent=100");
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
  const cachedData = cache ? readIfPresent(cache) : undefined;
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
    process.once("exit", () => writeQuietly(cache, script.createCachedData()));
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

function writeQuietly(file: string, data: Buffer): void {
  try {
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
    pruneCaches(dirname(file));
  } catch {
    // A cache is an optimisation: a folder that went away or filled up costs the next run its speed only.
  }
}

/** Removes all but the KEEP_CACHES newest cache files (a cache is written once per build and command). */
function pruneCaches(folder: string): void {
  const caches = readdirSync(folder)
    .filter((name) => /^[0-9a-f]{32}\.v8$/.test(name))
    .map((name) => {
      const path = join(folder, name);
      return { path, written: statSync(path).mtimeMs };
    });
  if (caches.length <= KEEP_CACHES) return;
  caches.sort((a, b) => b.written - a.written);
  for (const old of caches.slice(KEEP_CACHES)) rmSync(old.path, { force: true });
}
