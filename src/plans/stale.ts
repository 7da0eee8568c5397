// Whether a purchase plan can still be applied as saved, item by item, without I/O: each item against the live
// catalogue (its plan listed, its price at most the planned one, its phone still on its network), against the
// ledger's rows of its key (ours, free, or taken by another source), and the items together against the budgets
// and the wallet floor as the claim will walk them.
import { formatMoney, type Money, parseMoney, ZERO } from "../money.js";
import { applyGuards, type GuardLimits } from "../purchases/guards.js";
import { type KeyedRow, planTag } from "../purchases/plan-rows.js";
import type { LedgerState } from "../purchases/projection.js";
import { resolveRow } from "../purchases/projection.js";
import { type Catalogue, matchesSelector, type PlanSelector, resolvePurchase } from "../purchases/resolve.js";
import type { PurchaseItem } from "./document.js";

/** Why an item cannot be applied as planned. */
export type StaleCode =
  | "price_rose"
  | "plan_gone"
  | "network_changed"
  | "key_taken"
  | "budget_short"
  | "wallet_short"
  | "unpriced";

/**
 * Codes of items that cannot be bought now but may be later, as they are: the catalogue unread for a moment, today's
 * budget or the wallet floor short. `--stale drop` never drops them; they wait for the next apply.
 */
export const FOR_NOW: ReadonlySet<StaleCode> = new Set<StaleCode>([
  "unpriced",
  "budget_short",
  "wallet_short",
]);

export interface StaleItem {
  item: PurchaseItem;
  code: StaleCode;
  why: string;
}

/** What becomes of each item: bought now, done already (an earlier apply of this plan), or stale. */
export interface ItemCheck {
  toBuy: Array<{ item: PurchaseItem; live: Money; existing?: KeyedRow }>;
  done: Array<{ item: PurchaseItem; row: KeyedRow }>;
  stale: StaleItem[];
}

export interface CheckInputs {
  planId: string;
  items: readonly PurchaseItem[];
  catalogue: Catalogue;
  existing: ReadonlyMap<string, KeyedRow>;
  limits: GuardLimits;
  /** The guards' start: committed today with the reservations ahead of this plan, the wallet and what is in flight. */
  committedToday: Money;
  ledger: Pick<LedgerState, "wallet" | "inFlight">;
}

const WAITING: readonly string[] = ["queued", "held"];

export function checkPurchaseItems(inputs: CheckInputs): ItemCheck {
  const result: ItemCheck = { toBuy: [], done: [], stale: [] };
  const ours = planTag(inputs.planId);
  // A plan has few distinct prices: each is read once.
  const prices = new Map<string, Money>();
  const planned = (text: string) => {
    let price = prices.get(text);
    if (price === undefined) {
      price = parseMoney(text);
      prices.set(text, price);
    }
    return price;
  };
  for (const item of inputs.items) {
    const row = inputs.existing.get(item.request_key);
    if (row && row.approval === ours && !row.pruned && !WAITING.includes(row.state)) {
      result.done.push({ item, row });
      continue;
    }
    const taken = row ? keyTaken(row, ours) : null;
    if (taken) {
      result.stale.push({ item, code: "key_taken", why: taken });
      continue;
    }
    const other = row && row.approval !== ours ? notThisItem(row, item, inputs.catalogue) : null;
    if (other) {
      result.stale.push({ item, code: "key_taken", why: other });
      continue;
    }
    const priced = livePrice(item, planned(item.price), inputs.catalogue);
    if ("why" in priced) result.stale.push({ item, ...priced });
    else result.toBuy.push({ item, live: priced.live, ...(row ? { existing: row } : {}) });
  }
  return guardStale(result, inputs);
}

/** Why another source has this key, or null when the plan may buy it (its own row waiting, or a free queued row). */
function keyTaken(row: KeyedRow, ours: string): string | null {
  if (row.pruned) return `key already used by purchase ${row.id} (${row.state}, pruned from the ledger)`;
  if (row.approval === ours) return null;
  if (row.state === "queued" && (row.approval === null || row.approval.startsWith("run:"))) return null;
  if (row.state === "held") return `key held for approval by ${row.approval?.replace(/^plan:/, "plan ")}`;
  return `key already bought by another source: purchase ${row.id} is ${row.state}`;
}

