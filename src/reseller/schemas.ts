// The reseller's answers (networks, plans, the purchase answer, the verify answer: docs/services.md) as tolerant zod schemas: unknown fields are kept, unknown status
// strings are accepted, ids and amounts may come as numbers or strings, prices become exact Money bounded to
// what the ledger's columns hold. A reference is text exactly as written (the HTTP layer keeps the source text
// of a JSON number no double holds), so `12345678901234567890` stays those twenty digits.
import * as z from "zod";
import { fitsLedger, isMoneyText, MONEY_MAX, parseMoney } from "../money.js";
import { ownEntry } from "../own-entry.js";
import { parseSizeMb } from "./size.js";

const text = z.union([z.string(), z.number()]).transform((v) => String(v));
/**
 * An amount the ledger can store exactly: a decimal of at most two places whose magnitude is at most MONEY_MAX
 * (numeric(14,2)); anything else is unreadable rather than rounded or overflowing a column later.
 */
const money = z
  .union([z.string(), z.number()])
  .refine((v) => isMoneyText(String(v)), { message: "expected a decimal amount" })
  .transform((v, ctx) => {
    const amount = parseMoney(v);
    const problem = !fitsLedger(amount)
      ? `${String(v)} is beyond ${MONEY_MAX.toFixed(2)}, the most the ledger holds`
      : !amount.round(2).eq(amount)
        ? `${String(v)} has more than two decimal places (the ledger keeps kobo)`
        : undefined;
    if (problem === undefined) return amount;
    ctx.addIssue({ code: "custom", input: v, message: problem });
    return z.NEVER;
  });
/** A price a plan can be bought at: an amount above zero. */
const price = money.refine((amount) => amount.gt(0), { message: "expected a price above zero" });
const flag = z
  .union([z.boolean(), z.literal("true"), z.literal("false"), z.literal(1), z.literal(0)])
  .transform((v) => v === true || v === "true" || v === 1);

export const networkSchema = z
  .looseObject({
    id: text.optional(),
    code: text,
    name: z.string(),
    other_name: z.string().nullish(),
  })
  .transform((n) => ({ ...n, id: n.id ?? n.code, other_name: n.other_name ?? "" }));
export type Network = z.output<typeof networkSchema>;

export const networksResponseSchema = z.looseObject({
  status: flag.optional(),
  data: z.looseObject({ networks: z.array(networkSchema) }),
});

export const planSchema = z
  .looseObject({
    id: text,
    price,
    size: text,
    name: z.string(),
    type: z.string().nullish(),
    network: z
      .looseObject({ id: text.optional(), code: text.optional(), name: z.string().optional() })
      .optional(),
  })
  .transform((p) => ({ ...p, type: p.type ?? "", size_mb: parseSizeMb(p.size) }));
export type Plan = z.output<typeof planSchema>;

/** The list is read plan by plan (see `readPlanList`): one plan that cannot be read does not spoil the others. */
export const plansResponseSchema = z.looseObject({
  status: flag.optional(),
  data: z.looseObject({ plans: z.array(z.unknown()) }),
});

/** A listed plan that cannot be bought, and why (a price that is not a positive decimal, a missing field). */
export interface UnusablePlan {
  planId: string;
  network: string;
  reason: string;
}

/** Each listed plan parsed on its own: the usable ones, and the others with the reason. */
export function readPlanList(
  items: readonly unknown[],
  network: string,
): { plans: Plan[]; unusable: UnusablePlan[] } {
  const plans: Plan[] = [];
  const unusable: UnusablePlan[] = [];
  items.forEach((item, index) => {
    const parsed = planSchema.safeParse(item);
    if (parsed.success) {
      plans.push(parsed.data);
      return;
    }
    const raw = typeof item === "object" && item !== null ? (item as Record<string, unknown>) : {};
    const id = typeof raw.id === "string" || typeof raw.id === "number" ? String(raw.id) : `#${index + 1}`;
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    const shown = field.startsWith("price") ? ` (listed as ${JSON.stringify(raw.price)})` : "";
    unusable.push({ planId: id, network, reason: `${field}${issue?.message ?? "unreadable"}${shown}` });
  });
  return { plans, unusable };
}

export const purchaseResultSchema = z.looseObject({
  success: flag,
  code: text.optional(),
  status: z.string().nullish(),
  message: z.unknown().optional(),
  data: z
    .looseObject({
      reference: text.optional(),
      amount: money.optional(),
      wallet_balance: money.optional(),
      phone_number: z.string().optional(),
    })
    .nullish(),
});
export type PurchaseResult = z.output<typeof purchaseResultSchema>;

export const transactionSchema = z.looseObject({
  reference: text,
  status: z.string(),
  amount: money.optional(),
  phone_number: z.string().optional(),
  service: z.string().optional(),
  initial_balance: money.optional(),
  final_balance: money.optional(),
  created_at: z.string().optional(),
  true_response: z.string().nullish(),
  webhook_response: z.unknown().optional(),
});
export type Transaction = z.output<typeof transactionSchema>;

/**
 * A phone number as an answer shows it, some digits hidden ("0803****567", "234803****567"): its national form
 * with `*` where a digit is hidden, or undefined when it does not read as a Nigerian number of 11 digits.
 */
export function visiblePhone(shown: string): string | undefined {
  let compact = shown.replace(/[\s().-]/g, "").replace(/[xX\u2022#]/g, "*");
  if (/^\+?234/.test(compact)) compact = `0${compact.replace(/^\+?234/, "")}`;
  // The national number without its trunk 0 (a mobile one starts 7, 8 or 9): how a JSON number writes 08031234567.
  else if (/^[789][\d*]{9}$/.test(compact)) compact = `0${compact}`;
  return /^0[\d*]{10}$/.test(compact) ? compact : undefined;
}

/** Whether a national number agrees with a shown one on every digit the shown one reveals. */
export function phoneAgrees(visible: string, national: string): boolean {
  if (visible.length !== national.length) return false;
  for (let i = 0; i < visible.length; i++) if (visible[i] !== "*" && visible[i] !== national[i]) return false;
  return true;
}

export const transactionResponseSchema = z.looseObject({
  status: flag.optional(),
  data: z.looseObject({ transaction: transactionSchema }),
});

/** What a transaction status means for money, whatever word a platform uses for it. */
export type FinalityClass = "success" | "pending" | "failed" | "reversed" | "unknown";

const STATUS_CLASS: Record<string, FinalityClass> = {
  success: "success",
  successful: "success",
  delivered: "success",
  completed: "success",
  pending: "pending",
  processing: "pending",
  initiated: "pending",
  queued: "pending",
  failed: "failed",
  fail: "failed",
  declined: "failed",
  reversed: "reversed",
  refunded: "reversed",
  refund: "reversed",
};

export function classifyStatus(status: string): FinalityClass {
  // Own entries only: a status such as "constructor" or "__proto__" named what every object inherits.
  return ownEntry(STATUS_CLASS, status.trim().toLowerCase()) ?? "unknown";
}
