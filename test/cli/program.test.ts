import { execFile, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, ROOT, runCli, runScript } from "../helpers/cli.js";

/** The user `nobody`, whom a test run as root runs the command as where it needs a folder it cannot write. */
const NOBODY = 65534;

const packageVersion = (JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { version: string })
  .version;

describe("the topsync program", () => {
  it("--version prints the package's version and exits 0", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it("starts from the CommonJS launcher as the bin, and as an ES module from dist/cli.js alike", async () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin.topsync).toBe("dist/cli.cjs");
    expect(CLI).toBe(join(ROOT, "dist", "cli.cjs"));
    expect(readFileSync(CLI, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n"use strict";/);
    const run = async (cli: string) => {
      const { code, stdout, rawStderr } = await runScript(cli, [
        "--config",
        join(ROOT, "no-such.yaml"),
        "purchases",
        "show",
        "1",
      ]);
      // The same answer but for the log line's time.
      return { code, stdout, stderr: rawStderr.replace(/"time":\d+,/g, "") };
    };
    const asBin = await run(CLI);
    expect(asBin.code).toBe(78);
    expect(asBin.stderr).toContain("no-such.yaml");
    expect(await run(join(ROOT, "dist", "cli.js"))).toEqual(asBin);
  });
});

describe("the code cache (src/cli.cts)", () => {
  it("is written in a private folder and the next run of the command uses it, the embedded database included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-cache-test-"));
    try {
      const cache = join(dir, "cache");
      const config = join(dir, "config.yaml");
      writeFileSync(
        config,
        [
          "reseller: { base_url: http://127.0.0.1:1, api_key: k }",
          "analytics: { base_url: http://127.0.0.1:1, api_key: k }",
          `database: { url: "", pglite_dir: ${JSON.stringify(join(dir, "pglite"))} }`,
          "",
        ].join("\n"),
      );
      const env = { TOPSYNC_COMPILE_CACHE: cache };
      const first = await runCli(["-c", config, "migrate"], env);
      expect(first.code, first.stderr).toBe(0);
      const files = readdirSync(cache);
      expect(files).toHaveLength(1);
      expect(statSync(join(cache, files[0] as string)).mode & 0o077).toBe(0);
      // From the cache now, PGlite included (tools/bundle.js refuses a bundle with a dynamic import(): code V8
      // takes from a cache may have no module loader to call).
      const written = statSync(join(cache, files[0] as string));
      const second = await runCli(["-c", config, "migrate"], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain("is up to date");
      expect(readdirSync(cache)).toEqual(files);
      // Taken, not refused and written again: the flags the embedded database sets as it opens (src/v8-flags.ts)
      // are put back before the cache is written, so it carries the flags the next start has.
      const after = statSync(join(cache, files[0] as string));
      expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the 48 newest cache files: those of older builds go as new ones are written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-cache-test-"));
    try {
      const { chmodSync, utimesSync } = await import("node:fs");
      chmodSync(dir, 0o700);
      // 60 caches of earlier builds, the oldest first, and a file that is not a cache
      const old = Array.from({ length: 60 }, (_, i) => `${i.toString(16).padStart(32, "0")}.v8`);
      old.forEach((name, i) => {
        writeFileSync(join(dir, name), "stale");
        utimesSync(join(dir, name), 1_000_000 + i, 1_000_000 + i);
      });
      writeFileSync(join(dir, "notes.txt"), "mine");
      const result = await runCli(["--help"], { TOPSYNC_COMPILE_CACHE: dir });
      expect(result.code).toBe(0);
      const left = readdirSync(dir);
      expect(left).toHaveLength(49);
      expect(left).toContain("notes.txt");
      const fresh = left.filter((name) => name !== "notes.txt" && !old.includes(name));
      expect(fresh).toHaveLength(1); // this run's cache
      // the 47 newest of the old ones stay, the 13 oldest are gone
      expect(left.filter((name) => old.includes(name)).sort()).toEqual(old.slice(13).sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is keyed by the digest the build wrote beside the bundle, and by the bundle's size and time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-cache-test-"));
    try {
      const { chmodSync, copyFileSync, mkdirSync, utimesSync } = await import("node:fs");
      const { execFileSync } = await import("node:child_process");
      const cache = join(dir, "cache");
      mkdirSync(cache, { mode: 0o700 });
      const dist = join(dir, "dist");
      mkdirSync(dist);
      // dist/cli.js, the ES module entry, runs dist/cli.cjs: the launcher either way.
      for (const name of ["cli.js", "cli.cjs", "topsync.cjs", "topsync.cjs.sha256"])
        copyFileSync(join(ROOT, "dist", name), join(dist, name));
      // The bundle finds its package (its version, its data files) in a package.json above it.
      copyFileSync(join(ROOT, "package.json"), join(dir, "package.json"));
      chmodSync(dir, 0o700);
      const help = () =>
        execFileSync(process.execPath, [join(dist, "cli.js"), "--help"], {
          env: { PATH: process.env.PATH ?? "", TOPSYNC_COMPILE_CACHE: cache },
        }).toString();
      const caches = () => readdirSync(cache).sort();
      expect(help()).toContain("Usage: topsync");
      const first = caches();
      expect(first).toHaveLength(1);
      help();
      expect(caches()).toEqual(first); // the same bundle: the same cache
      // The bundle touched after its build (as an edit would): another key, so the old cache is never read for it.
      utimesSync(join(dist, "topsync.cjs"), new Date(), new Date(Date.now() + 5000));
      expect(help()).toContain("Usage: topsync");
      expect(caches()).toHaveLength(2);
      // No digest file: the bundle's bytes are hashed instead.
      rmSync(join(dist, "topsync.cjs.sha256"));
      expect(help()).toContain("Usage: topsync");
      expect(caches()).toHaveLength(3);
      // A digest file that is not a digest is ignored the same way: the bytes are hashed, the same key as without it.
      writeFileSync(join(dist, "topsync.cjs.sha256"), "../../etc/passwd\n");
      expect(help()).toContain("Usage: topsync");
      expect(caches()).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is not read from a folder others can write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-cache-test-"));
    try {
      const { chmodSync } = await import("node:fs");
      chmodSync(dir, 0o777);
      const result = await runCli(["--help"], { TOPSYNC_COMPILE_CACHE: dir });
      expect(result.code).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a code cache that does not check out costs speed only (src/cli.cts)", () => {
  /** A private cache folder in a folder of its own, removed after `body`. */
  async function withCacheFolder(body: (cache: string) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), "topsync-cache-test-"));
    try {
      const cache = join(dir, "cache");
      mkdirSync(cache, { mode: 0o700 });
      await body(cache);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * `topsync --help` with the cache in `cache`: it must exit 0 and print the usage whatever the cache holds. `shell`
   * is run first in the same shell (limits); `cli` is the command to run; `nobody` runs it as nobody when the tests
   * run as root.
   */
  async function help(
    cache: string,
    options: { shell?: string; cli?: string; nobody?: boolean } = {},
  ): Promise<void> {
    const user = options.nobody && process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
    const cli = options.cli ?? CLI;
    const result = await new Promise<{ code: unknown; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "/bin/sh",
        ["-c", `${options.shell ?? "true"} && exec "$0" "$1" --help`, process.execPath, cli],
        { env: { PATH: process.env.PATH ?? "", TOPSYNC_COMPILE_CACHE: cache }, timeout: 60_000, ...user },
        (error, stdout, stderr) =>
          resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr }),
      );
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Usage: topsync");
  }

  /**
   * dist/cli.cjs and the bundle with its digest, copied to `dir`/dist with the package.json the bundle looks for
   * above: nobody may not be able to read the checkout.
   */
  function copyOfCli(dir: string): string {
    const dist = join(dir, "dist");
    mkdirSync(dist, { mode: 0o755 });
    for (const name of ["cli.cjs", "topsync.cjs", "topsync.cjs.sha256"])
      copyFileSync(join(ROOT, "dist", name), join(dist, name));
    copyFileSync(join(ROOT, "package.json"), join(dir, "package.json"));
    return join(dist, "cli.cjs");
  }

  const onlyCache = (cache: string): string => {
    const files = readdirSync(cache);
    expect(files).toHaveLength(1);
    return join(cache, files[0] as string);
  };

  it("a cache damaged after it was written (bit rot, a bad restore) is not read, and is written anew", async () => {
    await withCacheFolder(async (cache) => {
      await help(cache);
      const file = onlyCache(cache);
      const damaged = readFileSync(file);
      // A byte in every 997 inverted, past the first 64: V8 crashes on such a cache rather than refusing it.
      for (let i = 64; i < damaged.length; i += 997) damaged[i] = (damaged[i] as number) ^ 0xff;
      writeFileSync(file, damaged);
      await help(cache);
      const rewritten = readFileSync(onlyCache(cache));
      expect(rewritten.equals(damaged)).toBe(false);
      await help(cache); // and the rewritten one is good
      expect(readFileSync(onlyCache(cache)).equals(rewritten)).toBe(true);
      // One bit flipped, in the middle of V8's data: the cache's CRC-32 finds it too.
      rewritten[rewritten.length >> 1] = (rewritten[rewritten.length >> 1] as number) ^ 0x10;
      writeFileSync(onlyCache(cache), rewritten);
      await help(cache);
      expect(readFileSync(onlyCache(cache)).equals(rewritten)).toBe(false);
    });
  });

  it("a truncated cache is not read, and is written anew", async () => {
    await withCacheFolder(async (cache) => {
      await help(cache);
      const file = onlyCache(cache);
      const whole = readFileSync(file);
      writeFileSync(file, whole.subarray(0, whole.length >> 1));
      await help(cache);
      expect(readFileSync(onlyCache(cache)).length).toBeGreaterThan(whole.length >> 1);
    });
  });

  it("a run that died while using a cache makes the next run compile afresh and write it anew", async () => {
    await withCacheFolder(async (cache) => {
      const sandbox = async (stop: NodeJS.Signals) => {
        const child = spawn(
          process.execPath,
          [CLI, "sandbox", "--reseller-port", "0", "--analytics-port", "0", "--receiver-port", "0"],
          {
            env: { PATH: process.env.PATH ?? "", TOPSYNC_COMPILE_CACHE: cache },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        const exited = new Promise<number | string>((resolve) =>
          child.once("exit", (code, signal) => resolve(code ?? signal ?? "?")),
        );
        let out = "";
        child.stdout.on("data", (chunk) => {
          out += String(chunk);
          if (out.includes("Ctrl-C stops")) child.kill(stop);
        });
        return exited;
      };
      expect(await sandbox("SIGINT")).toBe(0);
      const written = statSync(onlyCache(cache)).mtimeMs;
      // This run reads the cache and is killed while it runs, as a crash in code taken from the cache would end it.
      expect(await sandbox("SIGKILL")).toBe("SIGKILL");
      expect(await sandbox("SIGINT")).toBe(0);
      // A new file renamed into place: this run did not trust the cache the killed run was using. (Its time, not
      // its inode: a file system may give the new file the number the deleted one had.)
      expect(statSync(onlyCache(cache)).mtimeMs).toBeGreaterThan(written);
      expect(await sandbox("SIGINT")).toBe(0);
    });
  });

  it("a folder that cannot be written, holding a damaged cache, leaves every run correct", async () => {
    await withCacheFolder(async (cache) => {
      const asRoot = process.getuid?.() === 0;
      const cli = asRoot ? copyOfCli(dirname(cache)) : CLI;
      await help(cache, { cli });
      const file = onlyCache(cache);
      const damaged = readFileSync(file);
      for (let i = 64; i < damaged.length; i += 997) damaged[i] = (damaged[i] as number) ^ 0xff;
      writeFileSync(file, damaged);
      chmodSync(cache, 0o500);
      if (asRoot) {
        // root writes anywhere: the runs are nobody's, in a folder that is nobody's.
        chmodSync(dirname(cache), 0o755);
        chownSync(cache, NOBODY, NOBODY);
        chownSync(file, NOBODY, NOBODY);
      }
      for (let run = 0; run < 2; run++) await help(cache, { cli, nobody: true });
      expect(readdirSync(cache)).toEqual([basename(file)]);
      expect(readFileSync(file).equals(damaged)).toBe(true);
    });
  });

  it("a cache folder that fills up leaves no partial file behind", async () => {
    await withCacheFolder(async (cache) => {
      // Files of at most 64 KiB: the cache (some 500 KiB) stops short, as on a full disk.
      for (let run = 0; run < 2; run++) await help(cache, { shell: "ulimit -f 64" });
      expect(readdirSync(cache)).toEqual([]);
    });
  });
});
