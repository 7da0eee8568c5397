import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/websites/guards.js
function deleteRefusal(plan, limits) {
  const count = plan.summary.delete;
  if (count === 0)
    return void 0;
  const what = `refusing ${count === 1 ? "the delete" : `all ${count} deletes`}`;
  if (!plan.remote.complete) {
    return {
      code: "LISTING_INCOMPLETE",
      message: `${what}: the remote listing was incomplete, and a partial picture never causes a delete`
    };
  }
  if (plan.declared === 0) {
    return {
      code: "NOTHING_DECLARED",
      message: `${what}: websites.items is empty, which is far more often a mistake than a wish to delete every website`
    };
  }
  if (count > limits.maxDeletes && !limits.allowMassDelete) {
    return {
      code: "TOO_MANY_DELETES",
      message: `${what}: more than websites.max_deletes (${limits.maxDeletes}); run with --allow-mass-delete if they are meant`
    };
  }
  return void 0;
}

export {
  deleteRefusal
};
