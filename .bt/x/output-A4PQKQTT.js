import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-V4RWK56N.js";
export {
  renderJson,
  renderTable,
  write
};
