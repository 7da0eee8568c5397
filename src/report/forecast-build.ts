// The combined plan from its inputs, without I/O: the purchase projection, each job's resolved plan and
// price, price changes, the website plan from the pure planner, and which parts are unknown.
import type { Config, PurchaseJob } from "../config/index.js";
import { priceChanges } from "../purchases/prices.js";
import { priceKey } from "../purchases/projection.js";
import { type Catalogue, describePlan, findPlan, requestedNetwork } from "../purchases/resolve.js";
import { deleteRefusal } from "../websites/guards.js";
import { hiddenProblem, lookupOptions } from "../websites/missing.js";
import { hasChanges, type Plan } from "../websites/model.js";
import { planWebsites } from "../websites/plan.js";
import { deriveSecretKey } from "../websites/secrets.js";
import { approvalsView } from "./approvals-view.js";
import type {
  Forecast,
  ForecastInputs,
  JobFires,
  JobLine,
  UnknownPart,
  WebsiteInputs,
  WebsitePart,
} from "./forecast-model.js";

export function buildForecast(inputs: ForecastInputs): Forecast {
  const projection = inputs.purchases;
  const catalogue = inputs.catalogue;
  const jobs = inputs.jobs.map((fires) => jobLine(fires, catalogue, inputs.config.timezone));
  const used = new Set(projection.usedPlans);
  for (const job of jobs) if (job.networkId && job.planId) used.add(priceKey(job.networkId, job.planId));
  const unknown: UnknownPart[] = [
    ...inputs.unknown,
    ...hiddenWebsites(inputs.websites),
    ...[...projection.unavailable].sort().map((network) => ({
      part: `purchases on ${network}`,
      reason: `the reseller's plans of ${network} could not be read, so their prices and costs are unknown`,
    })),
  ];
  const toBuy = projection.totals.toBuy;
  const websites = inputs.websites ? websitePart(inputs) : null;
  const budget = inputs.config.budget;
  return {
    generatedAt: inputs.now,
    from: inputs.now,
    to: inputs.to,
    timezone: inputs.config.timezone,
    complete: unknown.length === 0,
    unknown,
    purchases: {
      jobs,
      runs: projection.runs,
      items: projection.items,
      itemsOmitted: projection.itemsOmitted,
      byNetwork: projection.byNetwork,
      byDay: projection.byDay,
      wallet: projection.wallet,
      budget: {
        dailyLimit: budget.daily_limit ?? null,
        perRunLimit: budget.per_run_limit ?? null,
        minWalletBalance: budget.min_wallet_balance,
      },
      prices: priceChanges(inputs.recordedPrices, catalogue, used),
      aboveMax: projection.aboveMax,
      unusablePlans: catalogue?.unusable ?? [],
      totals: projection.totals,
    },
    websites,
    pending: toBuy > 0 || (websites !== null && hasChanges(websites.plan)),
    approvals: approvalsView(inputs.config, projection.runs, inputs.openPlans ?? []),
  };
}

/** A job's plan resolved against the live catalogue, as a run would resolve it for every recipient. */
function jobLine(fires: JobFires, catalogue: Catalogue | null, globalTimeZone: string): JobLine {
  const job = fires.job;
  const request = planRequest(job);
  const line: JobLine = {
    job: job.name,
    enabled: job.enabled,
    schedule: job.schedule ?? null,
    at: job.at ?? null,
    timezone: job.timezone ?? globalTimeZone,
    requested: [job.plan.network, describePlan(request)].filter((part) => part !== "").join(" "),
    networkId: null,
    network: null,
    planId: null,
    planName: null,
    price: null,
    maxPrice: job.max_price ?? null,
    status: "catalogue_unavailable",
    fires: fires.dueNow ? [fires.dueNow, ...fires.fires] : fires.fires,
    nextFire: fires.nextFire,
    willNotFire: fires.willNotFire ?? null,
    state: fires.stopped?.state ?? "active",
    stateNote: fires.stopped?.note ?? null,
  };
  if (!catalogue) return { ...line, reason: "the reseller's networks could not be read" };
  const byRequest = requestedNetwork(catalogue, { network: job.plan.network, plan_id: request.plan_id });
  if (!byRequest.ok) {
    const status = byRequest.code === "catalogue_unavailable" ? byRequest.code : "unknown_network";
    return { ...line, status, reason: byRequest.reason };
  }
  const network = byRequest.network;
  const found = { ...line, networkId: network.id, network: network.name };
  const plans = catalogue.plans.get(network.id);
  if (!plans) return { ...found, reason: `the plans of ${network.name} could not be read` };
  const plan = findPlan(plans, request);
  if (!plan) {
    const reason = `no ${network.name} plan matches ${describePlan(request)}`;
    return { ...found, status: "plan_not_found", reason };
  }
  const resolved = { ...found, planId: plan.id, planName: plan.name, price: plan.price };
  if (job.max_price && plan.price.gt(job.max_price)) {
    return { ...resolved, status: "price_above_max", reason: "the live price is above max_price" };
  }
  return { ...resolved, status: "ok" };
}

function planRequest(job: PurchaseJob) {
  const plan = job.plan;
  return plan.kind === "id"
    ? { plan_id: plan.plan_id, plan_selector: null }
    : {
        plan_id: null,
        plan_selector: { size_mb: plan.size_mb, type: plan.type, name_contains: plan.name_contains },
      };
}

function websitePart(inputs: ForecastInputs): WebsitePart {
  const { config } = inputs;
  const plan = forecastWebsitePlan(config, inputs.websites!);
  const refusal = deleteRefusal(plan, { maxDeletes: config.websites.max_deletes, allowMassDelete: false });
  return refusal ? { plan, refusal } : { plan };
}

/**
 * The website plan as a pass would make it (src/websites/reconcile.ts): from the listing, then with what the
 * look-ups by id of the owned websites it did not show found (missing.ts), once they are made.
 */
export function forecastWebsitePlan(config: Config, websites: WebsiteInputs): Plan {
  return planWebsites(config.websites.items, websites.remote, websites.ownership, {
    prune: config.websites.prune,
    secretKey: deriveSecretKey(config.analytics.api_key),
    ...(websites.missing ? lookupOptions(websites.missing) : {}),
  });
}

/**
 * A listing that did not show an owned website the service still holds was not whole, so neither is the website
 * part: another website, one topsync cannot look up, may be missing from it too (a pass plans nothing from it).
 */
function hiddenWebsites(websites: WebsiteInputs | null): UnknownPart[] {
  const hidden = websites?.missing?.hidden ?? [];
  return hidden.length > 0 ? [{ part: "websites", reason: hiddenProblem(hidden) }] : [];
}
