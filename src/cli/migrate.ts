// `topsync migrate`: bring the database schema up to date and say what was applied.
import { openDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import type { CommandContext } from "./context.js";
import { closeLedger } from "./database.js";
import { write } from "./output.js";

export async function migrateCommand(ctx: CommandContext): Promise<void> {
  const database = await openDatabase({
    url: ctx.config.database.url || process.env.DATABASE_URL,
    pgliteDir: ctx.config.database.pglite_dir,
  });
  ctx.defer(() => closeLedger(database));
  const applied = await migrate(database.db);
  write(
    applied.length
      ? `applied ${applied.join(", ")} to ${database.location}\n`
      : `${database.location} is up to date\n`,
  );
}
