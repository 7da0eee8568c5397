// `topsync plan` as one call: read what the plan needs (SELECTs and GETs only), then decide it (pure).
import { buildPlan } from "./plan-build.js";
import { gatherPlanInputs, type PlanSources } from "./plan-gather.js";
import type { PlanReport } from "./plan-model.js";

export type { PlanSources } from "./plan-gather.js";

export async function makePlan(
  sources: PlanSources,
  window: { now: Date; windowMs: number },
): Promise<PlanReport> {
  const to = new Date(window.now.getTime() + window.windowMs);
  return buildPlan(await gatherPlanInputs(sources, { now: window.now, to }));
}
