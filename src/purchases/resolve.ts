// Deciding whether a purchase may be bought, without I/O: the network and plan resolved against the live
// catalogue, the price against `max_price`, the phone and its network prefix. Every refusal names its reason.
import type { Money } from "../money.js";
import { formatMoney } from "../money.js";
import { matchNetwork } from "../reseller/catalogue.js";
import { networkOfNumber, PREFIX_TABLE, prefixNetworkOf } from "../reseller/prefixes.js";
import type { Network, Plan, UnusablePlan } from "../reseller/schemas.js";
import { formatSizeMb } from "../reseller/size.js";
import { normalisePhone } from "./phone.js";

export interface PlanSelector {
  size_mb: number;
  type?: string;
  name_contains?: string;
}

export interface PurchaseRequest {
  network: string;
  plan_id?: string | null;
  plan_selector?: PlanSelector | null;
  phone: string;
  ported: boolean;
  max_price?: Money | null;
}

export interface Catalogue {
  networks: Network[];
  /** Plans by network id; a network missing here could not be read this run. */
  plans: Map<string, Plan[]>;
  /**
   * Plans the provider charged more for than it lists, by `<network id>:<plan id>`, with the amount it charged:
   * not bought while the list still shows less (src/purchases/prices.ts keeps them between runs).
   */
  overcharged?: ReadonlyMap<string, Money>;
  /** Listed plans that cannot be bought (a price that is not a positive decimal), with the reason; never picked. */
  unusable?: UnusablePlan[];
}

export interface Resolved {
  ok: true;
  network: Network;
  plan: Plan;
  phone: string;
  amount: Money;
}
export interface Refused {
  ok: false;
  /**
   * A stable code for grouping: invalid_phone, unknown_network, ambiguous_network, ambiguous_plan,
   * catalogue_unavailable, plan_not_found, plan_unusable, price_mismatch, price_above_max, unknown_prefix,
   * wrong_network.
   */
  code: string;
  reason: string;
}

export function resolvePurchase(request: PurchaseRequest, catalogue: Catalogue): Resolved | Refused {
  const phone = normalisePhone(request.phone);
  if (!phone.ok) return refuse("invalid_phone", phone.reason);
  const found = requestedNetwork(catalogue, request);
  if (!found.ok) return found;
  const network = found.network;
  const plans = catalogue.plans.get(network.id);
  if (!plans) return refuse("catalogue_unavailable", `the plans of ${network.name} could not be read`);
  const plan = findPlan(plans, request);
  const unusable = request.plan_id
    ? catalogue.unusable?.find((u) => u.planId === request.plan_id && u.network === network.name)
    : undefined;
  if (!plan && unusable) {
    return refuse(
      "plan_unusable",
      `plan ${unusable.planId} of ${network.name} cannot be bought: ${unusable.reason}`,
    );
  }
  if (!plan) return refuse("plan_not_found", `no ${network.name} plan matches ${describePlan(request)}`);
  const charged = catalogue.overcharged?.get(`${network.id}:${plan.id}`);
  if (charged && plan.price.lt(charged)) return refuse("price_mismatch", overchargedReason(plan, charged));
  if (request.max_price && plan.price.gt(request.max_price)) {
    return refuse(
      "price_above_max",
      `plan ${plan.id} costs ${formatMoney(plan.price)}, above max_price ${formatMoney(request.max_price)}`,
    );
  }
  if (!request.ported && networkOfNumber(phone.phone) === undefined) {
    return refuse(
      "unknown_prefix",
      `the number's prefix ${phone.phone.slice(0, 4)} belongs to no network in the prefix table (as of ${PREFIX_TABLE.as_of}); mark the recipient ported if it is right`,
    );
  }
  const wrong = wrongNetwork(phone.phone, network, request.ported);
  if (wrong) return refuse("wrong_network", wrong);
  return { ok: true, network, plan, phone: phone.phone, amount: plan.price };
}

/**
 * The network a request names; for a plan id given without a network (`network` empty), the one network
 * whose live plans list that id. An id listed under two networks is refused, naming both.
 */
