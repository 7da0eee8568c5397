// The database at start-up: an unreachable server is retried with exponential backoff (1 s doubling to 30 s)
// while /healthz answers and /readyz says why it is not ready; any other failure (a locked PGlite folder, a
// failed migration) ends the daemon with its message.
import type { Clock } from "../clock.js";
import { type Database, openDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { formatDuration } from "../duration.js";
import { TopsyncError } from "../errors.js";
import type { Logger } from "../log/logger.js";

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
/** Connections in each of this replica's two pools (ledger hot path; everything else); run liveness locks have their own. */
const POOL_SIZE = 12;

export interface ConnectOptions {
  url: string | undefined;
  pgliteDir: string;
  logger: Logger;
  clock: Clock;
  signal: AbortSignal;
  /** Told each failed attempt, for /readyz. */
  onFailure: (message: string) => void;
}

/** Opens and migrates the database; undefined when `signal` aborted the retries. */
export async function connectWithRetry(options: ConnectOptions): Promise<Database | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openMigrated(options);
    } catch (error) {
      if (!(error instanceof TopsyncError && error.code === "DB_UNREACHABLE")) throw error;
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
      options.onFailure(error.message);
      options.logger.error(`${error.message}; retrying in ${formatDuration(delay)} (attempt ${attempt + 1})`);
      await options.clock.sleep(delay, options.signal).catch(() => {});
      if (options.signal.aborted) return undefined;
    }
  }
}

async function openMigrated(options: ConnectOptions): Promise<Database> {
  const database = await openDatabase({
    url: options.url,
    pgliteDir: options.pgliteDir,
    maxConnections: POOL_SIZE,
    leanHeap: true,
  });
  try {
    const applied = await migrate(database.db);
    if (applied.length > 0)
      options.logger.info(`applied migrations ${applied.join(", ")} to ${database.location}`);
    return database;
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}
