// The database for a command: PostgreSQL when `database.url` or DATABASE_URL is set, else the embedded
// PGlite folder; migrated on open and closed when the command ends.
import { type Database, openDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import type { CommandContext } from "./context.js";

export async function openLedger(ctx: Pick<CommandContext, "config" | "defer">): Promise<Database> {
  const database = await openDatabase({
    url: ctx.config.database.url || process.env.DATABASE_URL,
    pgliteDir: ctx.config.database.pglite_dir,
  });
  try {
    await migrate(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  ctx.defer(() => database.close());
  return database;
}
