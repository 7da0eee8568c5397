// Verification: poll the transaction with backoff until a final status or `timeout`. The first read waits as long
// as the provider usually takes to settle a purchase of its network (settle-times.ts, at least `initial_delay`);
// in the daemon with webhooks enabled it waits for the provider's notification instead (settle-watch.ts: the
// notification's own read settles the purchase, here or at another replica) and polls only when none came within
// `notification_wait`. 404, pending and unknown statuses are not final. Rows that time out become `unverified` and
// are checked again by later runs until `horizon`. An answer that is not about this purchase (verify-check.ts)
// settles nothing: the purchase becomes `unverified` with a `verify_mismatch` note, for a person. Reads wait for
// their place in the lane of follow-ups, taking turns with purchases not yet sent.
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import type { ResellerClient, Verification } from "../reseller/client.js";
import type { Semaphore } from "../semaphore.js";
import {
  type LedgerTarget,
  markFailed,
  markSucceeded,
  markUnverified,
  markVerifyMismatch,
  postponeVerify,
} from "./ledger.js";
import type { SettleTimes } from "./settle-times.js";
import type { SettleWatch } from "./settle-watch.js";
import { verifyDisagreements } from "./verify-check.js";

/**
 * Verify reads per purchase, counted in this process from its first read to its settlement: every verifier of the
 * process (a run's, the notifications') counts into one tally, and the one that settles the purchase reports it.
 */
export class VerifyReadTally {
  private readonly reads = new Map<number, number>();
  /** Purchases a verification of this process follows now: a sweep's run leaves them to it. */
  private readonly following = new Set<number>();

  constructor(private readonly report: (reads: number) => void) {}

  /** False when another verification of this process already follows purchase `id`. */
  follow(id: number): boolean {
    if (this.following.has(id)) return false;
    this.following.add(id);
    return true;
  }

  /** That verification has ended. */
  unfollow(id: number): void {
    this.following.delete(id);
  }

  add(id: number): void {
    this.reads.set(id, (this.reads.get(id) ?? 0) + 1);
  }

  /** The purchase is settled (or given up on) here: reports its reads. */
  end(id: number): void {
    this.report(this.reads.get(id) ?? 0);
    this.reads.delete(id);
  }

  /** Settled elsewhere: its reads here are forgotten. */
  forget(id: number): void {
    this.reads.delete(id);
  }
}

export interface VerifyTask {
  id: number;
  reference: string;
  /** When the purchase was accepted (ms): its first check is `initial_delay` after it. */
  submittedAt: number;
  /**
   * When the ledger held the answer (ms), if later: polling cannot start before it, so `verification.timeout`
   * counts from it. An answer that arrived while the database was away keeps its whole window.
   */
  recordedAt?: number;
  attempt: number;
  /** Already `unverified`: one look per run, then postponed. */
  unverified?: boolean;
  /** What the verify answer must name to settle the purchase. */
  expect: { phone: string; amount: string };
  /** The purchase's network (its id): when its first read is due is learned per network. */
  network?: string;
}

export interface VerifierDeps {
  db: Executor;
  /** Where settled purchases are written (a batcher on hot paths). */
  ledger: LedgerTarget;
  reseller: ResellerClient;
  verification: Config["verification"];
  logger: Logger;
  clock: Clock;
  actor: string;
  slots: Semaphore;
  onSettled: (state: "succeeded" | "failed" | "unverified") => void;
  /** When the first read is due, per network (absent: `initial_delay` after the answer). */
  settleTimes?: SettleTimes;
  /** Set where the provider's notifications are received: the first read waits for one. */
  watch?: SettleWatch;
  /** Counts the reads of each purchase. */
  tally?: VerifyReadTally;
}

/** A purchase an earlier run left to verify, as `readDue` reads it. */
export interface ResumableRow {
  id: number | string;
  reference: string;
  state: string;
  submitted_at: Date | string;
  phone: string;
  amount: string;
  network_id?: string | null;
}

