// One database handle for both homes of the ledger: PGlite in a local folder (the embedded default) or a
// PostgreSQL server through postgres.js. Everything above this file runs the same drizzle code on either.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve as resolvePath } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { TopsyncError } from "../errors.js";
import { holdHeapLean, setRuntimeFlag } from "../v8-flags.js";
import { acquireDirLock } from "./dir-lock.js";
import * as schema from "./schema.js";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * Raw statements on the hot paths of the ledger, run as named prepared statements (one round trip each on
 * PostgreSQL; drizzle's `execute` sends every statement unprepared, which costs a second round trip).
 */
export interface Queryable {
  all<T>(statement: SQL): Promise<T[]>;
}

/** Either a drizzle database (for the query builder) or a Queryable; `rows()` runs a statement on both. */
export type Executor = Db | Queryable;

export interface Database extends Queryable {
  db: Db;
  /** Runs `body` in one transaction whose statements are prepared like `all`. */
  transaction<T>(body: (tx: Queryable) => Promise<T>): Promise<T>;
  kind: "pglite" | "postgres";
  /** Where the data lives, without credentials: a folder, "memory", or host/database. */
  location: string;
  /** PostgreSQL only: calls `onNotify` for each NOTIFY on `channel`; resolves to an unsubscribe. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Marks a run as alive for as long as this process holds it (a PostgreSQL session lock on PostgreSQL). */
  holdRunLock(runId: string): Promise<() => Promise<void>>;
  /**
   * Opens, without waiting, the connections a purchase run is about to need (a connection of the ledger
   * statements' pool, and the session of the next `holdRunLock`), so that connecting overlaps with what the run
   * does first instead of delaying its first purchase. PostgreSQL only; a failure here is met again, and
   * reported, where the connection is used.
   */
  warm(): void;
  /** Whether the run that owns rows is still alive somewhere; a dead run's `submitting` rows are in doubt. */
  isRunAlive(runId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The ledger's hot statements (`all`, `transaction`: claims, transitions) run on sessions of their own, tuned for
 * what they do — look a few rows up by key among pages that stay cached. PostgreSQL's default random_page_cost
 * (4, for spinning disks) makes a sequential scan of a young ledger look cheaper than a handful of primary-key
 * probes; and a bitmap scan never marks the dead index entries it passes, so the in-flight sum of the wallet guard
 * would read every `submitting` entry left since the last vacuum, while a plain index scan marks them once and
 * skips them after. The statements are written to need no plan of their own per set of values (ids travel as
 * arrays, ranges are bounded), so each is planned once when first prepared. Reports and commands (`db`) keep
 * the server's settings, but for JIT (below).
 *
 * JIT compilation is off on both pools. PostgreSQL compiles a statement whose estimated cost passes
 * jit_above_cost (100,000) on every execution, and a generic plan estimates a range over a large ledger at a
 * third of its rows: on a ledger of 10,000,000 purchases every claim paid 25-35 ms of compiling for a statement
 * that reads a few dozen rows (a run went from 2,100 purchases a second to 350). No statement of topsync's runs
 * long enough for compiled code to pay for itself.
 */
const SESSION_SETTINGS = { application_name: "topsync", jit: "off" };
const HOT_PATH_SETTINGS = {
  ...SESSION_SETTINGS,
  random_page_cost: "1.1",
  enable_bitmapscan: "off",
  plan_cache_mode: "force_generic_plan",
};

/** Advisory lock namespace of run liveness locks (the first key of the two-key form). */
const RUN_LOCK_SPACE = 7263;

export interface DatabaseOptions {
  /** postgres:// URL; empty means the embedded database. */
  url?: string;
  /** Folder of the embedded database; "memory://" keeps it in memory (tests). */
  pgliteDir?: string;
  /** Connections in each of the two PostgreSQL pools (hot ledger statements, and everything else). */
  maxConnections?: number;
  /**
   * On the embedded database, hold V8's heap lean (src/v8-flags.ts) from before PGlite starts, whose start-up's
   * garbage would otherwise grow the young generation first: the two share the process's memory. Commands and the
   * daemon ask for it; tests keep V8's defaults.
   */
  leanHeap?: boolean;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url
    ? openPostgres(options.url, options.maxConnections ?? 10)
    : openEmbedded(options.pgliteDir ?? "./.topsync/pglite", options.leanHeap === true);
}

/** The embedded databases this process has open, by folder, with how many openings use each. */
const embedded = new Map<string, { opening: Promise<Database>; users: number }>();

/**
 * The embedded database in `dir`, one PGlite instance per folder in this process however many times it is opened
 * (the demo runs one command after another, each opening the ledger): two instances on one folder each keep their
 * own buffers, so one would not see what the other wrote, and both would write the same files. Each opening's
 * `close` is its own; the folder is closed (and unlocked) when the last one closes. In memory, each opening is a
 * database of its own.
 */
async function openEmbedded(dir: string, leanHeap: boolean): Promise<Database> {
  if (dir.startsWith("memory://")) return openPglite(dir, leanHeap);
  const key = resolvePath(dir);
  let shared = embedded.get(key);
  if (!shared) {
    const opening = openPglite(dir, leanHeap);
    shared = { opening, users: 0 };
    embedded.set(key, shared);
    opening.catch(() => embedded.delete(key));
  }
  const entry = shared;
  entry.users++; // before the wait: an opening closed meanwhile must not close the folder under this one
  const database = await entry.opening;
  let closed = false;
  return {
    ...database,
    async close() {
      if (closed) return;
      closed = true;
      entry.users--;
      if (entry.users > 0) return;
      embedded.delete(key);
      await database.close();
    },
  };
}

/**
 * postgres.js reads the server's array types on every new connection (`fetch_types`), one round trip before the
 * connection's first statement, so that it can parse array columns into JavaScript arrays and send arrays as
 * parameters. topsync does neither: arrays travel as text literals cast in the statement (`any($1::bigint[])`,
 * idArray), and no statement returns an array column (drizzle would parse one from its text if one did).
 */
const FETCH_TYPES = false;

async function openPostgres(url: string, max: number): Promise<Database> {
  const client = postgres(url, {
    max,
    fetch_types: FETCH_TYPES,
    onnotice: () => {},
    connection: SESSION_SETTINGS,
  });
  const hot = postgres(url, {
    max,
    fetch_types: FETCH_TYPES,
    onnotice: () => {},
    connection: HOT_PATH_SETTINGS,
  });
  // The same value handling as drizzle gives `client` (drizzle sets it on the client it wraps): dates and JSON
  // travel as text both ways, so a statement answers alike on either pool.
  drizzlePostgres(hot);
  try {
    await client`select 1`;
  } catch (error) {
    await Promise.all([client.end({ timeout: 1 }), hot.end({ timeout: 1 })]);
    throw new TopsyncError(
      "DB_UNREACHABLE",
      `cannot connect to the database at ${safeLocation(url)}: ${(error as Error).message}`,
      1,
      { cause: error },
    );
  }
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  const on = (sql: postgres.Sql | postgres.TransactionSql): Queryable => ({
    all: async <T>(statement: SQL) => {
      const query = dialect.sqlToQuery(statement);
      return (await sql.unsafe(query.sql, query.params as never[], { prepare: true })) as unknown as T[];
    },
  });
  // A session of its own per run lock rather than a reserved pool connection: postgres.js 3.4 crashes the process
  // when a query is sent on a reserved connection the server has closed (a database restart), while ending a
  // dedicated client is always safe. No max_lifetime: recycling the session would drop the lock. `warm` opens
  // the next one ahead (connecting it: postgres.js connects on the first statement).
  const lockSession = () =>
    postgres(url, {
      max: 1,
      max_lifetime: null,
      fetch_types: FETCH_TYPES,
      onnotice: () => {},
      connection: SESSION_SETTINGS,
    });
  let spare: postgres.Sql | undefined;
  return {
    db,
    ...on(hot),
    transaction: (body) => hot.begin((tx) => body(on(tx))) as never,
    kind: "postgres",
    location: safeLocation(url),
    async listen(channel, onNotify) {
      const subscription = await client.listen(channel, onNotify);
      return () => subscription.unlisten();
    },
    warm() {
      // Two: the run's first statements (its heartbeat, today's budget row) go out together.
      for (let i = 0; i < 2; i++) hot`select 1`.catch(() => {});
      if (spare) return;
      spare = lockSession();
      spare`select 1`.catch(() => {});
    },
    async holdRunLock(runId) {
      const session = spare ?? lockSession();
      spare = undefined;
      try {
        await session`select pg_advisory_lock(${RUN_LOCK_SPACE}, hashtext(${runId}))`;
      } catch (error) {
        await session.end({ timeout: 1 }).catch(() => {});
        throw error;
      }
      // Given back by name, then the session ends without waiting for the server to close it: the lock is free when
      // this resolves, and the caller does not wait for the backend to exit. (A session that is gone took its lock
      // with it.)
      return async () => {
        await session`select pg_advisory_unlock(${RUN_LOCK_SPACE}, hashtext(${runId}))`.catch(() => {});
        await session.end({ timeout: 0 }).catch(() => {});
      };
    },
    async isRunAlive(runId) {
      // Taken and given back within the statement's own transaction.
      const [row] = await client<
        { got: boolean }[]
      >`select pg_try_advisory_xact_lock(${RUN_LOCK_SPACE}, hashtext(${runId})) as got`;
      return !row?.got;
    },
    close: async () => {
      const unused = spare;
      spare = undefined;
      await Promise.all([client.end({ timeout: 5 }), hot.end({ timeout: 5 }), unused?.end({ timeout: 1 })]);
    },
  };
}

/**
 * The embedded database's page cache. PGlite starts PostgreSQL with 128 MB, and PostgreSQL writes all of it at
 * start: 118 MB more resident memory for every command on the embedded database (a `purchases list` took 360 MB).
 * The files it caches are in the system's own cache as well, so a smaller one costs reads, not disk access. As
 * the ledger grows PostgreSQL fills what it has, and WebAssembly memory is never given back: 8 MB rather than 16 MB
 * held a run of 30,000 purchases 9 MB lower (198 against 207 MB peak) for the same CPU time.
 */
const PGLITE_SHARED_BUFFERS = "8MB";

/**
 * PGlite is PostgreSQL compiled to a 9 MB WebAssembly module. V8 compiles it twice by default: at once with its
 * baseline compiler (Liftoff), then again with its optimising compiler (TurboFan) on background threads, whose
 * working memory stays in the process's malloc arenas for good: some 50 MB of resident memory (PGlite opened with one
 * query: 181 MB peak, 131 MB with Liftoff only; `npm run bench:embedded-floor`). The second compilation also takes a
 * core from the command while it starts, and on a machine of 2 cores the command ran faster without it (opening
 * 0.5–0.8 s instead of 1.7 s, and a mixed workload of 300,000 rows 5.6 s instead of 8.4 s). So the embedded database
 * runs on Liftoff's code. The flag is read when a module is compiled, so it is set before PGlite loads; it is set only
 * when the embedded database is opened, and a command on PostgreSQL compiles nothing that it would change.
 */
function compileWebAssemblyOnce(): void {
  // Put back with the tiering flags it turns off on its way: V8's flag hash counts them too.
  setRuntimeFlag("--liftoff-only", "--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering");
}

async function openPglite(dir: string, leanHeap: boolean): Promise<Database> {
  const inMemory = dir.startsWith("memory://");
  const release = inMemory ? () => {} : acquireDirLock(dir);
  try {
    if (!inMemory) mkdirSync(dir, { recursive: true });
    if (leanHeap) holdHeapLean();
    compileWebAssemblyOnce();
    // Loaded only for the embedded database: a command on PostgreSQL does not pay for PGlite's start-up. Its
    // CommonJS build, by require: the CLI runs from a bundle compiled with a V8 code cache (src/cli.cts), and a
    // dynamic import() from code V8 took from that cache has no module loader to call.
    const { PGlite } = createRequire(import.meta.url)(
      "@electric-sql/pglite",
    ) as typeof import("@electric-sql/pglite");
    const { drizzle: drizzlePglite } = await import("drizzle-orm/pglite");
    const client = new PGlite(inMemory ? undefined : dir, {
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    });
    await client.waitReady;
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    const on = (target: Pick<PGlite, "query">): Queryable => ({
      all: async <T>(statement: SQL) => {
        const query = dialect.sqlToQuery(statement);
        return (await target.query<T>(query.sql, query.params as unknown[])).rows;
      },
    });
    // One process owns the embedded database (the lock file), so a run is alive exactly while it is here.
    const liveRuns = new Set<string>();
    return {
      db,
      ...on(client),
      transaction: (body) => client.transaction((tx) => body(on(tx))),
      kind: "pglite",
      location: inMemory ? "memory" : dir,
      async listen() {
        return async () => {};
      },
      warm() {},
      async holdRunLock(runId) {
        liveRuns.add(runId);
        return async () => {
          liveRuns.delete(runId);
        };
      },
      async isRunAlive(runId) {
        return liveRuns.has(runId);
      },
      async close() {
        await client.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** host:port/database of a URL, without user or password. */
export function safeLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}${parsed.pathname}`;
  } catch {
    return "(unreadable database url)";
  }
}

const dialect = new PgDialect();

/** Rows of a raw statement, whichever driver ran it (postgres.js answers an array, PGlite `{rows}`). */
export async function rows<T>(db: Executor, query: SQL): Promise<T[]> {
  if (isQueryable(db)) return db.all<T>(query);
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

function isQueryable(db: Executor): db is Queryable {
  return typeof (db as Partial<Queryable>).all === "function";
}
