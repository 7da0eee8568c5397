import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  parseSizeMb
} from "./chunk-VAUR3CNU.js";
import {
  external_exports
} from "./chunk-WW7OP26R.js";
import {
  MONEY_MAX,
  fitsLedger,
  isMoneyText,
  parseMoney
} from "./chunk-57HFVDAX.js";

// dist/reseller/schemas.js
var text = external_exports.union([external_exports.string(), external_exports.number()]).transform((v) => String(v));
var money = external_exports.union([external_exports.string(), external_exports.number()]).refine((v) => isMoneyText(String(v)), { message: "expected a decimal amount" }).transform((v, ctx) => {
  const amount = parseMoney(v);
  const problem = !fitsLedger(amount) ? `${String(v)} is beyond ${MONEY_MAX.toFixed(2)}, the most the ledger holds` : !amount.round(2).eq(amount) ? `${String(v)} has more than two decimal places (the ledger keeps kobo)` : void 0;
  if (problem === void 0)
    return amount;
  ctx.addIssue({ code: "custom", input: v, message: problem });
  return external_exports.NEVER;
});
var price = money.refine((amount) => amount.gt(0), { message: "expected a price above zero" });
var flag = external_exports.union([external_exports.boolean(), external_exports.literal("true"), external_exports.literal("false"), external_exports.literal(1), external_exports.literal(0)]).transform((v) => v === true || v === "true" || v === 1);
var networkSchema = external_exports.looseObject({
  id: text.optional(),
  code: text,
  name: external_exports.string(),
  other_name: external_exports.string().nullish()
}).transform((n) => ({ ...n, id: n.id ?? n.code, other_name: n.other_name ?? "" }));
var networksResponseSchema = external_exports.looseObject({
  status: flag.optional(),
  data: external_exports.looseObject({ networks: external_exports.array(networkSchema) })
});
var planSchema = external_exports.looseObject({
  id: text,
  price,
  size: text,
  name: external_exports.string(),
  type: external_exports.string().nullish(),
  network: external_exports.looseObject({ id: text.optional(), code: text.optional(), name: external_exports.string().optional() }).optional()
}).transform((p) => ({ ...p, type: p.type ?? "", size_mb: parseSizeMb(p.size) }));
var plansResponseSchema = external_exports.looseObject({
  status: flag.optional(),
  data: external_exports.looseObject({ plans: external_exports.array(external_exports.unknown()) })
});
function readPlanList(items, network) {
  const plans = [];
  const unusable = [];
  items.forEach((item, index) => {
    const parsed = planSchema.safeParse(item);
    if (parsed.success) {
      plans.push(parsed.data);
      return;
    }
    const raw = typeof item === "object" && item !== null ? item : {};
    const id = typeof raw.id === "string" || typeof raw.id === "number" ? String(raw.id) : `#${index + 1}`;
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    const shown = field.startsWith("price") ? ` (listed as ${JSON.stringify(raw.price)})` : "";
    unusable.push({ planId: id, network, reason: `${field}${issue?.message ?? "unreadable"}${shown}` });
  });
  return { plans, unusable };
}
var purchaseResultSchema = external_exports.looseObject({
  success: flag,
  code: text.optional(),
  status: external_exports.string().nullish(),
  message: external_exports.unknown().optional(),
  data: external_exports.looseObject({
    reference: text.optional(),
    amount: money.optional(),
    wallet_balance: money.optional(),
    phone_number: external_exports.string().optional()
  }).nullish()
});
var transactionSchema = external_exports.looseObject({
  reference: text,
  status: external_exports.string(),
  amount: money.optional(),
  phone_number: external_exports.string().optional(),
  service: external_exports.string().optional(),
  initial_balance: money.optional(),
  final_balance: money.optional(),
  created_at: external_exports.string().optional(),
  true_response: external_exports.string().nullish(),
  webhook_response: external_exports.unknown().optional()
});
function visiblePhone(shown) {
  let compact = shown.replace(/[\s().-]/g, "").replace(/[xX•#]/g, "*");
  if (/^\+?234/.test(compact))
    compact = `0${compact.replace(/^\+?234/, "")}`;
  return /^0[\d*]{10}$/.test(compact) ? compact : void 0;
}
function phoneAgrees(visible, national) {
  if (visible.length !== national.length)
    return false;
  for (let i = 0; i < visible.length; i++)
    if (visible[i] !== "*" && visible[i] !== national[i])
      return false;
  return true;
}
var transactionResponseSchema = external_exports.looseObject({
  status: flag.optional(),
  data: external_exports.looseObject({ transaction: transactionSchema })
});
var STATUS_CLASS = {
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
  refund: "reversed"
};
function classifyStatus(status) {
  return STATUS_CLASS[status.trim().toLowerCase()] ?? "unknown";
}

export {
  networksResponseSchema,
  plansResponseSchema,
  readPlanList,
  purchaseResultSchema,
  visiblePhone,
  phoneAgrees,
  transactionResponseSchema,
  classifyStatus
};
