// A purchase plan is the purchase projection (what `purchases run --dry-run` prints) as a value that can be saved:
// every item it would buy with its request key and planned price, every candidate it would not buy with its code,
// the total and the approvals it needs.
import type { ApprovalsConfig, PurchaseJob } from "../config/index.js";
import { parseMoney, sumMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import type { PurchaseDeps } from "../purchases/executor.js";
import type { PurchaseProjection } from "../purchases/projection.js";
import { projectSources } from "../purchases/projection-read.js";
import { projectRun } from "../purchases/run-once.js";
import { type Authorship, approvalsForTotal, authorFields } from "./approvals.js";
import {
  newPlanId,
  PLAN_FORMAT_VERSION,
  type PurchaseItem,
  type PurchasePlan,
  planDigest,
  type RejectedItem,
} from "./document.js";

export interface PurchasePlanRequest {
  now: Date;
  /** One job: its given fire, or its due one. */
  job?: PurchaseJob;
  fireTime?: Date;
  /** The queue and the intake requests not yet moved, without any fire. */
  queued: boolean;
  configDir: string;
}

/** The projection a plan saves: the dry run of the same request at the same moment. */
export async function projectPlan(
  deps: Pick<PurchaseDeps, "database" | "reseller" | "config" | "logger">,
  request: PurchasePlanRequest,
): Promise<PurchaseProjection> {
  if (!request.queued) return projectRun(deps, request);
  const catalogue = await loadCatalogue(deps.reseller, deps.logger);
  return projectSources(deps.database.db, deps.config, catalogue, {
    now: request.now,
    to: request.now,
    fires: [],
    queued: true,
    intake: true,
  });
}

export interface PlanMeta {
  now: Date;
  author: Authorship;
  configDigest: string | null;
  approvals: ApprovalsConfig;
  request: PurchasePlanRequest;
  planId?: string;
}

/** The plan of a projection: its `buy` items exactly as resolved, the rest as rejected with their codes. */
export function purchasePlanFrom(projection: PurchaseProjection, meta: PlanMeta): PurchasePlan {
  const items: PurchaseItem[] = [];
  const rejected: RejectedItem[] = [];
  // A fire's time and a plan's price are the same for many items: each is written once.
  const fireTimes = projection.runs.map((run) => run.fireTime?.toISOString() ?? null);
  const prices = new Map<unknown, string>();
  for (const item of projection.items) {
    const resolved = item.resolved;
    if (item.outcome === "buy" && resolved) {
      let price = prices.get(resolved.amount);
      if (price === undefined) {
        price = resolved.amount.toFixed(2);
        prices.set(resolved.amount, price);
      }
      // Keys in canonical order (canonical.ts): the item's JSON text is its canonical text.
      items.push({
        fire_time: fireTimes[item.run] ?? null,
        job: item.job,
        network: resolved.network.name,
        network_id: resolved.network.id,
        phone: resolved.phone,
        plan_id: resolved.plan.id,
        plan_name: resolved.plan.name,
        ported: item.ported ?? false,
        price,
        request_key: item.request_key,
        source: item.source,
      });
    } else {
      rejected.push({
        request_key: item.request_key,
        source: item.source,
        job: item.job,
        phone: item.phone,
        network: item.network,
        plan: item.plan,
        code: item.code ?? item.outcome,
        reason: item.reason ?? "",
      });
    }
  }
  return planOf(items, rejected, meta);
}

/** A purchase plan of these items (the gate's held plans come here too). */
export function planOf(items: PurchaseItem[], rejected: RejectedItem[], meta: PlanMeta): PurchasePlan {
  const cents = new Map<string, number>();
  for (const item of items) cents.set(item.price, (cents.get(item.price) ?? 0) + 1);
  const total = sumMoney([...cents].map(([price, n]) => parseMoney(price).times(n)));
  const created = meta.now;
  const planId = meta.planId ?? newPlanId();
  const digest = planDigest({ kind: "purchases", items });
  return {
    format_version: PLAN_FORMAT_VERSION,
    kind: "purchases",
    plan_id: planId,
    created_at: created.toISOString(),
    expires_at: new Date(created.getTime() + meta.approvals.plan_ttl).toISOString(),
    ...authorFields(planId, digest, approvalsForTotal(meta.approvals, total), meta.author),
    config_digest: meta.configDigest,
    digest,
    total: total.toFixed(2),
    approvals: [],
    request: {
      job: meta.request.job?.name ?? null,
      fire_time: meta.request.fireTime?.toISOString() ?? null,
      queued: meta.request.queued,
    },
    items,
    rejected,
  };
}
