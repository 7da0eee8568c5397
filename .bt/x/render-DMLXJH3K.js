import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  PLAN_FORMAT_VERSION,
  planJson,
  renderApplyText,
  renderPlanText,
  summaryLine
} from "./chunk-AGXQD3VJ.js";
import "./chunk-V4RWK56N.js";
export {
  PLAN_FORMAT_VERSION,
  planJson,
  renderApplyText,
  renderPlanText,
  summaryLine
};
