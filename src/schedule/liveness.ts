// This replica's liveness, as other replicas see it: a session advisory lock (the same kind that marks a
// purchase run alive) held for the life of the process. If the database drops the connection, the lock is
// gone and other replicas take over this replica's running fires, so it is taken again on the next sweep.
import type { Database } from "../db/client.js";

export class ReplicaLiveness {
  private release: (() => Promise<void>) | undefined;

  constructor(
    private readonly database: Database,
    private readonly replica: string,
  ) {}

  async hold(): Promise<void> {
    this.release = await this.database.holdRunLock(this.replica);
  }

  /** Takes the lock again when it was lost with its connection. */
  async ensure(): Promise<void> {
    if (this.release && (await this.database.isRunAlive(this.replica))) return;
    await this.drop();
    await this.hold();
  }

  async drop(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    await release?.().catch(() => {});
  }
}
