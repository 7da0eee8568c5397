// `topsync migrate`: bring the database schema up to date and say what was applied.
import { migrate } from "../db/migrate.js";
import type { CommandContext } from "./context.js";
import { openUnmigrated } from "./database.js";
import { write } from "./output.js";

export async function migrateCommand(ctx: CommandContext): Promise<void> {
  const database = await openUnmigrated(ctx);
  const applied = await migrate(database.db);
  write(
    applied.length
      ? `applied ${applied.join(", ")} to ${database.location}\n`
      : `${database.location} is up to date\n`,
  );
}
