// Doing what is due: claim batches as send slots free up, send each purchase once, classify the outcome
// (outcome.ts), and verify what was bought (verifier.ts). Bounded by the reseller's concurrency and
// rate limit. A 401/403 stops the run from sending more.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import { systemClock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type Database, type Executor, rows } from "../db/client.js";
import { isDataException } from "../db/sql-state.js";
import { TopsyncError } from "../errors.js";
import { backoffDelay } from "../http/backoff.js";
import { isHttpError } from "../http/errors.js";
import type { Logger } from "../log/logger.js";
import { formatMoney, type Money, parseMoney, ZERO } from "../money.js";
import { writeNotices } from "../notify/outbox/write.js";
import type { ResellerClient } from "../reseller/client.js";
import { Semaphore } from "../semaphore.js";
import { mark } from "../timings.js";
import { TransitionBatcher } from "./batcher.js";
import { loadCatalogue } from "./catalogue-cache.js";
import { type Claimed, type ClaimedRow, claim, ensureBudgetDay } from "./claim.js";
import { DueWindow } from "./due-window.js";
import { type GateReport, type GateRun, gateRequired, type HeldRun, type RunGate } from "./gate.js";
import { pauseJob, readUnknownStreaks } from "./job-states.js";
import {
  type Clashed,
  flagReferenceClash,
  isClash,
  markAnsweredWithClash,
  markFailed,
  markInDoubt,
  markSubmitted,
  rejectUnsent,
  requeueForRetry,
  returnUnclaimedSubmitting,
  returnUnsent,
} from "./ledger.js";
import { classifyPurchase, type PurchaseOutcome } from "./outcome.js";
import { type PauseDecision, PauseWatch } from "./pause-watch.js";
import { expireDuePlans } from "./plan-rows.js";
import { readOvercharges, recordOvercharge } from "./prices.js";
import { guardLimits, priceKey } from "./projection.js";
import { stoppedJobsFilter, unendedPlan } from "./projection-read.js";
import { type Catalogue, overchargedReason, type Resolved } from "./resolve.js";
import { HEARTBEAT_MS, RunLiveness } from "./run-liveness.js";
import { SettleTimes, settleBounds } from "./settle-times.js";
import type { SettleWatch } from "./settle-watch.js";
import { Verifier, type VerifyReadTally } from "./verifier.js";
import { recordWalletBalance } from "./wallet.js";

const WALLET_FLUSH_MS = 50;
/** A run without its liveness lock for this long stops (what it sent is recorded first). */
const LOST_SESSION_MS = 30_000;
/** How long an answer's recording is tried again while the database is away, before the run fails. */
const RECORD_RETRY_MS = 120_000;
/** After a failed claim, claiming waits this long. */
const CLAIM_PAUSE_MS = 500;
/** The window on the queue holds this many claims' worth of due purchases at full concurrency. */
const WINDOW_BATCHES = 4;
/**
 * Below this concurrency a run may claim up to twice its concurrency ahead of its sends (never more than this
 * many): a claim statement costs about a millisecond whatever its size, and claims of a handful of rows would
 * cost more than the purchases they start.
 */
const SMALL_RUN_CLAIMS = 16;
/**
 * Most purchases a run has bought and still verifies before it claims more. Sends are one request and verifying
 * takes several, so where recording is slower than buying (the embedded database) a run sent three purchases for
 * every one it settled, and held every unsettled one in memory to the end (4,700 of 8,000 at once; 900 MB over
 * 20,000 before). Waiting here costs no time, since a run ends when its last purchase is settled, and leaves fewer
 * purchases unsettled should it die. Ample for what a provider's settling asks: 1,000 purchases a second that settle in 2 s.
 */
const VERIFYING_CAP = 2_000;

export interface PurchaseDeps {
  database: Database;
  reseller: ResellerClient;
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Who moves rows, for the event log: "run:<host>:<pid>". */
  actor?: string;
  /** The approval gate; a run refuses to start without one when approval rules are configured. */
  gate?: RunGate;
  /**
   * What verification shares across the runs of a process: when first reads are due (learned; a run without one
   * starts from the ledger's recent purchases), the wait for notifications (where they are received), the count
   * of reads per purchase.
   */
  verifying?: { settleTimes?: SettleTimes; watch?: SettleWatch; tally?: VerifyReadTally };
}

