// The reseller wallet: the only place its balance moves, each move recorded as a Debit or a Refund.
import { nairaText } from "./kobo.js";
import type { Debit } from "./records.js";
import type { SandboxState } from "./state.js";
import { isoMicros } from "./time.js";
import type { Transaction } from "./transactions.js";

/** Takes the transaction's amount from the wallet and records the debit; the caller checked the balance. */
export function debitWallet(state: SandboxState, tx: Transaction): Debit {
  state.walletKobo -= tx.amountKobo;
  const debit: Debit = {
    reference: tx.reference,
    network_id: tx.networkId,
    plan_id: tx.plan.id,
    phone_number: tx.phone,
    amount: nairaText(tx.amountKobo),
    at: isoMicros(state.clock()),
  };
  state.debits.push(debit);
  return debit;
}

/** Returns a failed or reversed transaction's amount to the wallet, once. */
export function refundOnce(state: SandboxState, tx: Transaction): void {
  if (tx.refunded) return;
  tx.refunded = true;
  state.walletKobo += tx.amountKobo;
  state.refunds.push({
    reference: tx.reference,
    amount: nairaText(tx.amountKobo),
    at: isoMicros(state.clock()),
  });
}

/** Takes a refunded transaction's amount from the wallet again (delivered after all): a second debit, once. */
export function chargeRefunded(state: SandboxState, tx: Transaction): void {
  if (!tx.refunded) return;
  tx.refunded = false;
  debitWallet(state, tx);
}
