import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  deriveSecretKey,
  loadOwnership,
  planWebsites
} from "./chunk-LO6SG345.js";
import {
  atWillNotFire,
  describePlan,
  dueFire,
  findPlan,
  firesBetween,
  loadCatalogue,
  priceChanges,
  priceKey,
  projectSources,
  readFirstSeen,
  readPlanPrices,
  requestedNetwork
} from "./chunk-IVUYQY7E.js";
import "./chunk-VGVPC3PQ.js";
import "./chunk-GJL2AOOX.js";
import {
  cronNextFire
} from "./chunk-76UW4DC7.js";
import "./chunk-Y6YROLBT.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-5653Z76Z.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-EBZNZK5S.js";
import "./chunk-BH4POYA2.js";
import "./chunk-TEJ6QTWI.js";
import "./chunk-4DGXMM26.js";
import "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-FBKOPLBK.js";
import {
  deleteRefusal
} from "./chunk-SZJK6VY7.js";
import {
  hasChanges
} from "./chunk-R5RR2GLU.js";
import "./chunk-V4RWK56N.js";

// dist/report/forecast-build.js
function buildForecast(inputs) {
  const projection = inputs.purchases;
  const catalogue = inputs.catalogue;
  const jobs = inputs.jobs.map((fires) => jobLine(fires, catalogue, inputs.config.timezone));
  const used = new Set(projection.usedPlans);
  for (const job of jobs)
    if (job.networkId && job.planId)
      used.add(priceKey(job.networkId, job.planId));
  const unknown = [
    ...inputs.unknown,
    ...[...projection.unavailable].sort().map((network) => ({
      part: `purchases on ${network}`,
      reason: `the reseller's plans of ${network} could not be read, so their prices and costs are unknown`
    }))
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
        minWalletBalance: budget.min_wallet_balance
      },
      prices: priceChanges(inputs.recordedPrices, catalogue, used),
      aboveMax: projection.aboveMax,
      unusablePlans: catalogue?.unusable ?? [],
      totals: projection.totals
    },
    websites,
    pending: toBuy > 0 || websites !== null && hasChanges(websites.plan)
  };
}
function jobLine(fires, catalogue, globalTimeZone) {
  const job = fires.job;
  const request = planRequest(job);
  const line = {
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
    willNotFire: fires.willNotFire ?? null
  };
  if (!catalogue)
    return { ...line, reason: "the reseller's networks could not be read" };
  const byRequest = requestedNetwork(catalogue, { network: job.plan.network, plan_id: request.plan_id });
  if (!byRequest.ok) {
    const status = byRequest.code === "catalogue_unavailable" ? byRequest.code : "unknown_network";
    return { ...line, status, reason: byRequest.reason };
  }
  const network = byRequest.network;
  const found = { ...line, networkId: network.id, network: network.name };
  const plans = catalogue.plans.get(network.id);
  if (!plans)
    return { ...found, reason: `the plans of ${network.name} could not be read` };
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
function planRequest(job) {
  const plan = job.plan;
  return plan.kind === "id" ? { plan_id: plan.plan_id, plan_selector: null } : {
    plan_id: null,
    plan_selector: { size_mb: plan.size_mb, type: plan.type, name_contains: plan.name_contains }
  };
}
function websitePart(inputs) {
  const { config } = inputs;
  const plan = planWebsites(config.websites.items, inputs.websites.remote, inputs.websites.ownership, {
    prune: config.websites.prune,
    secretKey: deriveSecretKey(config.analytics.api_key)
  });
  const refusal = deleteRefusal(plan, { maxDeletes: config.websites.max_deletes, allowMassDelete: false });
  return refusal ? { plan, refusal } : { plan };
}

// dist/report/forecast-fires.js
var MAX_FIRES_PER_JOB = 500;
function jobFires(config, now, to, firstSeen) {
  const unknown = [];
  const jobs = config.purchases.map((job) => {
    if (!job.enabled)
      return { job, dueNow: null, fires: [], nextFire: null };
    const timeZone = job.timezone ?? config.timezone;
    const dueNow = dueFire(job, config.timezone, now, firstSeen.get(job.name) ?? now) ?? null;
    const fires = scheduledFires(job, timeZone, now, to);
    if (fires.length > MAX_FIRES_PER_JOB) {
      const last = fires[MAX_FIRES_PER_JOB - 1];
      unknown.push({
        part: `job ${job.name} after ${last.toISOString()}`,
        reason: `it fires more than ${MAX_FIRES_PER_JOB} times in the window; plan a shorter --window`
      });
      return { job, dueNow, fires: fires.slice(0, MAX_FIRES_PER_JOB), nextFire: null };
    }
    const willNotFire = atWillNotFire(job, now, firstSeen.get(job.name));
    return {
      job,
      dueNow,
      fires,
      nextFire: nextFire(job, timeZone, to),
      ...willNotFire ? { willNotFire } : {}
    };
  });
  return { jobs, unknown };
}
function scheduledFires(job, timeZone, now, to) {
  if (job.schedule)
    return firesBetween(job.schedule, timeZone, now, to, MAX_FIRES_PER_JOB + 1);
  if (job.at && job.at.getTime() > now.getTime() && job.at.getTime() <= to.getTime())
    return [job.at];
  return [];
}
function nextFire(job, timeZone, to) {
  if (job.at)
    return job.at.getTime() > to.getTime() ? job.at : null;
  if (!job.schedule)
    return null;
  return cronNextFire(job.schedule, timeZone, to) ?? null;
}

// dist/report/forecast-gather.js
async function readForecastInputs(sources, window) {
  const { db, config } = sources;
  const { now, to } = window;
  const [catalogue, listing] = await Promise.all([readCatalogue(sources), readWebsites(sources)]);
  const fires = jobFires(config, now, to, await readFirstSeen(db));
  const purchases = await projectSources(db, config, catalogue.value, { now, to, fires: fires.jobs.flatMap(projectedFires(now)), queued: true, intake: true }, window.keepItems);
  return {
    now,
    to,
    config,
    jobs: fires.jobs,
    purchases,
    catalogue: catalogue.value,
    recordedPrices: await readPlanPrices(db),
    websites: listing.value ? { remote: listing.value.websites, ownership: await loadOwnership(db) } : null,
    unknown: [catalogue.unknown, listing.unknown, ...fires.unknown].filter((u) => u !== void 0)
  };
}
function projectedFires(now) {
  return ({ job, dueNow, fires }) => [
    ...dueNow ? [{ job, fireTime: dueNow, time: now }] : [],
    ...fires.map((fireTime) => ({ job, fireTime, time: fireTime }))
  ];
}
async function readCatalogue(sources) {
  try {
    return { value: await loadCatalogue(sources.reseller, sources.logger) };
  } catch (error) {
    const reason = `the reseller's networks could not be read: ${message(error)}`;
    return { value: null, unknown: { part: "purchases", reason } };
  }
}
async function readWebsites(sources) {
  try {
    return { value: await sources.analytics.listWebsites() };
  } catch (error) {
    const reason = `the analytics service's websites could not be listed: ${message(error)}`;
    return { value: null, unknown: { part: "websites", reason } };
  }
}
function message(error) {
  return error instanceof Error ? error.message : String(error);
}

// dist/report/forecast.js
async function makeForecast(sources, window) {
  const to = new Date(window.now.getTime() + window.windowMs);
  return buildForecast(await readForecastInputs(sources, { now: window.now, to, keepItems: window.keepItems }));
}
export {
  makeForecast
};
