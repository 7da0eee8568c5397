// The reseller's notifications: each debit's `webhook_response` POSTed to `notifyUrl` once the
// transaction is final (with the time-based verify lag, `notifyLeadMs` before verify says so; with the reads-based
// one, at once), signed (`X-Signature`: HMAC-SHA256 hex of the raw body with `notifySecret`), retried
// on failure, and delivered `notifyDuplicates` extra times — also for purchases whose own answer was lost
// (a 500, a reset, a hang or a gateway timeout after the debit). From its first sending the transaction is
// final on verify too, and a failed one refunded, as the notification says.
import { createHmac } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { SandboxState } from "./state.js";
import { type FinalStatus, notificationPayload, type Transaction } from "./transactions.js";
import { chargeRefunded, refundOnce } from "./wallet.js";

const ATTEMPTS = 3;

export function notifyTransaction(state: SandboxState, tx: Transaction): void {
  if (!state.options.notifyUrl) return;
  if (state.options.notifyHold) state.heldNotifications.push(tx);
  else if (state.options.verifyLag === "time") {
    const wait = Math.max(0, tx.settledAt - state.options.notifyLeadMs - state.clock().getTime());
    const signal = state.closing.signal;
    track(
      state,
      delay(wait, undefined, { signal }).then(() => deliver(state, tx)),
    );
  } else track(state, deliver(state, tx));
}

/**
 * A delivered purchase taken back by the reseller ("pending purchases refunded by a timer although they had been
 * delivered", REFERENCE.md): the transaction is now `reversed`, its amount back in the wallet, and its notification
 * sent again saying so. Verify lags it as it lags any notification. Undefined when done; else why not.
 */
export function reverseTransaction(state: SandboxState, reference: string): string | undefined {
  const tx = state.transactions.get(reference);
  if (!tx) return `no transaction ${reference}`;
  if (tx.finalStatus !== "success") return `transaction ${reference} is ${tx.finalStatus}, not success`;
  changeLate(state, tx, "reversed");
  return undefined;
}

/**
 * A failed purchase the reseller delivers after all, and charges for: the transaction is now `success`, a refund it
 * made is taken from the wallet again (a second debit of that reference), and its notification sent again saying
 * so. Verify lags it as it lags any notification. Undefined when done; else why not.
 */
export function deliverLate(state: SandboxState, reference: string): string | undefined {
  const tx = state.transactions.get(reference);
  if (!tx) return `no transaction ${reference}`;
  if (tx.finalStatus !== "failed") return `transaction ${reference} is ${tx.finalStatus}, not failed`;
  changeLate(state, tx, "success");
  return undefined;
}

/** Changes a final transaction's status (verify catching up after its lag), moves the money, notifies again. */
function changeLate(state: SandboxState, tx: Transaction, to: FinalStatus): void {
  const now = state.clock().getTime();
  tx.lateChange = { before: tx.finalStatus, visibleAt: now + state.options.notifyLeadMs };
  tx.finalStatus = to;
  tx.readsSinceNotified = 0;
  if (to === "success") chargeRefunded(state, tx);
  else refundOnce(state, tx);
  if (!state.options.notifyUrl) tx.notified = true;
  else if (state.options.notifyHold) state.heldNotifications.push(tx);
  else track(state, deliver(state, tx));
}

/** Sends what is held and waits for every delivery in progress. */
export async function deliverNotifications(state: SandboxState): Promise<void> {
  for (const tx of state.heldNotifications.splice(0)) track(state, deliver(state, tx));
  while (state.deliveries.size > 0) await Promise.all(state.deliveries);
}

function track(state: SandboxState, delivery: Promise<void>): void {
  const followed = delivery.catch(() => {});
  state.deliveries.add(followed);
  void followed.finally(() => state.deliveries.delete(followed));
}

async function deliver(state: SandboxState, tx: Transaction): Promise<void> {
  const { notifyUrl, notifySecret, notifyDuplicates } = state.options;
  tx.notified = true;
  if (tx.finalStatus !== "success") refundOnce(state, tx);
  const payload = notificationPayload(tx);
  if (state.options.lies.trueResponse !== undefined)
    payload.data.true_response = state.options.lies.trueResponse;
  const body = JSON.stringify(payload);
  const signature = createHmac("sha256", notifySecret).update(body).digest("hex");
  const signal = state.closing.signal;
  for (let copy = 0; copy <= notifyDuplicates; copy++) {
    for (let attempt = 1; attempt <= ATTEMPTS && !signal.aborted; attempt++) {
      try {
        const answer = await fetch(notifyUrl, {
          method: "POST",
          headers: { "content-type": "application/json", "x-signature": signature },
          body,
          signal,
        });
        await answer.arrayBuffer();
        if (answer.ok) break;
      } catch {
        // a refused connection or a reset: retried below
      }
      if (attempt < ATTEMPTS) await delay(20 * attempt, undefined, { signal }).catch(() => {});
    }
  }
}
