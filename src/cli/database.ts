// The database for a command: PostgreSQL when `database.url` or DATABASE_URL is set, else the embedded
// PGlite folder; migrated on open (but for `topsync migrate`, which applies and reports the migrations itself) and
// closed when the command ends.
import { type Database, openDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { mark } from "../timings.js";
import type { CommandContext } from "./context.js";
import { sayOutboxWaits } from "./notify-waiting.js";

type LedgerContext = Pick<CommandContext, "config" | "defer"> & Partial<Pick<CommandContext, "logger">>;

function openConfigured(ctx: LedgerContext): Promise<Database> {
  return openDatabase({
    url: ctx.config.database.url || process.env.DATABASE_URL,
    pgliteDir: ctx.config.database.pglite_dir,
    leanHeap: true,
  });
}

/** The database as it is, not migrated (for `topsync migrate`, which says what it applies), closed when the command ends. */
export async function openUnmigrated(ctx: LedgerContext): Promise<Database> {
  const database = await openConfigured(ctx);
  ctx.defer(() => closeLedger(database));
  return database;
}

/**
 * Commands whose end says what waits in the outbox already, by their `defer` (a context copied with another config,
 * as the demo's steps make, shares it): said once however often they open the ledger.
 */
const saysOutbox = new WeakSet<LedgerContext["defer"]>();

export async function openLedger(ctx: LedgerContext): Promise<Database> {
  const opened = new Date();
  const database = await openConfigured(ctx);
  try {
    await migrate(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  mark("ledger");
  // The first opening says it, counting from then (deferred work runs last-in first-out, so it runs last); a
  // command that opens the ledger again (the demo's steps) said the same count twice.
  const says = !saysOutbox.has(ctx.defer);
  saysOutbox.add(ctx.defer);
  ctx.defer(async () => {
    if (says) await sayOutboxWaits(ctx, database, opened);
    await closeLedger(database);
  });
  return database;
}

/**
 * A command's ledger at its end. PostgreSQL's connections are told to end and not waited for: the process exits right
 * after (src/cli.ts), so an operator does not wait for the server's backends to end. (A statement still running then,
 * which happens only after a command failed, is cut as if the process had been killed, which the ledger survives.)
 * PGlite's close writes the database to its folder, and is waited for.
 */
function closeLedger(database: Database): Promise<void> {
  if (database.kind === "pglite") return database.close();
  database.close().catch(() => {});
  return Promise.resolve();
}