export interface RunOptions {
  jobName?: string;
  /** Only this purchase (`topsync buy`). */
  requestKey?: string;
  /** Only the rows of this saved plan (`topsync apply`). */
  savedPlan?: string;
  /** This job's rows are bought even while it is suspended or paused (`purchases run --job J --force`). */
  forceJob?: string;
  concurrency?: number;
  /** Aborting stops claiming; calls in flight finish. */
  signal?: AbortSignal;
  /** Wait for queued retries due within this many ms before returning (default 60 s). */
  retryWaitMs?: number;
  onProgress?: (progress: RunProgress) => void;
  catalogue?: Catalogue;
  /**
   * Settles once the run may claim: the rows it is to take are in the ledger (the first of them, while the rest
   * are written). The run prepares meanwhile (its liveness lock, today's budget row, its reads of the ledger) and
   * claims nothing before. A rejection ends the run there, before its first claim, with that error.
   */
  ready?: Promise<void>;
  /** Re-check `submitted`/`unverified` rows earlier runs left (default true; the daemon sweeps on its own timer). */
  resumeVerification?: boolean;
  /**
   * Rows still being written for this run (the later batches of a fire): it looks at the queue again each time
   * some are in, and does not end before `done`.
   */
  feed?: Feed;
  /** Most purchases answered and not yet settled (recorded and verified) before the run claims more. */
  verifyingCap?: number;
}

export interface Feed {
  done: Promise<void>;
  onRows(listener: () => void): void;
}

export interface RunProgress {
  claimed: number;
  submitted: number;
  rejected: number;
  failed: number;
  inDoubt: number;
  retried: number;
  /** Claimed, then given back to the queue unsent because the run stopped first. */
  unsent: number;
  succeeded: number;
  unverified: number;
  committed: Money;
  inFlight: number;
  verifying: number;
}

export interface RunSummary extends RunProgress {
  runId: string;
  stoppedBy?: string;
  /** Rows the approval gate held for approval instead of buying, one saved plan per run. */
  held: HeldRun[];
  /** Jobs this run paused by their pause_on (their remaining rows stay queued). */
  paused: PauseDecision[];
}

export async function executePurchases(deps: PurchaseDeps, options: RunOptions = {}): Promise<RunSummary> {
  const clock = deps.clock ?? systemClock;
  const run = new PurchaseRun(deps, options, clock);
  return run.execute();
}

class PurchaseRun {
  private readonly runId = randomUUID();
  private readonly actor: string;
  private readonly slots: Semaphore;
  private readonly concurrency: number;
  /** Most purchases claimed and not yet answered at once: what a crash could leave `in_doubt`. */
  private readonly claimedCap: number;
  private readonly claimBatch: number;
  private readonly verifier: Verifier;
  private readonly settleTimes: SettleTimes;
  private readonly batcher: TransitionBatcher;
  private readonly progress: RunProgress = {
    claimed: 0,
    submitted: 0,
    rejected: 0,
    failed: 0,
    inDoubt: 0,
    retried: 0,
    unsent: 0,
    succeeded: 0,
    unverified: 0,
    committed: ZERO,
    inFlight: 0,
    verifying: 0,
  };
  private readonly inFlight = new Set<Promise<void>>();
  private readonly recordings = new Set<Promise<void>>();
  private failure: unknown;
  private readonly ensuredDays = new Set<string>();
  private readonly liveness: RunLiveness;
  /** Rows this run's claims handed it to send: any other row of this run left in submitting was never sent. */
  private readonly claimedIds = new Set<number>();
  private claimPausedUntil = 0;
  /** The newest wallet balance a purchase answer reported; written at most every WALLET_FLUSH_MS. */
  private wallet: { balance: string; seq: number; flushedAt: number; written: boolean } | undefined;
  /** Plans charged above their listed price, shared with the due window's resolution (this run's catalogue). */
  private overcharged = new Map<string, Money>();
  private stoppedBy: string | undefined;
  private wake: (() => void) | undefined;
  private readonly pauses: PauseWatch;
  private readonly paused: PauseDecision[] = [];

  constructor(
    private readonly deps: PurchaseDeps,
    private readonly options: RunOptions,
    private readonly clock: Clock,
  ) {
    this.actor = deps.actor ?? `run:${process.pid}`;
    this.concurrency = options.concurrency ?? deps.config.reseller.concurrency;
    this.slots = new Semaphore(this.concurrency);
    this.claimedCap = Math.max(this.concurrency, Math.min(2 * this.concurrency, SMALL_RUN_CLAIMS));
    this.claimBatch = Math.max(1, Math.floor((this.claimedCap * 3) / 4));
    this.batcher = new TransitionBatcher(deps.database);
    this.pauses = new PauseWatch(deps.config.purchases, () => clock.now());
    this.liveness = new RunLiveness(deps.database, this.runId, this.actor, deps.logger, clock);
    const { verification } = deps.config;
    this.settleTimes = deps.verifying?.settleTimes ?? new SettleTimes(settleBounds(verification));
    this.verifier = new Verifier({
      db: deps.database,
      ledger: this.batcher,
      reseller: deps.reseller,
      verification: deps.config.verification,
      logger: deps.logger,
      clock,
      actor: this.actor,
      slots: this.slots,
      settleTimes: this.settleTimes,
      watch: deps.verifying?.watch,
      tally: deps.verifying?.tally,
      onSettled: (state) => {
        if (state === "succeeded") this.progress.succeeded++;
        else if (state === "failed") this.progress.failed++;
        else if (state === "unverified") this.progress.unverified++;
        this.report();
      },
    });
  }

