// A command run without the daemon leaves the notifications it caused in the outbox: at its end it says how many,
// and how they are delivered. Only when some rule routes notifications; one small count otherwise.
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { countWrittenSince } from "../notify/read.js";

export async function sayOutboxWaits(
  ctx: { config: Config; logger?: Logger },
  database: Database,
  since: Date,
): Promise<void> {
  if (!ctx.logger || ctx.config.notifications.rules.length === 0) return;
  try {
    const waiting = await countWrittenSince(database.db, since);
    if (waiting > 0)
      ctx.logger.warn(
        `${waiting} notification${waiting === 1 ? "" : "s"} from this command wait${waiting === 1 ? "s" : ""} in the outbox: ` +
          "a running daemon (topsync run) delivers them, or run topsync notify flush",
      );
  } catch {
    // The ledger is gone (the command failed on it): nothing to say about its outbox.
  }
}
