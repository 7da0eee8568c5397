// The embedded database is one process's: a lock file in its folder refuses a second topsync on it,
// with a message naming the holder. A lock left by a dead process is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { TopsyncError } from "../errors.js";

export function acquireDirLock(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "topsync.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(file, "utf8").trim());
      if (holder === process.pid || !isAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      throw new TopsyncError(
        "DB_LOCKED",
        `the embedded database in ${dir} is in use by another topsync process (pid ${holder}); ` +
          "stop it, or set database.url / DATABASE_URL to share a PostgreSQL server between processes",
      );
    }
  }
  throw new TopsyncError("DB_LOCKED", `cannot lock the embedded database in ${dir}`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The live process other than this one that holds the embedded database in `dir`, if any (read, not taken). */
export function dirLockHolder(dir: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, "topsync.lock"), "utf8");
  } catch {
    return undefined;
  }
  const holder = Number(text.trim());
  return holder !== process.pid && isAlive(holder) ? holder : undefined;
}
