// Reseller transactions: the record kept per accepted purchase, and the payloads the reseller builds from it
// (purchase result, webhook payload, verify view).
import { randomBytes } from "node:crypto";
import { type SandboxPlan, sizeLabel } from "./catalogue.js";
import { nairaNumber, nairaText } from "./kobo.js";

/** Decided when the purchase is accepted; verify reveals it after the not-found and pending polls. */
export type FinalStatus = "success" | "failed" | "reversed";
export type VisibleStatus = "pending" | FinalStatus;

export interface Transaction {
  reference: string;
  networkId: string;
  plan: SandboxPlan;
  phone: string;
  amountKobo: number;
  initialKobo: number;
  finalKobo: number;
  createdAt: string;
  finalStatus: FinalStatus;
  verifyCalls: number;
  refunded: boolean;
  /** The reseller has sent its notification: the transaction is final, and verify says so soon after. */
  notified: boolean;
  /** Verify reads since the notification was sent (`notifiedPendingPolls` of them answer pending). */
  readsSinceNotified: number;
  /** With the time-based lag (epoch ms): verify answers 404 before `knownAt`, pending before `settledAt`. */
  knownAt: number;
  settledAt: number;
  /**
   * A final status the reseller changed later (a success taken back, `reverseTransaction`; a failure delivered after
   * all, `deliverLate`): what verify showed before, until it catches up with the change (`notifiedPendingPolls` reads,
   * or `notifyLeadMs` with the time-based lag).
   */
  lateChange?: { before: FinalStatus; visibleAt: number };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A 20-character alphanumeric reference (20 digits, not starting with 0, when `digits`) not yet used in `taken`. */
export function newReference(taken: ReadonlyMap<string, unknown>, digits = false): string {
  for (;;) {
    const bytes = randomBytes(20);
    let reference = "";
    for (const byte of bytes) {
      reference += digits
        ? String(reference === "" ? 1 + (byte % 9) : byte % 10)
        : ALPHABET[byte % ALPHABET.length];
    }
    if (!taken.has(reference)) return reference;
  }
}

/** "0803****567": the first four and last three digits, as the reseller's verify answer shows a number. */
export function maskPhone(phone: string): string {
  return `${phone.slice(0, 4)}****${phone.slice(-3)}`;
}

function successMessage(tx: Transaction): string {
  return `Dear Customer, You have successfully gifted ${tx.phone} with ${sizeLabel(tx.plan)} of data. Reference: ${tx.reference}`;
}

function providerText(tx: Transaction, delivered: boolean): string {
  const international = `234${tx.phone.slice(1)}`;
  return delivered
    ? `SUCCESSFUL: You have gifted ${sizeLabel(tx.plan)} to ${international}. Thank you.`
    : `FAILED: Gifting ${sizeLabel(tx.plan)} to ${international} was not completed by the network.`;
}

function payloadData(tx: Transaction, message: string, walletKobo: number, delivered: boolean) {
  const network = tx.plan.network.name;
  return {
    service: `${network} Data`,
    amount: nairaText(tx.amountKobo),
    plan: sizeLabel(tx.plan),
    phone_number: tx.phone,
    date: tx.createdAt,
    message,
    reference: tx.reference,
    network,
    wallet_balance: nairaNumber(walletKobo),
    true_response: providerText(tx, delivered),
  };
}

/** The purchase result answered when a purchase is accepted (`{success, code, status, message, data}`, docs/services.md). */
export function purchaseResult(tx: Transaction) {
  const message = successMessage(tx);
  return {
    success: true,
    code: 200,
    status: "successful",
    message,
    data: payloadData(tx, message, tx.finalKobo, true),
  };
}

/** The notification payload of a transaction that failed or was reversed after it was accepted. */
function failedPayload(tx: Transaction) {
  const verb = tx.finalStatus === "reversed" ? "was reversed" : "failed";
  const message = `Transaction ${tx.reference} ${verb}. N${nairaText(tx.amountKobo)} has been refunded to your wallet.`;
  return {
    success: false,
    code: 400,
    status: "failed",
    message,
    data: payloadData(tx, message, tx.initialKobo, false),
  };
}

/** The notification the reseller sends for a transaction once it is final (the `webhook_response` payload: the purchase answer's shape). */
export function notificationPayload(tx: Transaction) {
  return tx.finalStatus === "success" ? purchaseResult(tx) : failedPayload(tx);
}

/** The `transaction` object of a verify answer, showing the transaction in the given status. */
export function transactionView(tx: Transaction, status: VisibleStatus) {
  const delivered = status !== "failed" && status !== "reversed";
  const network = tx.plan.network.name;
  return {
    service_plan_id: Number(tx.plan.id),
    service: network,
    phone_number: maskPhone(tx.phone),
    service_type: "Data Topup",
    description: `${network} ${sizeLabel(tx.plan)} data topup to ${maskPhone(tx.phone)}`,
    amount: nairaText(tx.amountKobo),
    initial_balance: nairaText(tx.initialKobo),
    final_balance: nairaText(tx.finalKobo),
    reference: tx.reference,
    status,
    created_at: tx.createdAt,
    true_response: providerText(tx, delivered),
    webhook_response: delivered ? purchaseResult(tx) : failedPayload(tx),
  };
}

/** The reseller's transaction export: one line per transaction, its final status (a statement CSV). */
export function statementRows(transactions: Iterable<Transaction>): string[][] {
  const rows = [["reference", "phone", "amount", "date", "status"]];
  for (const tx of transactions)
    rows.push([
      tx.reference,
      tx.phone,
      nairaText(tx.amountKobo),
      tx.createdAt,
      tx.finalStatus === "success" ? "successful" : tx.finalStatus,
    ]);
  return rows;
}
