// A purchase run's liveness, as other runs and the sweep see it: a session advisory lock (holdRunLock) and a
// heartbeat row in `purchase_runs` written through the ordinary pool. A run is dead only when both say so: its
// lock is free **and** its heartbeat is older than HEARTBEAT_GRACE_MS. The run checks its own lock at every beat:
// a lock lost with its session (a database blip) stops the run claiming until it has taken the lock again.
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import { type Database, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";

export const HEARTBEAT_MS = 1000;
/** A run whose lock is free is still alive for this long after its last beat (a lock lost in a blip). */
export const HEARTBEAT_GRACE_MS = 5000;

export class RunLiveness {
  private release: (() => Promise<void>) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** False from the moment the run's lock is found lost until it is held again: the run must not claim. */
  held = false;
  /** When the lock was found lost (clock ms), while it is. */
  lostAt: number | undefined;

  constructor(
    private readonly database: Database,
    private readonly runId: string,
    private readonly actor: string,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** Takes the lock (on its own session) and writes the first beat (on the pool) at once. */
  async start(): Promise<void> {
    const [lock, beat] = await Promise.allSettled([this.database.holdRunLock(this.runId), this.beat()]);
    if (lock.status === "rejected") throw lock.reason;
    this.release = lock.value;
    if (beat.status === "rejected") throw beat.reason;
    this.held = true;
    this.timer = setInterval(() => {
      this.beating ??= this.check().finally(() => {
        this.beating = undefined;
      });
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await rows(this.database.db, sql`delete from purchase_runs where run_id = ${this.runId}`).catch(() => {});
    await this.release?.();
    this.release = undefined;
  }

  private lost(): void {
    this.held = false;
    this.lostAt ??= this.clock.now();
  }

  /**
   * The database's own clock, which the sweep compares with: no two clocks to disagree. Written through the
   * ledger statements' pool, whose connection a run has open from its start (`Database.warm`), while the other
   * pool may be busy writing the fire's rows.
   */
  private async beat(): Promise<void> {
    await rows(
      this.database,
      sql`insert into purchase_runs (run_id, actor, heartbeat_at) values (${this.runId}, ${this.actor}, now())
          on conflict (run_id) do update set heartbeat_at = excluded.heartbeat_at returning run_id`,
    );
  }

  /** One beat: the heartbeat row, then the lock; a lost lock is taken again (claiming waits until it is). */
  private async check(): Promise<void> {
    try {
      await this.beat();
      if (await this.database.isRunAlive(this.runId)) return;
      if (this.held)
        this.logger.warn(
          `run ${this.runId} lost its liveness lock with its database session; taking it again`,
        );
      this.lost();
      await this.release?.().catch(() => {});
      this.release = await this.database.holdRunLock(this.runId);
      this.held = true;
      this.lostAt = undefined;
      this.logger.info(`run ${this.runId} holds its liveness lock again`);
    } catch (error) {
      this.lost();
      this.logger.warn(
        { err: error },
        `run ${this.runId}: liveness check failed: ${(error as Error).message}`,
      );
    }
  }
}

/** Runs whose lock is free but whose heartbeat is recent: not dead yet (their rows are left alone for now). */
export async function recentlyBeating(database: Database, runIds: string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const found = await rows<{ run_id: string }>(
    database.db,
    sql`select run_id from purchase_runs
        where run_id in (${sql.join(
          runIds.map((id) => sql`${id}`),
          sql`, `,
        )})
          and heartbeat_at > now() - make_interval(secs => ${HEARTBEAT_GRACE_MS / 1000})`,
  );
  return new Set(found.map((r) => r.run_id));
}