  async execute(): Promise<RunSummary> {
    // What the run reads and writes before its first claim does not wait on itself: the liveness lock (a session
    // of its own, and the first heartbeat), the catalogue (reseller calls), and on the ledger's statements (two at a
    // time, the connections `Database.warm` opened) today's budget row, then the plans charged above their price
    // and the verifications earlier runs left. The latter are resumed once the lock is held.
    const { database } = this.deps;
    const [lock, catalogue, ledger, ready] = await Promise.allSettled([
      this.liveness.start(),
      this.options.catalogue ?? loadCatalogue(this.deps.reseller, this.deps.logger),
      ensureBudgetDay(database, new Date(this.clock.now()), this.deps.config.timezone, this.ensuredDays).then(
        () =>
          Promise.all([
            readOvercharges(database),
            this.options.resumeVerification !== false ? this.verifier.readDue() : [],
            this.settleTimes.seed(database, this.clock.now()),
            readUnknownStreaks(database.db, this.pauses.countedJobs()),
            // Without a gate to do it, the run ends the saved plans past their time: each becomes `expired` with its
            // `plan_expired` notification, and what it left unsent (an apply cut short leaves rows queued) is
            // cancelled. Beside the other reads rather than after them: no claim takes those rows anyway
            // (readQueued, and the claim itself), so the first claim need not wait for it.
            gateRequired(this.deps.config)
              ? undefined
              : expireDuePlans(database.db, new Date(this.clock.now()), this.actor),
          ]),
      ),
      this.options.ready,
    ]);
    if (ready.status === "rejected") {
      // Nothing was claimed: the run ends without a trace (its heartbeat row and lock go) and its caller says why.
      await this.liveness.stop();
      throw ready.reason;
    }
    try {
      if (lock.status === "rejected") throw lock.reason;
      if (catalogue.status === "rejected") throw catalogue.reason;
      if (ledger.status === "rejected") throw ledger.reason;
      const [overcharged, resumable, , streaks] = ledger.value;
      this.overcharged = overcharged;
      this.verifier.resume(resumable);
      // The unknown outcomes in a row the jobs' earlier runs ended with count towards their pause_on.
      for (const [job, unknown] of streaks) {
        const pause = job === this.options.forceJob ? undefined : this.pauses.seed(job, unknown);
        if (pause) this.recordPause(pause);
      }
      const gated = await this.passGate(catalogue.value);
      const summary = await this.executeHoldingLock(catalogue.value);
      mark("settled");
      if (gated) await this.deps.gate?.after(gated.run);
      if (summary.stoppedBy) await this.noteRunFailed(summary.stoppedBy);
      return { ...summary, held: gated?.report.held ?? [], paused: this.paused };
    } catch (error) {
      await this.noteRunFailed((error as Error).message ?? String(error));
      throw error;
    } finally {
      await this.liveness.stop();
    }
  }

