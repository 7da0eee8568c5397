// The simulated data reseller (networks, plans, POST /public/api/data, GET /public/api/transaction/{reference}): its routes, bearer check and error bodies.
import { findNetwork, plansOfNetwork, pricedPlan, SANDBOX_NETWORKS } from "./catalogue.js";
import { buyData } from "./purchase.js";
import type { Call, Reply, Route } from "./route.js";
import type { ServiceDefinition } from "./server.js";
import { verifyTransaction } from "./verify.js";

function listNetworks(): Reply {
  return { status: 200, body: { status: true, data: { networks: SANDBOX_NETWORKS } } };
}

function listPlans({ params, state }: Call): Reply {
  const code = decodeURIComponent(params[0] ?? "");
  if (!findNetwork(code)) return { status: 404, body: { status: false, message: "Network not found." } };
  const prices = state.options.lies.prices ?? {};
  const plans = plansOfNetwork(code)
    .map((plan) => pricedPlan(plan, state.options.planPrices))
    .map((plan) => (prices[plan.id] === undefined ? plan : { ...plan, price: prices[plan.id] }));
  return { status: 200, body: { status: true, data: { plans } } };
}

const ROUTES: readonly Route[] = [
  { method: "GET", pattern: /^\/public\/api\/networks\/?$/, endpoint: "networks", handle: listNetworks },
  { method: "GET", pattern: /^\/public\/api\/plans\/([^/]+)\/?$/, endpoint: "plans", handle: listPlans },
  { method: "POST", pattern: /^\/public\/api\/data\/?$/, endpoint: "data", handle: buyData },
  {
    method: "GET",
    pattern: /^\/public\/api\/transaction\/([^/]+)\/?$/,
    endpoint: "transaction",
    handle: verifyTransaction,
  },
];

export const RESELLER_SERVICE: ServiceDefinition = {
  service: "reseller",
  routes: ROUTES,
  apiKey: (options) => options.apiKey,
  unauthenticated: { status: 401, body: { status: false, message: "Unauthenticated." } },
  notFound: { status: 404, body: { status: false, message: "Not found." } },
};