export class Verifier {
  private readonly tasks = new Set<Promise<void>>();
  /** Who waits for the next verification to end (`drain`). */
  private readonly waiters = new Set<() => void>();

  constructor(private readonly deps: VerifierDeps) {}

  get pending(): number {
    return this.tasks.size;
  }

  /** Verifies one purchase from its first check to a final state, in the background. */
  schedule(task: VerifyTask): void {
    // A purchase another verification of this process follows (a sweep found it due while its run waits or
    // backs off) is left to that one: two would read it twice.
    const { tally } = this.deps;
    if (tally && !tally.follow(task.id)) return;
    // A verification that cannot record its result (the database is away) leaves the row as it was; a later
    // run or sweep looks again. It must never end the process as an unobserved rejection.
    const running = this.follow(task).catch((error: unknown) => {
      this.deps.logger.warn(
        { purchase: task.id, err: error },
        `verification of purchase ${task.id} stopped: ${(error as Error).message}; it is checked again later`,
      );
    });
    this.tasks.add(running);
    void running.finally(() => {
      this.tasks.delete(running);
      tally?.unfollow(task.id);
      for (const wake of [...this.waiters]) wake();
    });
  }

  /**
   * The purchases earlier runs left `submitted` or `unverified` whose next check is due (read only; a run reads
   * them while it takes its lock, and `resume`s them once it holds it).
   */
  async readDue(): Promise<ResumableRow[]> {
    const { verification, clock } = this.deps;
    const now = clock.now();
    return rows<ResumableRow>(
      this.deps.db,
      sql`select id, reference, state, submitted_at, phone, network_id, coalesce(charged_amount, amount)::text as amount from purchases
          where state in ('submitted', 'unverified') and next_verify_at <= ${new Date(now).toISOString()}
            and submitted_at >= ${new Date(now - verification.horizon).toISOString()}
          order by next_verify_at limit 10000`,
    );
  }

  /** Verifies each row `readDue` found, in the background. */
  resume(due: readonly ResumableRow[]): void {
    for (const row of due) {
      this.schedule({
        id: Number(row.id),
        reference: row.reference,
        submittedAt: new Date(row.submitted_at).getTime(),
        attempt: 0,
        unverified: row.state === "unverified",
        expect: { phone: row.phone, amount: row.amount },
        network: row.network_id ?? undefined,
      });
    }
  }

  /**
   * Verifies a purchase from now on, with the backoff of any poll, until it reaches a final state or a mismatch
   * note, or `deadline` (ms) passes; then as a poll that timed out (a notification named its reference, and the
   * provider's verify may not have caught up with its own notification yet).
   */
  verifyUntil(task: VerifyTask, deadline: number): Promise<void> {
    return this.poll(task, this.deps.clock.now(), deadline, false, false);
  }

  /**
   * Reads `reference` now and then with the backoff of any poll until `enough` says the answer will do or
   * `deadline` (ms) passes; returns the last answer found (undefined when no read found the transaction). A read
   * that fails for the moment, a 404 and a status that is not final are looked at again.
   */
  async readUntil(
    reference: string,
    deadline: number,
    enough: (verification: Verification & { found: true }) => boolean,
  ): Promise<Verification | undefined> {
    const { clock } = this.deps;
    let last: Verification | undefined;
    for (let attempt = 0; ; attempt++) {
      const answer = await this.look(undefined, reference, deadline);
      if (answer?.found) {
        last = answer;
        if (enough(answer)) return answer;
      }
      const wait = this.backoff(attempt);
      if (clock.now() + wait > deadline) return last ?? answer;
      await clock.sleep(Math.max(1, wait));
    }
  }

  /** Waits for every verification in progress (stops waiting early when `signal` aborts). */
  async drain(signal?: AbortSignal): Promise<void> {
    while (this.tasks.size > 0 && !signal?.aborted) await this.nextEnd(signal);
  }