export function requestedNetwork(
  catalogue: Catalogue,
  request: Pick<PurchaseRequest, "network" | "plan_id">,
): { ok: true; network: Network } | Refused {
  if (request.network.trim() !== "") {
    const match = matchNetwork(catalogue.networks, request.network);
    if (match.kind === "ambiguous") return refuse("ambiguous_network", match.message);
    if (match.kind === "unknown") return refuse("unknown_network", `unknown network "${request.network}"`);
    return { ok: true, network: match.network };
  }
  const id = request.plan_id;
  if (!id) return refuse("unknown_network", "no network given, and no plan_id to find one by");
  const holders = catalogue.networks.filter((n) => catalogue.plans.get(n.id)?.some((p) => p.id === id));
  if (holders.length === 1) return { ok: true, network: holders[0]! };
  if (holders.length > 1) {
    const names = holders.map((n) => n.name).join(" and ");
    return refuse("ambiguous_plan", `plan id "${id}" is listed under ${names}; give the network`);
  }
  const unread = catalogue.networks.filter((n) => !catalogue.plans.has(n.id)).map((n) => n.name);
  if (unread.length > 0) {
    return refuse(
      "catalogue_unavailable",
      `plan id "${id}" is not among the plans read, and the plans of ${unread.join(", ")} could not be read`,
    );
  }
  return refuse("plan_not_found", `no network lists plan id "${id}"`);
}

/** Why a plan the provider charged more for than it lists is not bought (resolution and a claimed, unsent row). */
export function overchargedReason(plan: Pick<Plan, "id" | "price">, charged: Money): string {
  return `plan ${plan.id} was charged at ${formatMoney(charged)} though listed at ${formatMoney(plan.price)}; not bought until the plan list shows the price the provider charges`;
}

/** The plan a request names: by id, or the cheapest plan matching the selector (lowest id on a tie). */
export function findPlan(
  plans: Plan[],
  request: Pick<PurchaseRequest, "plan_id" | "plan_selector">,
): Plan | undefined {
  if (request.plan_id) return plans.find((p) => p.id === request.plan_id);
  const selector = request.plan_selector;
  if (!selector) return undefined;
  const matches = plans.filter((p) => matchesSelector(p, selector));
  return matches.sort((a, b) => a.price.cmp(b.price) || a.id.localeCompare(b.id, "en", { numeric: true }))[0];
}

/** Whether a plan is one a selector asks for: its size, and its type and name when the selector names them. */
export function matchesSelector(plan: Plan, selector: PlanSelector): boolean {
  const type = selector.type?.trim().toLowerCase();
  const contains = selector.name_contains?.trim().toLowerCase();
  return (
    plan.size_mb === selector.size_mb &&
    (type === undefined || plan.type.trim().toLowerCase() === type) &&
    (contains === undefined || plan.name.toLowerCase().includes(contains))
  );
}

export function describePlan(request: Pick<PurchaseRequest, "plan_id" | "plan_selector">): string {
  if (request.plan_id) return `plan_id ${request.plan_id}`;
  const s = request.plan_selector;
  if (!s) return "(no plan given)";
  const parts = [`size ${formatSizeMb(s.size_mb)}`];
  if (s.type) parts.push(`type "${s.type}"`);
  if (s.name_contains) parts.push(`name containing "${s.name_contains}"`);
  return parts.join(", ");
}

function wrongNetwork(phone: string, network: Network, ported: boolean): string | undefined {
  if (ported) return undefined;
  const planNetwork = prefixNetworkOf(network.name) ?? prefixNetworkOf(network.other_name);
  const numberNetwork = networkOfNumber(phone);
  if (planNetwork === undefined || numberNetwork === undefined || planNetwork === numberNetwork)
    return undefined;
  return `the number's prefix ${phone.slice(0, 4)} is ${numberNetwork}, not ${network.name}; mark the recipient ported if it was moved`;
}

function refuse(code: string, reason: string): Refused {
  return { ok: false, code, reason };
}