  /** A run stopped by a 401/403, a service or the database gone: `run_failed`, once per run (best effort). */
  private async noteRunFailed(why: string): Promise<void> {
    const facts = {
      run: this.runId,
      job: this.options.jobName ?? null,
      reason: why.slice(0, 300),
      ...this.counts(),
    };
    await writeNotices(this.deps.database, [
      { trigger: "run_failed", subject: `run:${this.runId}`, episode: "stopped", facts },
    ]).catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, `could not record the run_failed notification: ${String(error)}`),
    );
  }

  private counts() {
    const { claimed, submitted, failed, inDoubt } = this.progress;
    return { claimed, submitted, failed, in_doubt: inDoubt, committed: this.progress.committed.toFixed(2) };
  }

  /**
   * With approval rules configured, the gate decides what this run may buy before its first claim (and the claims
   * take only rows it let through); without a gate the run buys nothing at all.
   */
  private async passGate(catalogue: Catalogue): Promise<{ run: GateRun; report: GateReport } | undefined> {
    const { gate, config } = this.deps;
    if (!gateRequired(config)) return undefined;
    if (!gate)
      throw new TopsyncError(
        "APPROVAL_GATE_MISSING",
        "approval rules are configured and this run has no approval gate, so it buys nothing",
      );
    const run: GateRun = {
      runId: this.runId,
      actor: this.actor,
      now: new Date(this.clock.now()),
      catalogue,
      jobName: this.options.jobName,
      requestKey: this.options.requestKey,
      savedPlan: this.options.savedPlan,
    };
    return { run, report: await gate.before(run) };
  }

  private async executeHoldingLock(live: Catalogue): Promise<Omit<RunSummary, "held" | "paused">> {
    const catalogue = { ...live, overcharged: this.overcharged };
    const window = new DueWindow(
      this.deps.database,
      catalogue,
      WINDOW_BATCHES * this.claimedCap,
      () => this.clock.now(),
      () => ({
        now: new Date(this.clock.now()),
        jobName: this.options.jobName,
        requestKey: this.options.requestKey,
        savedPlan: this.options.savedPlan,
        cleared: gateRequired(this.deps.config),
        activeJobsOnly: true,
        forceJob: this.options.forceJob,
      }),
    );
    // A claim is one statement whatever its size, so a new one starts when three quarters of the claimed cap is
    // free (one slow call does not hold the others back), and the places it will fill are reserved meanwhile.
    let claiming = 0;
    const claims = new Set<Promise<void>>();
    let feeding = this.options.feed !== undefined;
    const moreRows = () => {
      window.exhausted = false;
      this.poke();
    };
    this.options.feed?.onRows(moreRows);
    this.options.feed?.done.then(() => {
      feeding = false;
      moreRows();
    });
    try {
      while (!this.stopped()) {
        const free = this.claimedCap - this.inFlight.size - claiming;
        const idle = this.inFlight.size === 0 && claims.size === 0;
        // A run that lost its liveness lock claims nothing until it holds it again: a sweep may be about to
        // call it dead, and what it claimed meanwhile would look abandoned.
        const live = this.liveness.held;
        const paused = this.clock.now() < this.claimPausedUntil;
        const unsettled = this.verifier.pending + this.recordings.size;
        const verifyingFull = unsettled >= (this.options.verifyingCap ?? VERIFYING_CAP);
        if (
          live &&
          !paused &&
          !window.exhausted &&
          !verifyingFull &&
          claims.size < 2 &&
          free > 0 &&
          (free >= this.claimBatch || idle)
        ) {
          claiming += free;
          const claim = this.claim(window, free).finally(() => {
            claiming -= free;
            claims.delete(claim);
          });
          claims.add(claim);
          this.track(claim, false);
          continue;
        }
        if (this.inFlight.size > 0 || claims.size > 0) {
          await this.nextEvent();
          continue;
        }
        if (verifyingFull) {
          await (this.verifier.pending > 0
            ? this.verifier.nextEnd(this.options.signal)
            : Promise.allSettled([...this.recordings]));
          continue;
        }
        if (paused && live) {
          await this.clock.sleep(Math.max(1, this.claimPausedUntil - this.clock.now()));
          window.reset();
          continue;
        }
        if (!live) {
          if (this.clock.now() - (this.liveness.lostAt ?? this.clock.now()) > LOST_SESSION_MS) {
            this.stoppedBy ??= "the run lost its database session and could not take its liveness lock again";
            break;
          }
          await this.clock.sleep(HEARTBEAT_MS);
          continue;
        }
        if (feeding) {
          // Nothing to do until more rows are in (or the writing ends).
          await this.nextEvent();
          continue;
        }
        if (!(await this.waitForRetries())) break;
        window.reset();
      }
    } finally {
      // Whatever ended the loop, rows a claim moved to submitting are sent and every answer is recorded
      // before the run lets go of its liveness lock.
      await Promise.allSettled([...claims]);
      await Promise.allSettled([...this.inFlight]);
      await Promise.allSettled([...this.recordings]);
      await this.returnOrphans();
    }
    if (this.failure) throw this.failure;
    await this.flushWallet(true);
    await this.verifier.drain(this.options.signal);
    await this.batcher.drain();
    return {
      ...this.progress,
      verifying: this.verifier.pending,
      runId: this.runId,
      stoppedBy: this.stoppedBy,
    };
  }

  private stopped(): boolean {
    if (this.failure) throw this.failure;
    return this.stoppedBy !== undefined || this.options.signal?.aborted === true;
  }

  /**
   * One claim. A claim that fails (the database away) is not the run's failure: claiming pauses and tries again;
   * whatever the failed statement may have committed is given back at the end of the run (`returnOrphans`).
   */
  private async claim(window: DueWindow, free: number): Promise<void> {
    try {
      await this.claimOnce(window, free);
    } catch (error) {
      this.claimPausedUntil = this.clock.now() + CLAIM_PAUSE_MS;
      this.deps.logger.warn({ err: error }, `claiming failed for now: ${(error as Error).message}`);
    }
  }

  private async claimOnce(window: DueWindow, free: number): Promise<void> {
    const { config } = this.deps;
    const candidates = await window.take(free);
    if (candidates.length === 0) return;
    const result = await claim(this.deps.database, candidates, {
      now: new Date(this.clock.now()),
      runId: this.runId,
      actor: this.actor,
      limits: guardLimits(config.budget),
      runCommitted: this.progress.committed,
      timeZone: config.timezone,
      ensuredDays: this.ensuredDays,
      savedPlan: this.options.savedPlan,
      budgetThresholds: config.notifications.budget_thresholds,
      forceJob: this.options.forceJob,
      holdOnFloor: (job) => job !== this.options.forceJob && this.pauses.holdsOnFloor(job),
    }).catch((error: unknown) => {
      window.settle(candidates, candidates);
      throw error;
    });
    mark("claimed");
    window.settle(candidates, result.lost);
    for (const c of result.toSend) this.claimedIds.add(c.row.id);
    this.progress.committed = this.progress.committed.plus(result.committed);
    this.progress.claimed += result.toSend.length + result.rejected.length;
    this.progress.rejected += result.rejected.length;
    for (const r of result.rejected)
      this.deps.logger.info(
        { purchase: r.row.id, code: r.code },
        `purchase ${r.row.id} rejected: ${r.reason}`,
      );
    for (const held of result.held) {
      const decision = held.row.job_name
        ? this.pauses.floor(held.row.job_name, held.row.id, held.reason)
        : undefined;
      if (decision) this.recordPause(decision);
    }
    for (const claimed of result.toSend) this.track(this.send(claimed));
    this.report();
  }

  /** A job paused by its pause_on: written to the ledger (retried while the database is away), logged, kept. */
  private recordPause(decision: PauseDecision): void {
    this.paused.push(decision);
    this.deps.logger.error(
      { job: decision.job, purchases: decision.purchases.slice(0, 20) },
      `job ${decision.job} paused: ${decision.cause}; its remaining purchases stay queued until \`topsync jobs resume ${decision.job}\``,
    );
    const cause = {
      actor: this.actor,
      run: this.runId,
      cause: decision.cause,
      purchases: decision.purchases,
    };
    const recording = this.persist(decision.purchases[0] ?? 0, () =>
      pauseJob(this.deps.database, decision.job, cause),
    ).then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= error;
      },
    );
    this.recordings.add(recording);
    void recording.finally(() => this.recordings.delete(recording));
  }

  /** Follows a send (counted in the slots) or a claim (not counted); wakes the loop when it ends. */
  private track(task: Promise<void>, isSend = true): void {
    const tracked = task.catch((error: unknown) => {
      this.failure ??= error;
    });
    if (isSend) this.inFlight.add(tracked);
    this.progress.inFlight = this.inFlight.size;
    void tracked.finally(() => {
      this.inFlight.delete(tracked);
      this.progress.inFlight = this.inFlight.size;
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });
  }

  /** Wakes the loop if it waits for an event. */
  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private nextEvent(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** Sends one purchase exactly once; its send slot frees as soon as the answer is in, and recording follows. */
  private async send(claimed: Claimed): Promise<void> {
    const job = claimed.row.job_name ?? null;
    const watched = this.pauses.watches(job) && job !== this.options.forceJob;
    if (watched && !(await this.pauses.admit(job))) {
      // Recorded before this send counts as done, so the run does not end with the row still in submitting.
      await this.giveBack(claimed.row, claimed.resolved.amount, `job ${job} paused`);
      return;
    }
    try {
      await this.sendAdmitted(claimed, watched);
    } finally {
      if (watched) this.pauses.release(job);
    }
  }

  private async sendAdmitted({ row, resolved }: Claimed, watched: boolean): Promise<void> {
    const { reseller } = this.deps;
    const job = row.job_name ?? null;
    const sent = await this.slots.run(async () => {
      // A run stopped (401/403, or a signal) while this purchase waited for its place: it was never sent.
      if (this.stoppedBy !== undefined || this.options.signal?.aborted) return undefined;
      // Its job paused while it waited: it goes back to the queue unsent.
      if (watched && this.pauses.isPaused(job)) return { paused: true as const };
      // Its plan was charged above its listed price while it waited: not sent; the next claim refuses it.
      if (this.overcharged.get(priceKey(resolved.network.id, resolved.plan.id))?.gt(resolved.amount))
        return { blocked: true as const };
      const result = await reseller
        .buyData({
          network_id: resolved.network.id,
          plan_id: resolved.plan.id,
          phone_number: resolved.phone,
          ported_number: row.ported || undefined,
        })
        .then(
          (answer) => ({ answer }),
          (error: unknown) => ({ error }),
        );
      const classified = classifyPurchase(result);
      // Counted before the place is handed on, so the job's next purchase sees a pause this one called for.
      if (watched) {
        const answered =
          "answer" in result || (isHttpError(result.error) && result.error.status !== undefined);
        const pause = this.pauses.observe(job, row.id, classified, answered);
        if (pause) this.recordPause(pause);
      }
      // Set before the place is handed on, so the purchase waiting for it sees the stop (or the blocked plan).
      if (classified.kind === "failed" && classified.stopRun) this.stoppedBy ??= classified.message;
      const charge =
        classified.kind === "submitted" ? chargeOf(row, resolved, classified.charged) : undefined;
      if (charge?.note) this.overcharged.set(priceKey(resolved.network.id, resolved.plan.id), charge.amount);
      return { outcome: classified, charge };
    });
    const recording = (
      sent === undefined
        ? this.giveBack(row, resolved.amount)
        : "paused" in sent
          ? this.giveBack(row, resolved.amount, `job ${job} paused`)
          : "blocked" in sent
            ? this.rejectBlocked(row, resolved)
            : this.recordOrDoubt(row, resolved, sent.outcome, sent.charge)
    ).catch((error: unknown) => {
      this.failure ??= error;
    });
    this.recordings.add(recording);
    void recording.finally(() => this.recordings.delete(recording));
  }

  /** A claimed purchase the run stopped before sending goes back to the queue as it was. */
  private async giveBack(row: ClaimedRow, amount: Money, reason?: string): Promise<void> {
    const why = reason ?? this.stoppedBy ?? "the run was stopped";
    await returnUnsent(this.batcher, row.id, row.attempts, { actor: this.actor, reason: `not sent: ${why}` });
    this.progress.committed = this.progress.committed.minus(amount);
    this.progress.unsent++;
    this.report();
  }

  /**
   * An answer is always recorded: while the database is away (a blip, a failover) its recording is tried again
   * with backoff, so a provider's answer is never thrown away by a dropped connection. A write the database refuses
   * for what it carries (a data exception) would be refused again: it is not tried again (see `recordOrDoubt`).
   */
  private async persist<T>(id: number, write: () => Promise<T>): Promise<T> {
    const started = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (isDataException(error) || this.clock.now() - started > RECORD_RETRY_MS) throw error;
        const wait = Math.max(50, backoffDelay(attempt, { baseDelayMs: 100, maxDelayMs: 2000 }));
        this.deps.logger.warn(
          { purchase: id, err: error },
          `recording purchase ${id}'s answer failed (${(error as Error).message}); trying again in ${wait} ms`,
        );
        await this.clock.sleep(wait);
      }
    }
  }

  /**
   * Rows a failed claim statement committed after all (its answer lost with the connection) are this run's and
   * were never sent: back to the queue. If even this cannot be written, they stay in submitting, and once this
   * run is gone a sweep makes them in_doubt (never sent, but nobody can know that then).
   */
  private async returnOrphans(): Promise<void> {
    try {
      const moved = await returnUnclaimedSubmitting(this.deps.database, this.runId, this.claimedIds, {
        actor: this.actor,
        reason: "not sent: claimed by a statement whose answer was lost with its database connection",
      });
      if (moved > 0)
        this.deps.logger.warn(
          `${moved} purchases claimed by a lost statement were never sent and are queued again`,
        );
    } catch (error) {
      this.deps.logger.warn({ err: error }, `could not give back unsent claims: ${(error as Error).message}`);
    }
  }

  /** A claimed purchase whose plan was found overcharged before it was sent: rejected as a claim would be. */
  private async rejectBlocked(row: ClaimedRow, resolved: Resolved): Promise<void> {
    const charged = this.overcharged.get(priceKey(resolved.network.id, resolved.plan.id))!;
    const reason = `price_mismatch: ${overchargedReason(resolved.plan, charged)}`;
    await rejectUnsent(this.batcher, row.id, reason, { actor: this.actor, reason });
    this.progress.committed = this.progress.committed.minus(resolved.amount);
    this.progress.rejected++;
    this.report();
  }

  /**
   * `record`, and when the database refuses the record for good, the purchase in_doubt without its answer, the
   * refusal as the reason: sent, its outcome not in the ledger, it is for a person (or a notification) to settle,
   * not left in submitting for the run's end. The run still fails with the refusal.
   */
  private async recordOrDoubt(
    row: ClaimedRow,
    resolved: Resolved,
    outcome: PurchaseOutcome,
    charge: Charge | undefined,
  ): Promise<void> {
    try {
      await this.record(row, resolved, outcome, charge);
    } catch (error) {
      if (isDataException(error)) {
        const reason = `its answer could not be recorded: ${(error as Error).message}`;
        const moved = await markInDoubt(this.deps.database, row.id, { actor: this.actor, reason }).catch(
          () => undefined,
        );
        if (moved) {
          this.progress.inDoubt++;
          this.deps.logger.error({ purchase: row.id }, `purchase ${row.id} is in doubt: ${reason}`);
        }
      }
      throw error;
    }
  }

  /**
   * Records what a purchase's outcome means for the ledger (DESIGN §4). Each write is retried while the database is
   * away (`persist`), and each is safe to repeat (transitions name the states they expect); the run's counters move
   * once, after the write.
   */
  private async record(
    row: ClaimedRow,
    resolved: Resolved,
    outcome: PurchaseOutcome,
    charge: Charge | undefined,
  ): Promise<void> {
    const { logger } = this.deps;
    const db = this.batcher;
    const event = { actor: this.actor, response: outcome.response };
    switch (outcome.kind) {
      case "submitted": {
        const submittedAt = this.clock.now();
        const firstCheck = new Date(submittedAt + this.verifier.firstCheckAfter(resolved.network.id));
        const { amount, note, disbelieved } = charge ?? chargeOf(row, resolved, outcome.charged);
        const moved = await this.persist(row.id, () =>
          markSubmitted(
            db,
            row.id,
            outcome.reference,
            firstCheck,
            {
              ...event,
              reason: `reference ${outcome.reference}${note ? `; ${note}` : ""}${disbelieved ? `; ${disbelieved}` : ""}`,
            },
            { amount: disbelieved ? null : amount.toFixed(2), note },
          ),
        );
        this.progress.committed = this.progress.committed.plus(amount.minus(resolved.amount));
        if (note) await this.persist(row.id, () => this.blockPlan(row, resolved, amount, note));
        if (isClash(moved)) {
          await this.persist(row.id, () => this.recordClash(moved, amount, outcome.response));
          break;
        }
        const seq = moved?.answer_seq;
        if (outcome.walletBalance && seq)
          await this.persist(row.id, () => this.noteWallet(outcome.walletBalance!, seq));
        this.progress.submitted++;
        this.verifier.schedule({
          id: row.id,
          reference: outcome.reference,
          submittedAt,
          recordedAt: this.clock.now(),
          attempt: 0,
          expect: { phone: resolved.phone, amount: amount.toFixed(2) },
          network: resolved.network.id,
        });
        break;
      }
      case "failed":
        await this.persist(row.id, () =>
          markFailed(
            db,
            row.id,
            ["submitting", "in_doubt"],
            { message: outcome.message },
            { ...event, reason: outcome.message },
          ),
        );
        // Refused, so nothing spent: the day's budget has the amount back, and so has the run's (per_run_limit).
        this.progress.committed = this.progress.committed.minus(resolved.amount);
        this.progress.failed++;
        if (outcome.stopRun) logger.error(`stopping the run: ${outcome.message}`);
        break;
      case "retry":
        // Not processed: the run has spent nothing on it (a claim that sends it again counts it again).
        this.progress.committed = this.progress.committed.minus(resolved.amount);
        await this.retryOrGiveUp(
          row.id,
          row.attempts + 1,
          row.max_attempts,
          outcome.why,
          outcome.retryAfterMs,
          outcome.response,
        );
        break;
      case "in_doubt":
        await this.persist(row.id, () => markInDoubt(db, row.id, { ...event, reason: outcome.why }));
        this.progress.inDoubt++;
        logger.warn(
          { purchase: row.id },
          `purchase ${row.id} is in doubt: ${outcome.why}; settle it with topsync purchases resolve`,
        );
        break;
    }
    this.report();
  }

  /**
   * The provider's answer names a reference another purchase carries: this purchase was bought by its answer but
   * cannot take the reference, so it is `unverified` with a `reference_clash` note, the other purchase is flagged
   * too, and neither is settled by itself: a person decides which purchase the provider's transaction is.
   */
  private async recordClash(clash: Clashed, amount: Money, response: unknown): Promise<void> {
    const event = { actor: this.actor, response };
    await markAnsweredWithClash(this.batcher, clash.id, clash, event, { amount: amount.toFixed(2) });
    await flagReferenceClash(
      this.deps.database,
      [clash.clashWith],
      `the provider's purchase answer for purchase ${clash.id} names reference ${clash.reference}, which this purchase carries; one provider transaction cannot be two purchases, a person decides which purchase it is`,
      event,
    );
    this.progress.submitted++;
    this.progress.unverified++;
    this.deps.logger.error(
      { purchase: clash.id },
      `purchase ${clash.id}: the provider's answer names reference ${clash.reference}, already on purchase ${clash.clashWith}; both are flagged reference_clash for a person`,
    );
  }

  /**
   * Remembers a reported balance with the place of its answer in the order of answers; the guard counts every
   * purchase answered after it as not yet in it, so a balance written late is never too generous.
   */
  private async noteWallet(balance: string, seq: number): Promise<void> {
    if (this.wallet && this.wallet.seq > seq) return;
    this.wallet = { balance, seq, flushedAt: this.wallet?.flushedAt ?? 0, written: false };
    await this.flushWallet(false);
  }

  /**
   * A plan charged above its listed price (or max_price): nothing more of it is sent, in this run (the due window
   * resolves with this catalogue) or later ones (kv), while its list shows less than it charges.
   */
  private async blockPlan(row: ClaimedRow, resolved: Resolved, charged: Money, note: string): Promise<void> {
    const key = priceKey(resolved.network.id, resolved.plan.id);
    await recordOvercharge(this.deps.database, key, {
      network: resolved.network.name,
      plan: resolved.plan.id,
      listed: resolved.amount,
      charged,
    });
    this.deps.logger.error({ purchase: row.id, plan: key }, `purchase ${row.id}: ${note}`);
  }

  private async flushWallet(force: boolean): Promise<void> {
    const wallet = this.wallet;
    if (!wallet || wallet.written || (!force && this.clock.now() - wallet.flushedAt < WALLET_FLUSH_MS))
      return;
    wallet.written = true;
    wallet.flushedAt = this.clock.now();
    await recordWalletBalance(
      this.deps.database,
      parseMoney(wallet.balance),
      wallet.seq,
      new Date(this.clock.now()),
      this.deps.config.notifications.wallet_low,
    );
  }

  private async retryOrGiveUp(
    id: number,
    attempts: number,
    maxAttempts: number,
    why: string,
    retryAfterMs?: number,
    response?: unknown,
  ) {
    const { config } = this.deps;
    const db = this.batcher;
    if (attempts >= maxAttempts) {
      const message = `gave up after ${attempts} attempts, none processed: ${why}`;
      await this.persist(id, () =>
        markFailed(db, id, ["submitting"], { message }, { actor: this.actor, reason: message, response }),
      );
      this.progress.failed++;
      return;
    }
    const policy = {
      baseDelayMs: config.reseller.retry.base_delay,
      maxDelayMs: config.reseller.retry.max_delay,
    };
    const delay = retryAfterMs ?? backoffDelay(attempts - 1, policy);
    await this.persist(id, () =>
      requeueForRetry(db, id, new Date(this.clock.now() + delay), {
        actor: this.actor,
        reason: `${why}; retry in ${delay} ms`,
        response,
      }),
    );
    this.progress.retried++;
  }

  /** Sleeps until the earliest retry this run queued is due; false when there is none within the wait, or it stopped. */
  private async waitForRetries(): Promise<boolean> {
    await Promise.all(this.recordings);
    if (this.progress.retried === 0 || this.stopped()) return false;
    const next = await nextDueRetry(
      this.deps.database,
      this.runId,
      new Date(this.clock.now()),
      this.options.jobName,
      this.options.forceJob,
    );
    const limit = this.clock.now() + (this.options.retryWaitMs ?? 60_000);
    if (next === undefined || next.getTime() > limit) return false;
    await this.clock
      .sleep(Math.max(0, next.getTime() - this.clock.now()), this.options.signal)
      .catch(() => {});
    return true;
  }

  private report(): void {
    this.progress.verifying = this.verifier.pending;
    this.options.onProgress?.(this.progress);
  }
}

