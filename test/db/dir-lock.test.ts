// The embedded database's lock file: a second topsync on the folder is refused, a lock its holder left behind is
// taken over. In containers every topsync is pid 1: a lock written in another container (another host name) with
// this process's pid is another process's, not this one's own.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireDirLock, dirLockHolder } from "../../src/db/dir-lock.js";

function folder(): string {
  return mkdtempSync(join(tmpdir(), "topsync-dir-lock-"));
}

describe("the embedded database's lock", () => {
  it("is refused when another container's pid 1 holds it, though this process is pid 1 too", () => {
    const dir = folder();
    const file = join(dir, "topsync.lock");
    // What a daemon in another container on the same volume wrote: its pid (1 there, as here) and its host name.
    writeFileSync(file, `${process.pid} other-container-7f3a\n`);
    expect(() => acquireDirLock(dir)).toThrow(
      `the embedded database in ${dir} is in use by topsync process ${process.pid} on host other-container-7f3a`,
    );
    expect(dirLockHolder(dir)).toBe(process.pid);
    expect(readFileSync(file, "utf8")).toBe(`${process.pid} other-container-7f3a\n`);
  });

  it("is taken over when its holder on this host is gone, or was this very pid before a restart", () => {
    for (const stale of [
      `${process.pid} ${hostname()}\n`,
      `${2 ** 22 + 1} ${hostname()}\n`,
      `${process.pid}`,
    ]) {
      const dir = folder();
      writeFileSync(join(dir, "topsync.lock"), stale);
      expect(dirLockHolder(dir)).toBeUndefined();
      const release = acquireDirLock(dir);
      expect(readFileSync(join(dir, "topsync.lock"), "utf8")).toBe(`${process.pid} ${hostname()}\n`);
      release();
    }
  });
});
