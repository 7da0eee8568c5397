// The purchase answer and the verify answer read without zod when they are well formed: a run reads one of the
// first and two or three of the second for every purchase, and zod's walk of them was a few per cent of the run's
// CPU. What comes out is what the schemas in schemas.ts make of the same answer, key for key and in the same order
// (the fields a schema names, in its order, then the others as they came); an answer with anything these do not
// read as the schemas would (a missing or mistyped field, an amount the ledger cannot hold, a `__proto__` key) is
// left to the schemas, so an unreadable answer still fails with their words.
import { fitsLedger, isMoneyText, type Money, parseMoney } from "../money.js";
import type { PurchaseResult, Transaction } from "./schemas.js";

/** Returned by a reader for an answer it leaves to the schemas. */
const NO = Symbol("no");
type Read = (value: unknown) => unknown;

interface Field {
  read: Read;
  /** May be absent (`.optional()` / `.nullish()` in the schema). */
  optional: boolean;
}

const text: Read = (v) => (typeof v === "string" || typeof v === "number" ? String(v) : NO);
const string: Read = (v) => (typeof v === "string" ? v : NO);
const nullishString: Read = (v) => (typeof v === "string" || v === null ? v : NO);
const unknown: Read = (v) => v;
const flag: Read = (v) =>
  v === true || v === false || v === "true" || v === "false" || v === 1 || v === 0
    ? v === true || v === "true" || v === 1
    : NO;
/** An amount as providers write it: at most 12 digits and 2 places, so it fits the ledger with nothing to round. */
const PLAIN_AMOUNT = /^-?\d{1,12}(?:\.\d{1,2})?$/;
/** The schemas' `money`: a decimal of at most two places that the ledger holds. */
const money: Read = (v) => {
  if (typeof v !== "string" && typeof v !== "number") return NO;
  // Most answers take this way, which reads each amount once rather than three times.
  if (PLAIN_AMOUNT.test(String(v))) return parseMoney(v);
  if (!isMoneyText(String(v))) return NO;
  const amount: Money = parseMoney(v);
  return fitsLedger(amount) && amount.round(2).eq(amount) ? amount : NO;
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A `z.looseObject` of these fields: its named fields read, in their order, then every other key as it came. */
function looseObject(fields: Record<string, Field>): Read {
  const names = Object.keys(fields);
  const named = new Set(names);
  return (input) => {
    if (!isObject(input)) return NO;
    const out: Record<string, unknown> = {};
    for (const name of names) {
      if (!(name in input)) {
        if (fields[name]!.optional) continue;
        return NO;
      }
      const value = fields[name]!.read(input[name]);
      if (value === NO) return NO;
      out[name] = value;
    }
    for (const key in input) {
      if (key === "__proto__") return NO;
      if (!named.has(key)) out[key] = input[key];
    }
    return out;
  };
}

const required = (read: Read): Field => ({ read, optional: false });
const optional = (read: Read): Field => ({ read, optional: true });
const nullish = (read: Read): Field => ({ read: (v) => (v === null ? null : read(v)), optional: true });

const purchaseResult = looseObject({
  success: required(flag),
  code: optional(text),
  status: optional(nullishString),
  message: optional(unknown),
  data: nullish(
    looseObject({
      reference: optional(text),
      amount: optional(money),
      wallet_balance: optional(money),
      phone_number: optional(string),
    }),
  ),
});

const transactionResponse = looseObject({
  status: optional(flag),
  data: required(
    looseObject({
      transaction: required(
        looseObject({
          reference: required(text),
          status: required(string),
          amount: optional(money),
          phone_number: optional(string),
          service: optional(string),
          initial_balance: optional(money),
          final_balance: optional(money),
          created_at: optional(string),
          true_response: optional(nullishString),
          webhook_response: optional(unknown),
        }),
      ),
    }),
  ),
});

/** `purchaseResultSchema`'s reading of a well-formed purchase answer; undefined for one left to the schema. */
export function quickPurchaseResult(body: unknown): PurchaseResult | undefined {
  const read = purchaseResult(body);
  return read === NO ? undefined : (read as PurchaseResult);
}

/** `transactionResponseSchema`'s reading of a well-formed verify answer; undefined for one left to the schema. */
export function quickTransactionResponse(
  body: unknown,
): { status?: boolean; data: { transaction: Transaction } } | undefined {
  const read = transactionResponse(body);
  return read === NO ? undefined : (read as { status?: boolean; data: { transaction: Transaction } });
}