async function nextDueRetry(
  db: Executor,
  runId: string,
  now: Date,
  jobName?: string,
  forceJob?: string,
): Promise<Date | undefined> {
  // What no claim of this run takes is not waited for either (readQueued): rows of a saved plan that expired, and of
  // a job suspended or paused since (waited for, they kept the run going round, claiming nothing, for ever).
  const found = await rows<{ next: Date | string | null }>(
    db,
    sql`select min(not_before) as next from purchases where state = 'queued' and run_id = ${runId}
        and ${unendedPlan(sql`approval`, now)}
        ${stoppedJobsFilter(sql`job_name`, forceJob)}
        ${jobName ? sql`and job_name = ${jobName}` : sql``}`,
  );
  const next = found[0]?.next;
  return next ? new Date(next) : undefined;
}

/**
 * What a purchase cost by the provider's own answer (the listed price when the answer does not say), and a
 * `price_mismatch` note when that is above the listed price or the purchase's max_price.
 */
interface Charge {
  amount: Money;
  note: string | null;
  /**
   * Why the answer's charge was not taken (one of nothing or less, which is no charge: believed, it would give the
   * budgets and the wallet back money the provider took), for the event; the listed price counts then.
   */
  disbelieved?: string;
}

function chargeOf(row: ClaimedRow, resolved: Resolved, charged: string | undefined): Charge {
  if (charged && !parseMoney(charged).gt(0))
    return {
      amount: resolved.amount,
      note: null,
      disbelieved: `the answer names a charge of ${charged}, which is not one: the listed price ${formatMoney(resolved.amount)} counts`,
    };
  const amount = charged ? parseMoney(charged) : resolved.amount;
  const max = row.max_price ? parseMoney(row.max_price) : null;
  const over = amount.gt(resolved.amount) || (max !== null && amount.gt(max));
  if (!over) return { amount, note: null };
  const limit = max && amount.gt(max) ? `, above max_price ${formatMoney(max)}` : "";
  return {
    amount,
    note: `price_mismatch: the provider charged ${formatMoney(amount)} for plan ${resolved.plan.id} listed at ${formatMoney(resolved.amount)}${limit}; no more of this plan is bought until its listed price is what it charges`,
  };
}
