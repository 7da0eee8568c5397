// The ledger's database as `topsync doctor` sees it: the embedded database's folder (writable, not held by
// another process), the database reachable, and every migration applied. Opens it; changes nothing.
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { type Database, openDatabase, safeLocation } from "../db/client.js";
import { dirLockHolder } from "../db/dir-lock.js";
import { pendingMigrations } from "../db/migrate.js";
import { type CheckResult, fail, pass, skip, warn } from "./check.js";

export interface DatabaseCheckOptions {
  /** PostgreSQL URL, or empty for the embedded database. */
  url: string;
  pgliteDir: string;
  /** A container's healthcheck: the embedded database held by the running daemon is expected, not a fault. */
  quick: boolean;
}

export async function checkDatabase(options: DatabaseCheckOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  if (!options.url) {
    const folder = await checkFolder(options.pgliteDir, options.quick);
    results.push(folder.result);
    if (!folder.open) return [...results, skip("database", folder.why), skip("migrations", folder.why)];
  }
  let database: Database;
  try {
    database = await openDatabase({ url: options.url, pgliteDir: options.pgliteDir, maxConnections: 1 });
  } catch (error) {
    const where = options.url ? safeLocation(options.url) : options.pgliteDir;
    return [
      ...results,
      fail(
        "database",
        (error as Error).message,
        options.url
          ? `check database.url (or DATABASE_URL): is PostgreSQL running at ${where} and reachable from here, and are the user, password and database right?`
          : `make ${where} a folder this user can write (database.pglite_dir), or set database.url to a PostgreSQL server`,
      ),
      skip("migrations", "the database could not be opened"),
    ];
  }
  try {
    results.push(
      pass(
        "database",
        `${database.kind === "postgres" ? "PostgreSQL" : "embedded"} at ${database.location} answers`,
      ),
    );
    results.push(await checkMigrations(database));
  } finally {
    await database.close().catch(() => {});
  }
  return results;
}

async function checkMigrations(database: Database): Promise<CheckResult> {
  let pending: string[];
  try {
    pending = await pendingMigrations(database.db);
  } catch (error) {
    return fail(
      "migrations",
      `cannot read which migrations are applied: ${(error as Error).message}`,
      "run `topsync migrate` and read what it says",
    );
  }
  if (pending.length === 0) return pass("migrations", "every migration is applied");
  const named = pending.length === 1 ? `migration ${pending[0]} is` : `${pending.length} migrations are`;
  return fail(
    "migrations",
    `${named} not applied${pending.length > 1 ? `: ${pending.join(", ")}` : ""}`,
    "run `topsync migrate` (it takes a lock, so several replicas may run it at once; `topsync run` applies them when it starts, too)",
  );
}

interface FolderVerdict {
  result: CheckResult;
  /** Whether doctor may open the database (no other process holds it). */
  open: boolean;
  why: string;
}

async function checkFolder(dir: string, quick: boolean): Promise<FolderVerdict> {
  const folder = resolve(dir);
  const existing = await nearestExisting(folder);
  try {
    await access(existing, constants.W_OK);
  } catch (error) {
    return {
      result: fail(
        "embedded database folder",
        `${existing === folder ? folder : `${existing} (where ${folder} would be made)`} is not writable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        "give this user a writable folder (a volume) for database.pglite_dir, or set database.url to a PostgreSQL server",
      ),
      open: false,
      why: "the embedded database's folder is not writable",
    };
  }
  const holder = dirLockHolder(folder);
  if (holder === undefined) {
    const made = await stat(join(folder, "PG_VERSION")).then(
      () => true,
      () => false,
    );
    if (!made)
      return {
        result: pass(
          "embedded database folder",
          `${folder} can be written; the first command that opens it makes the database there`,
        ),
        open: false,
        why: "no embedded database yet (doctor does not make one)",
      };
    return {
      result: pass("embedded database folder", `${folder} is writable and no other process holds it`),
      open: true,
      why: "",
    };
  }
  const held = `${folder} is held by topsync process ${holder}`;
  const why = `the embedded database has one process at a time, and process ${holder} holds it`;
  if (quick)
    return {
      result: warn(
        "embedded database folder",
        `${held} (the running daemon, as a healthcheck expects)`,
        "none, if that process is this container's daemon",
      ),
      open: false,
      why,
    };
  return {
    result: fail(
      "embedded database folder",
      held,
      "stop that process before starting another on this folder, or set database.url to a PostgreSQL server that several processes share",
    ),
    open: false,
    why,
  };
}

async function nearestExisting(path: string): Promise<string> {
  for (let at = path; ; at = dirname(at)) {
    try {
      await stat(at);
      return at;
    } catch {
      if (dirname(at) === at) return at;
    }
  }
}
