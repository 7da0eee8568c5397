import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  REPORT_FORMATS,
  REPORT_FORMAT_VERSION,
  isReportFormat,
  renderReport
} from "./chunk-BZFDKSYR.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-R6NDLW6F.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";
export {
  REPORT_FORMATS,
  REPORT_FORMAT_VERSION,
  isReportFormat,
  renderReport
};
