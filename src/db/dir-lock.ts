// The embedded database is one process's: a lock file in its folder refuses a second topsync on it,
// with a message naming the holder. A lock left by a dead process is taken over.
//
// The file holds the holder's pid and host name. A pid alone cannot say who holds the folder across containers
// sharing a volume: each container's topsync is pid 1 there, so a second container read "pid 1" as its own stale
// lock, took it, and ran a second process on the folder. A lock from another host (another container, another
// machine) is therefore never taken: whether its holder lives cannot be seen from here, and the message says how
// to clear it when it does not.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { TopsyncError } from "../errors.js";

interface Holder {
  pid: number;
  /** Undefined in a lock written before locks named their host: taken to be this host. */
  host: string | undefined;
}

export function acquireDirLock(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "topsync.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, `${process.pid} ${hostname()}\n`);
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readHolder(readFileSync(file, "utf8"));
      if (holder.host !== undefined && holder.host !== hostname())
        throw new TopsyncError(
          "DB_LOCKED",
          `the embedded database in ${dir} is in use by topsync process ${holder.pid} on host ${holder.host} ` +
            "(another container or machine); stop it, or set database.url / DATABASE_URL to share a PostgreSQL " +
            `server between processes. If no topsync runs there any more, delete ${file}`,
        );
      if (holder.pid === process.pid || !isAlive(holder.pid)) {
        rmSync(file, { force: true });
        continue;
      }
      throw new TopsyncError(
        "DB_LOCKED",
        `the embedded database in ${dir} is in use by another topsync process (pid ${holder.pid}); ` +
          "stop it, or set database.url / DATABASE_URL to share a PostgreSQL server between processes",
      );
    }
  }
  throw new TopsyncError("DB_LOCKED", `cannot lock the embedded database in ${dir}`);
}

function readHolder(text: string): Holder {
  const [pid, host] = text.trim().split(/\s+/);
  return { pid: Number(pid), host: host || undefined };
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
  const holder = readHolder(text);
  if (holder.host !== undefined && holder.host !== hostname()) return holder.pid;
  return holder.pid !== process.pid && isAlive(holder.pid) ? holder.pid : undefined;
}