/**
 * A free queued row of the item's key is taken into the plan only when it is the item: the same phone, network,
 * plan and `ported`. Another source may have queued something else under that key since the plan was made (an
 * intake request rewritten by its caller, a job whose plan changed); buying it would spend on what no approver saw.
 * A row that names its plan by a selector is the item when the item's plan is one the selector asks for (the plan
 * it resolved to when saved, kept when the row is taken: another plan listed cheaper since does not change it).
 */
function notThisItem(row: KeyedRow, item: PurchaseItem, catalogue: Catalogue): string | null {
  const selector = row.plan_id === null ? (row.plan_selector as PlanSelector | null) : null;
  const resolved = resolveRow(
    {
      network: row.network ?? "",
      plan_id: row.plan_id ?? item.plan_id,
      plan_selector: null,
      phone: row.phone ?? "",
      ported: row.ported ?? false,
      max_price: null,
    },
    catalogue,
  );
  if (resolved.outcome !== "buy" || (row.plan_id === null && !selector))
    return `key queued by another source as purchase ${row.id}, which is not this item (${"code" in resolved ? resolved.code : "no plan"})`;
  const plan = resolved.resolved.plan;
  const differs = [
    resolved.resolved.phone !== item.phone && "phone",
    resolved.resolved.network.id !== item.network_id && "network",
    (selector ? !matchesSelector(plan, selector) : plan.id !== item.plan_id) && "plan",
    (row.ported ?? false) !== item.ported && "ported",
  ].filter((field): field is string => field !== false);
  return differs.length === 0
    ? null
    : `key queued by another source as purchase ${row.id}, which is not this item (${differs.join(", ")} ${differs.length === 1 ? "differs" : "differ"})`;
}

/** The item against the live catalogue: its live price, or why it is stale. */
function livePrice(
  item: PurchaseItem,
  planned: Money,
  catalogue: Catalogue,
): { live: Money } | { code: StaleCode; why: string } {
  const resolved = resolvePurchase(
    { network: item.network_id, plan_id: item.plan_id, phone: item.phone, ported: item.ported },
    catalogue,
  );
  if (!resolved.ok) {
    switch (resolved.code) {
      case "plan_not_found":
      case "plan_unusable":
      case "unknown_network":
        return { code: "plan_gone", why: `plan gone: ${resolved.reason}` };
      case "wrong_network":
      case "unknown_prefix":
        return { code: "network_changed", why: `phone's network changed: ${resolved.reason}` };
      case "catalogue_unavailable":
        return { code: "unpriced", why: `cannot check the price: ${resolved.reason}` };
      default:
        return { code: "plan_gone", why: `${resolved.code}: ${resolved.reason}` };
    }
  }
  if (resolved.amount.gt(planned))
    return {
      code: "price_rose",
      why: `price rose from ${formatMoney(planned)} to ${formatMoney(resolved.amount)}`,
    };
  return { live: resolved.amount };
}

/** Walks the budgets and the wallet floor over the items to buy, in order, at their live prices. */
function guardStale(check: ItemCheck, inputs: CheckInputs): ItemCheck {
  const decisions = applyGuards(
    check.toBuy.map((b) => b.live),
    inputs.limits,
    {
      dailyCommitted: inputs.committedToday,
      runCommitted: ZERO,
      walletBalance: inputs.ledger.wallet?.balance,
      inFlight: inputs.ledger.inFlight,
    },
  );
  const toBuy: ItemCheck["toBuy"] = [];
  check.toBuy.forEach((candidate, i) => {
    const decision = decisions[i]!;
    if (decision.ok) toBuy.push(candidate);
    else
      check.stale.push({
        item: candidate.item,
        code: decision.code === "wallet_floor" ? "wallet_short" : "budget_short",
        why: `${decision.code === "wallet_floor" ? "wallet floor" : "budget"} now short: ${decision.reason}`,
      });
  });
  return { ...check, toBuy };
}
