// The verifier's read schedule after a `pending` answer, against the sandbox over HTTP: the first such answer is
// read again after as long as that read took (not a whole backoff step), later ones after the whole step. The
// clock records the waits asked for and really waits a few ms at most, so no figure here depends on the machine.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Executor } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import type { Moved, Transition, TransitionSink } from "../../src/purchases/ledger.js";
import { Verifier } from "../../src/purchases/verifier.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { Semaphore } from "../../src/semaphore.js";
import { recordingClock, resellerFor } from "../helpers/clients.js";

const STEP = 10_000;
const PHONE = "08031234567";

/** Where the verifier writes what it settles: the transitions, kept for the test to read. */
function recordingLedger(): TransitionSink & { moves: Transition[] } {
  const moves: Transition[] = [];
  return {
    moves,
    move: async (transition: Transition): Promise<Moved> => {
      moves.push(transition);
      return { id: transition.id, from_state: "submitted" };
    },
  };
}

describe("verification after a pending answer", () => {
  let sandbox: Sandbox;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 5 });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    reseller = resellerFor(sandbox);
  });
  afterEach(() => reseller.close());

  /** Buys one purchase, verifies it with a step of STEP ms, and returns the waits asked for and the reads made. */
  async function verifyOne(pendingReads: number) {
    sandbox.reset({ verifyNotFoundPolls: 0, verifyPendingPolls: pendingReads });
    const answer = await reseller.buyData({ network_id: "1", plan_id: "102", phone_number: PHONE });
    if (!answer.accepted) throw new Error(`the sandbox refused the purchase: ${answer.message}`);
    const clock = recordingClock();
    const ledger = recordingLedger();
    const settled: string[] = [];
    const verifier = new Verifier({
      // Read only by a verification that gives up, which none of these does.
      db: {} as Executor,
      ledger,
      reseller,
      verification: {
        initial_delay: STEP,
        learn_settle: false,
        notification_wait: 0,
        max_interval: 6 * STEP,
        timeout: 100 * STEP,
        horizon: 1000 * STEP,
      },
      logger: silentLogger(),
      clock,
      actor: "test",
      slots: new Semaphore(4),
      onSettled: (state) => settled.push(state),
    });
    verifier.schedule({
      id: 1,
      reference: answer.reference,
      submittedAt: clock.now(),
      attempt: 0,
      expect: { phone: PHONE, amount: answer.charged?.toFixed(2) ?? "" },
    });
    await verifier.drain();
    const reads = sandbox.requests().filter((r) => r.path.startsWith("/public/api/transaction/")).length;
    return { slept: clock.slept, settled, moves: ledger.moves, reads };
  }

  it("reads again soon after the first pending answer, and settles on the next read", async () => {
    const { slept, settled, moves, reads } = await verifyOne(1);
    expect(settled).toEqual(["succeeded"]);
    expect(moves.map((m) => m.to)).toEqual(["succeeded"]);
    expect(reads).toBe(2);
    // The first read waits initial_delay; the re-read after `pending` less than a step (the read took ms).
    expect(slept).toHaveLength(2);
    expect(slept[0]).toBeGreaterThan(STEP / 2);
    expect(slept[1]).toBeLessThan(STEP);
  });

  it("waits the whole backoff step after a second pending answer", async () => {
    const { slept, settled, reads } = await verifyOne(2);
    expect(settled).toEqual(["succeeded"]);
    expect(reads).toBe(3);
    expect(slept).toHaveLength(3);
    expect(slept[1]).toBeLessThan(STEP);
    // Read number 2 (from 0: attempt 1) is followed by initial_delay doubled once.
    expect(slept[2]).toBe(2 * STEP);
  });
});
