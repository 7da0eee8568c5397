import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/websites/model.js
var SENSITIVE = "(sensitive)";
function hasChanges(plan) {
  const { create, update, delete: deletes } = plan.summary;
  return create + update + deletes > 0;
}

export {
  SENSITIVE,
  hasChanges
};