  /**
   * Resolves when a verification ends or `signal` aborts. Not `Promise.race(this.tasks)`: a race attaches a reaction
   * to every task, which stays until that task ends, so draining n verifications that way holds some n²/2 promises
   * (a run on the embedded database, whose writes are slower than the reads, held 600,000 of them and grew to
   * 900 MB over 20,000 purchases).
   */
  nextEnd(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.waiters.delete(wake);
        signal?.removeEventListener("abort", wake);
        resolve();
      };
      this.waiters.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
    });
  }

  /**
   * How long after its answer a purchase of `network` is first read (or, where notifications are received, read
   * when none came): what the ledger records as its next check, so that a sweep leaves it to this verification.
   */
  firstCheckAfter(network: string | undefined): number {
    const { verification, watch } = this.deps;
    const learned = this.learnedWait(network);
    // The wait for a notification leaves at least half of `timeout` to poll in.
    return watch
      ? Math.min(verification.timeout / 2, Math.max(verification.notification_wait, learned))
      : learned;
  }

  private learnedWait(network: string | undefined): number {
    const { verification, settleTimes } = this.deps;
    return settleTimes && verification.learn_settle
      ? settleTimes.firstRead(network)
      : verification.initial_delay;
  }

  private async follow(task: VerifyTask): Promise<void> {
    const { verification, clock, watch } = this.deps;
    const deadline = Math.max(task.submittedAt, task.recordedAt ?? 0) + verification.timeout;
    if (task.unverified) return this.poll(task, clock.now(), deadline, true, false);
    const learned = this.learnedWait(task.network);
    if (watch) {
      // The provider's notification comes when the purchase is final; its read settles the purchase.
      const until = Math.min(deadline, task.submittedAt + this.firstCheckAfter(task.network));
      const seen = await watch.wait(task.id, task.reference, until);
      if (seen.kind === "settled") {
        // Settled by the notification's read (counted by the verifier that made it); none was made here.
        if (seen.state === "succeeded" || seen.state === "failed" || seen.state === "unverified")
          this.deps.onSettled(seen.state);
        return;
      }
      return this.poll(task, clock.now(), deadline, false, false);
    }
    return this.poll(task, task.submittedAt + learned, deadline, false, verification.learn_settle);
  }

  /**
   * Reads from `firstAt` with backoff until settled, or once only, or until `deadline`; then gives up. With `learn`,
   * what the first read found tells when the network's next purchases are first read.
   */
  private async poll(
    task: VerifyTask,
    firstAt: number,
    deadline: number,
    once: boolean,
    learn: boolean,
  ): Promise<void> {
    const { clock, settleTimes } = this.deps;
    let attempt = task.attempt;
    let firstFinal: boolean | undefined;
    let notFinalAfter: number | undefined;
    let pendingSeen = false;
    await clock.sleep(Math.max(0, firstAt - clock.now()));
    for (;;) {
      const asked = clock.now();
      const verification = await this.look(task.id, task.reference, deadline);
      const readAfter = clock.now() - task.submittedAt;
      const settled = await this.settle(task, verification);
      if (learn && verification !== undefined && firstFinal === undefined) {
        firstFinal = settled;
        if (settled) settleTimes?.observe(task.network, true);
      }
      if (settled) {
        if (learn && firstFinal === false)
          settleTimes?.observe(task.network, false, { notFinalAfter, finalAfter: readAfter });
        this.deps.tally?.end(task.id);
        return;
      }
      if (verification !== undefined) notFinalAfter = readAfter;
      let wait = this.backoff(attempt);
      attempt++;
      if (verification?.found && !pendingSeen) {
        // The provider knows the transaction and is settling it: its final status usually follows moments later.
        // The first such answer is read again after as long as that read took (at most the backoff step), so a
        // provider that answered at once is asked again soon, and a slow one no faster than it answers; later
        // `pending` answers wait the whole step.
        pendingSeen = true;
        wait = Math.min(wait, clock.now() - asked);
      }
      if (once || clock.now() + wait > deadline) {
        if (learn && firstFinal === false) settleTimes?.observe(task.network, false, { notFinalAfter });
        // An unverified purchase looked at once more is not a verification of its own.
        if (once) this.deps.tally?.forget(task.id);
        else this.deps.tally?.end(task.id);
        return this.giveUp(task, verification);
      }
      await clock.sleep(Math.max(1, wait));
    }
  }

  /** The wait after read number `attempt` (from 0): `initial_delay` doubling, at most `max_interval`. */
  private backoff(attempt: number): number {
    const { verification } = this.deps;
    return Math.min(verification.max_interval, verification.initial_delay * 2 ** attempt);
  }

  /**
   * One verification read. It waits for its place in the lane of follow-ups, taking turns with purchases not yet
   * sent (neither holds the other back), and in front of them once its deadline is near.
   */
  private async look(
    id: number | undefined,
    reference: string,
    deadline: number,
  ): Promise<Verification | undefined> {
    const urgent = deadline - this.deps.clock.now() < this.deps.verification.max_interval;
    if (id !== undefined) this.deps.tally?.add(id);
    try {
      return await this.deps.slots.run(() => this.deps.reseller.verifyTransaction(reference, { urgent }), {
        lane: "follow",
        urgent,
      });
    } catch (error) {
      this.deps.logger.warn(
        { reference, err: error },
        `verify ${reference} failed for now: ${(error as Error).message}`,
      );
      return undefined;
    }
  }

  /** Records a final status; true when the purchase is settled. */
  private async settle(task: VerifyTask, verification: Verification | undefined): Promise<boolean> {
    if (!verification?.found) return false;
    const { ledger: db, actor } = this.deps;
    const event = { actor, response: verification.raw };
    const from = ["submitted", "unverified"] as const;
    const problems = verifyDisagreements({ reference: task.reference, ...task.expect }, verification);
    if (problems.length > 0) {
      // Not about this purchase, or not a clean success: a person settles it; nothing is retried by itself.
      const note = `verify_mismatch: the verify answer (${verification.rawStatus}) disagrees with the purchase: ${problems.join("; ")}`;
      await markVerifyMismatch(db, task.id, note, { ...event, reason: note });
      this.deps.logger.error({ purchase: task.id }, `purchase ${task.id}: ${note}`);
      this.deps.onSettled("unverified");
      return true;
    }
    switch (verification.status) {
      case "success":
        await markSucceeded(db, task.id, from, verification.rawStatus, {
          ...event,
          reason: `verified: ${verification.rawStatus}`,
        });
        this.deps.onSettled("succeeded");
        return true;
      case "failed":
      case "reversed": {
        const amount = verification.transaction.amount?.toFixed(2) ?? null;
        const message = `the provider reports ${verification.rawStatus}${verification.transaction.true_response ? `: ${verification.transaction.true_response}` : ""}`;
        await markFailed(
          db,
          task.id,
          from,
          { message, providerStatus: verification.rawStatus, refund: amount },
          { ...event, reason: `${message}${amount ? `; refund of ${amount} recorded` : ""}` },
        );
        this.deps.onSettled("failed");
        return true;
      }
      default:
        return false;
    }
  }

  private async giveUp(task: VerifyTask, last: Verification | undefined): Promise<void> {
    const { ledger, db, verification, clock, actor } = this.deps;
    const status = last?.found ? last.rawStatus : "not found";
    const next = clock.now() + verification.max_interval * 10;
    const nextCheck = next <= task.submittedAt + verification.horizon ? new Date(next) : null;
    if (task.unverified) {
      await postponeVerify(db, task.id, nextCheck, last?.found ? last.rawStatus : null);
      return;
    }
    await markUnverified(ledger, task.id, nextCheck, {
      actor,
      reason: `no final status within verification.timeout (last seen: ${status})`,
      response: last?.raw,
    });
    this.deps.onSettled("unverified");
  }
}
