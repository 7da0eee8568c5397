// node-cron's RunCoordinator backed by `schedule_fires`: the first replica to insert a fire's key runs it,
// every other replica is "not elected". An error from the database throws, and node-cron then skips the
// fire (fail closed): a fire nobody can vouch for is never run twice.
import type { RunCoordinator } from "node-cron";
import type { Executor } from "../db/client.js";
import {
  claimFire,
  type FireRef,
  finishFire,
  fireKeyOf,
  jobTaskName,
  WEBSITES_JOB,
} from "../purchases/fire-ledger.js";

export { fireKeyOf, jobTaskName };

export const WEBSITES_TASK = "websites";

/** Reads a fire key back into its job and time; throws on a key this daemon never makes. */
export function parseFireKey(key: string): FireRef {
  const at = key.length - 25; // an ISO time is 24 characters
  const task = key.slice(0, Math.max(0, at));
  const fireTime = new Date(key.slice(at + 1));
  if (at <= 0 || key[at] !== ":" || Number.isNaN(fireTime.getTime()))
    throw new Error(`unexpected schedule fire key "${key}"`);
  if (task === WEBSITES_TASK) return { key, job: WEBSITES_JOB, fireTime };
  if (task.startsWith("job:")) return { key, job: task.slice(4), fireTime };
  throw new Error(`unexpected schedule fire key "${key}"`);
}

export class FireCoordinator implements RunCoordinator {
  constructor(
    private readonly db: Executor,
    /** This replica, as recorded in schedule_fires.claimed_by. */
    private readonly replica: string,
  ) {}

  /** Elected when this replica inserts the fire; the lease node-cron offers is not needed (a key is final). */
  async shouldRun(key: string): Promise<boolean> {
    return claimFire(this.db, parseFireKey(key), this.replica);
  }

  async onComplete(key: string): Promise<void> {
    await finishFire(this.db, key, this.replica, "done");
  }

  /** Closes a fire this replica claimed outside node-cron as done. */
  async finish(key: string, reason?: string): Promise<void> {
    await finishFire(this.db, key, this.replica, "done", reason);
  }

  /** Closes a fire as failed before node-cron's onComplete would close it as done. */
  async fail(key: string, reason: string): Promise<void> {
    await finishFire(this.db, key, this.replica, "failed", reason);
  }

  /** Claims a fire outside node-cron (start-up catch-up) with the same key a scheduled fire would have. */
  claim(fire: FireRef): Promise<boolean> {
    return claimFire(this.db, fire, this.replica);
  }
}
