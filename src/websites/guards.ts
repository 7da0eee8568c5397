// The delete guards: a partial picture of the remote side, an empty declared list or more
// deletes than `websites.max_deletes` never delete anything. Pure: apply enforces it, the plan warns with it.
import type { Plan } from "./model.js";

export interface DeleteLimits {
  maxDeletes: number;
  allowMassDelete: boolean;
}

export interface DeleteRefusal {
  code: "LISTING_INCOMPLETE" | "NOTHING_DECLARED" | "TOO_MANY_DELETES";
  message: string;
}

/** Why this plan's deletes must not run, or undefined when they may (or when there are none). */
export function deleteRefusal(plan: Plan, limits: DeleteLimits): DeleteRefusal | undefined {
  const count = plan.summary.delete;
  if (count === 0) return undefined;
  const what = `refusing ${count === 1 ? "the delete" : `all ${count} deletes`}`;
  if (!plan.remote.complete) {
    return {
      code: "LISTING_INCOMPLETE",
      message: `${what}: the remote listing was incomplete, and a partial picture never causes a delete`,
    };
  }
  if (plan.declared === 0) {
    return {
      code: "NOTHING_DECLARED",
      message: `${what}: websites.items is empty, which is far more often a mistake than a wish to delete every website`,
    };
  }
  if (count > limits.maxDeletes && !limits.allowMassDelete) {
    return {
      code: "TOO_MANY_DELETES",
      message: `${what}: more than websites.max_deletes (${limits.maxDeletes}); run with --allow-mass-delete if they are meant`,
    };
  }
  return undefined;
}
