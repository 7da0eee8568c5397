// The reseller's verify endpoint, eventually consistent. By default its lag is time since the purchase: a new
// reference is unknown until the transaction's `knownAt`, pending until its `settledAt`, then final, however
// often it is read. With `verifyLag: "reads"` the lag is counted in reads instead: unknown for the first
// `verifyNotFoundPolls` calls, pending for the next `verifyPendingPolls`, then final; once the reseller has sent
// its notification the reference is known, but verify still lags it: pending for `notifiedPendingPolls` more
// calls, then final (sooner when its own polls are over). A failed or reversed transaction is refunded the first
// time a verify or the notification reveals it. A success the reseller takes back later, or a failure it delivers
// after all (notify.ts: reverseTransaction, deliverLate), still shows as it was until verify catches up with it.
import { answerText } from "./lies.js";
import type { Call, Reply } from "./route.js";
import { type Transaction, transactionView, type VisibleStatus } from "./transactions.js";
import { refundOnce } from "./wallet.js";

const NOT_FOUND: Reply = { status: 404, body: { status: false, message: "Transaction not found." } };

export function verifyTransaction({ state, params }: Call): Reply {
  const tx = state.transactions.get(decodeURIComponent(params[0] ?? ""));
  if (!tx) return NOT_FOUND;
  tx.verifyCalls += 1;
  if (tx.notified) tx.readsSinceNotified += 1;
  const status = visibleStatus(state, tx);
  if (status === undefined) return NOT_FOUND;
  // Refunded when a failure is revealed, not when verify still shows one the reseller has delivered since.
  if (status === tx.finalStatus && status !== "success") refundOnce(state, tx);
  const transaction = transactionView(tx, status);
  if (state.options.lies.trueResponse !== undefined)
    transaction.true_response = state.options.lies.trueResponse;
  const body = lie(state.options.verifyLie, { status: true, data: { transaction } });
  return {
    status: 200,
    body,
    text: answerText({ referenceAsNumber: state.options.lies.referenceAsNumber }, body),
  };
}

/** What verify shows of `tx` now (after counting this read); undefined: not found yet. */
function visibleStatus(state: Call["state"], tx: Transaction): VisibleStatus | undefined {
  const { lateChange } = tx;
  if (lateChange) {
    const behind =
      state.options.verifyLag === "time"
        ? state.clock().getTime() < lateChange.visibleAt
        : tx.readsSinceNotified <= state.options.notifiedPendingPolls;
    return behind ? lateChange.before : tx.finalStatus;
  }
  if (state.options.verifyLag === "time") {
    const now = state.clock().getTime();
    if (now < tx.knownAt) return undefined;
    return now < tx.settledAt ? "pending" : tx.finalStatus;
  }
  const { verifyNotFoundPolls, verifyPendingPolls, notifiedPendingPolls } = state.options;
  if (!tx.notified && tx.verifyCalls <= verifyNotFoundPolls) return undefined;
  const caughtUp = tx.notified && tx.readsSinceNotified > notifiedPendingPolls;
  return caughtUp || tx.verifyCalls > verifyNotFoundPolls + verifyPendingPolls ? tx.finalStatus : "pending";
}

/** A dishonest provider's verify answer: about another purchase, or a success that is not one. */
function lie(
  kind: Call["state"]["options"]["verifyLie"],
  body: { status: boolean; data: { transaction: Record<string, unknown> } },
) {
  const tx = body.data.transaction;
  if (kind === "phone") tx.phone_number = "0809****999";
  if (kind === "amount") tx.amount = "1.00";
  if (kind === "reference") tx.reference = `${String(tx.reference)}X`;
  if (kind === "status_false") body.status = false;
  if (kind === "failed_huge_refund") Object.assign(tx, { status: "failed", amount: "99999.00" });
  return body;
}
