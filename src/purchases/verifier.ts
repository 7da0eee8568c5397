// Verification (DESIGN §4): poll the transaction with backoff from `initial_delay` until a final status or
// `timeout`. 404, pending and unknown statuses are not final. Rows that time out become `unverified` and are
// checked again by later runs until `horizon`. An answer that is not about this purchase (verify-check.ts)
// settles nothing: the purchase becomes `unverified` with a `verify_mismatch` note, for a person.
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
import { verifyDisagreements } from "./verify-check.js";

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
}

/** A purchase an earlier run left to verify, as `readDue` reads it. */
export interface ResumableRow {
  id: number | string;
  reference: string;
  state: string;
  submitted_at: Date | string;
  phone: string;
  amount: string;
}

export class Verifier {
  private readonly tasks = new Set<Promise<void>>();

  constructor(private readonly deps: VerifierDeps) {}

  get pending(): number {
    return this.tasks.size;
  }

  /** Verifies one purchase from its first check to a final state, in the background. */
  schedule(task: VerifyTask): void {
    // A verification that cannot record its result (the database is away) leaves the row as it was; a later
    // run or sweep looks again. It must never end the process as an unobserved rejection.
    const running = this.follow(task).catch((error: unknown) => {
      this.deps.logger.warn(
        { purchase: task.id, err: error },
        `verification of purchase ${task.id} stopped: ${(error as Error).message}; it is checked again later`,
      );
    });
    this.tasks.add(running);
    void running.finally(() => this.tasks.delete(running));
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
      sql`select id, reference, state, submitted_at, phone, coalesce(charged_amount, amount)::text as amount from purchases
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
      });
    }
  }

  /**
   * Verifies a purchase from now on, with the backoff of any poll, until it reaches a final state or a mismatch
   * note, or `deadline` (ms) passes; then as a poll that timed out (a notification named its reference, and the
   * provider's verify may not have caught up with its own notification yet).
   */
  verifyUntil(task: VerifyTask, deadline: number): Promise<void> {
    return this.poll(task, this.deps.clock.now(), deadline, false);
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
      const answer = await this.look(reference);
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
    while (this.tasks.size > 0 && !signal?.aborted) await Promise.race(this.tasks);
  }

  private follow(task: VerifyTask): Promise<void> {
    const { verification, clock } = this.deps;
    const deadline = Math.max(task.submittedAt, task.recordedAt ?? 0) + verification.timeout;
    const firstAt = task.unverified ? clock.now() : task.submittedAt + verification.initial_delay;
    return this.poll(task, firstAt, deadline, task.unverified === true);
  }

  /** Reads from `firstAt` with backoff until settled, or once only, or until `deadline`; then gives up. */
  private async poll(task: VerifyTask, firstAt: number, deadline: number, once: boolean): Promise<void> {
    const { clock } = this.deps;
    let attempt = task.attempt;
    let pendingSeen = false;
    await clock.sleep(Math.max(0, firstAt - clock.now()));
    for (;;) {
      const asked = clock.now();
      const verification = await this.look(task.reference);
      if (await this.settle(task, verification)) return;
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
      if (once || clock.now() + wait > deadline) return this.giveUp(task, verification);
      await clock.sleep(Math.max(1, wait));
    }
  }

  /** The wait after read number `attempt` (from 0): `initial_delay` doubling, at most `max_interval`. */
  private backoff(attempt: number): number {
    const { verification } = this.deps;
    return Math.min(verification.max_interval, verification.initial_delay * 2 ** attempt);
  }

  /**
   * One verification read. It waits for its slot ahead of purchases not yet sent: finishing what was bought
   * comes before buying more, so a purchase spends less time between its POST and its final state.
   */
  private async look(reference: string): Promise<Verification | undefined> {
    try {
      return await this.deps.slots.run(() => this.deps.reseller.verifyTransaction(reference), {
        ahead: true,
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
