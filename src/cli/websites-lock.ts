// One writer of the analytics websites at a time: `websites apply` and `apply` of a saved website plan hold the
// lock the daemon's website pass holds. Two writers each created what the other had not yet made, which a service
// that takes a domain twice kept twice.
import type { Database } from "../db/client.js";
import { TopsyncError } from "../errors.js";
import { WEBSITES_LOCK, withTryLock } from "../schedule/advisory-lock.js";

/** Runs `body` holding the websites lock; refused (exit 1, nothing changed) while another writer holds it. */
export async function websitesLocked<T>(database: Database, body: () => Promise<T>): Promise<T> {
  const outcome = await withTryLock(database, WEBSITES_LOCK, body);
  if (!outcome.locked)
    throw new TopsyncError(
      "WEBSITES_BUSY",
      "another websites apply, or the daemon's website pass, is changing the websites of this ledger; nothing was changed (run it again once that one has finished)",
    );
  return outcome.value;
}
