// The reseller's answers (seed §2, §4.1) as tolerant zod schemas: unknown fields are kept, unknown status
// strings are accepted, ids and amounts may come as numbers or strings, prices become exact Money.
import { z } from "zod";
import { isMoneyText, parseMoney } from "../money.js";
import { parseSizeMb } from "./size.js";

const text = z.union([z.string(), z.number()]).transform((v) => String(v));
const money = z
  .union([z.string(), z.number()])
  .refine((v) => isMoneyText(String(v)), { message: "expected a decimal amount" })
  .transform((v) => parseMoney(v));
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
    price: money,
    size: text,
    name: z.string(),
    type: z.string().nullish(),
    network: z
      .looseObject({ id: text.optional(), code: text.optional(), name: z.string().optional() })
      .optional(),
  })
  .transform((p) => ({ ...p, type: p.type ?? "", size_mb: parseSizeMb(p.size) }));
export type Plan = z.output<typeof planSchema>;

export const plansResponseSchema = z.looseObject({
  status: flag.optional(),
  data: z.looseObject({ plans: z.array(planSchema) }),
});

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
  return STATUS_CLASS[status.trim().toLowerCase()] ?? "unknown";
}
