// A run's watch over its jobs' `pause_on`: it counts, per job, the purchases in a row whose outcome is unknown and
// how long the reseller has given no answer at all, and says when a job must pause. Only failures that say the
// provider refuses everyone count: a purchase the provider refused (a bad phone, a plan it does not sell) is an
// answer and breaks a run of unknowns. With `consecutive_unknown: N`, a job never has more purchases in flight
// than the unknowns it may still take (N less the run so far), so a pause comes before the N+1th purchase is sent.
import type { PurchaseJob } from "../config/index.js";
import { formatDuration } from "../duration.js";
import type { PurchaseOutcome } from "./outcome.js";

export type PauseOn = NonNullable<PurchaseJob["pause_on"]>;

export interface PauseDecision {
  job: string;
  cause: string;
  purchases: number[];
}

interface JobWatch {
  rule: PauseOn;
  inFlight: number;
  unknown: number[];
  /** When the first of the purchases since the last answer got no answer, with them. */
  silentSince?: number;
  silent: number[];
  paused: boolean;
  waiters: Array<() => void>;
}

export class PauseWatch {
  private readonly jobs = new Map<string, JobWatch>();

  constructor(
    jobs: readonly PurchaseJob[],
    private readonly now: () => number,
  ) {
    for (const job of jobs) {
      if (job.pause_on)
        this.jobs.set(job.name, {
          rule: job.pause_on,
          inFlight: 0,
          unknown: [],
          silent: [],
          paused: false,
          waiters: [],
        });
    }
  }

  /** Whether the job has a pause_on (only then are its purchases admitted and observed). */
  watches(job: string | null): boolean {
    return job !== null && this.jobs.has(job);
  }

  /** True when the job's rows must stay queued: it paused in this run. */
  isPaused(job: string | null): boolean {
    return job !== null && this.jobs.get(job)?.paused === true;
  }

  /** Whether a wallet-floor refusal pauses this job instead of rejecting its purchase. */
  holdsOnFloor(job: string | null): boolean {
    return job !== null && this.jobs.get(job)?.rule.below_wallet_floor === true;
  }

  /**
   * Waits until a purchase of the job may be sent: false when the job paused meanwhile (the purchase goes back
   * to the queue unsent). Every true must be followed by `release`.
   */
  async admit(job: string | null): Promise<boolean> {
    const watch = job === null ? undefined : this.jobs.get(job);
    if (!watch) return true;
    const cap = watch.rule.consecutive_unknown;
    for (;;) {
      if (watch.paused) return false;
      if (cap === undefined || watch.inFlight < cap - watch.unknown.length) {
        watch.inFlight++;
        return true;
      }
      await new Promise<void>((resolve) => watch.waiters.push(resolve));
    }
  }

  release(job: string | null): void {
    const watch = job === null ? undefined : this.jobs.get(job);
    if (!watch) return;
    watch.inFlight--;
    this.wakeAll(watch);
  }

  /**
   * Counts one purchase's outcome; `answered` is false when the reseller gave no answer at all (not reached, no
   * status line before a timeout or a reset). Returns the pause it calls for, once.
   */
  observe(
    job: string | null,
    purchase: number,
    outcome: PurchaseOutcome,
    answered: boolean,
  ): PauseDecision | undefined {
    const watch = job === null ? undefined : this.jobs.get(job);
    if (!watch || watch.paused || job === null) return undefined;
    const { rule } = watch;
    if (answered) {
      watch.silentSince = undefined;
      watch.silent = [];
    } else {
      watch.silentSince ??= this.now();
      watch.silent.push(purchase);
    }
    if (outcome.kind === "in_doubt") watch.unknown.push(purchase);
    else if (answered) watch.unknown = [];
    if (outcome.kind === "failed" && outcome.stopRun && rule.auth_failure)
      return this.pause(
        watch,
        job,
        `the reseller refused the API key (${outcome.message}) (pause_on.auth_failure)`,
        [purchase],
      );
    if (rule.consecutive_unknown !== undefined && watch.unknown.length >= rule.consecutive_unknown)
      return this.pause(
        watch,
        job,
        `${watch.unknown.length} purchases in a row with an unknown outcome (pause_on.consecutive_unknown: ${rule.consecutive_unknown})`,
        watch.unknown,
      );
    if (
      rule.provider_down !== undefined &&
      watch.silentSince !== undefined &&
      this.now() - watch.silentSince >= rule.provider_down
    )
      return this.pause(
        watch,
        job,
        `the reseller gave no answer for ${formatDuration(this.now() - watch.silentSince)} (pause_on.provider_down: ${formatDuration(rule.provider_down)})`,
        watch.silent,
      );
    return undefined;
  }

  /**
   * The unknown outcomes in a row the job's earlier runs ended with (`readUnknownStreaks`), counted before this
   * run's first purchase: a job whose every run goes in_doubt pauses too. Returns the pause it calls for, once.
   */
  seed(job: string, unknown: readonly number[]): PauseDecision | undefined {
    const watch = this.jobs.get(job);
    const cap = watch?.rule.consecutive_unknown;
    if (!watch || watch.paused || cap === undefined || unknown.length === 0) return undefined;
    watch.unknown = [...unknown, ...watch.unknown];
    if (watch.unknown.length < cap) return undefined;
    return this.pause(
      watch,
      job,
      `${watch.unknown.length} purchases in a row with an unknown outcome (pause_on.consecutive_unknown: ${cap})`,
      watch.unknown,
    );
  }

  /** The jobs whose unknown outcomes in a row are counted, with their `consecutive_unknown`. */
  countedJobs(): Array<{ name: string; cap: number }> {
    return [...this.jobs]
      .filter(([, watch]) => watch.rule.consecutive_unknown !== undefined)
      .map(([name, watch]) => ({ name, cap: watch.rule.consecutive_unknown! }));
  }

  /** A claim held a purchase of the job at the wallet floor (pause_on.below_wallet_floor). */
  floor(job: string, purchase: number, reason: string): PauseDecision | undefined {
    const watch = this.jobs.get(job);
    if (!watch || watch.paused) return undefined;
    return this.pause(
      watch,
      job,
      `the wallet floor refused a purchase (pause_on.below_wallet_floor): ${reason}`,
      [purchase],
    );
  }

  private pause(watch: JobWatch, job: string, cause: string, purchases: number[]): PauseDecision {
    watch.paused = true;
    this.wakeAll(watch);
    return { job, cause, purchases: [...purchases] };
  }

  private wakeAll(watch: JobWatch): void {
    const waiting = watch.waiters.splice(0);
    for (const wake of waiting) wake();
  }
}
