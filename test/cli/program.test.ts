import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers/cli.js";

const packageVersion = (JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { version: string })
  .version;

describe("the topsync program", () => {
  it("--version prints the package's version and exits 0", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toBe(packageVersion);
  });
});

describe("the code cache (src/cli.ts)", () => {
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
      const second = await runCli(["-c", config, "migrate"], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain("is up to date");
      expect(readdirSync(cache)).toEqual(files);
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
      for (const name of ["cli.js", "topsync.cjs", "topsync.cjs.sha256"])
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
