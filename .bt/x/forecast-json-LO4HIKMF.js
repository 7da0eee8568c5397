import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  forecastJson,
  itemJson,
  projectionJson
} from "./chunk-A6M26WNP.js";
import "./chunk-AGXQD3VJ.js";
import "./chunk-JZURMT7Q.js";
import "./chunk-CTB3ORUE.js";
import "./chunk-BZFDKSYR.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-R6NDLW6F.js";
import "./chunk-4DGXMM26.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";
export {
  forecastJson,
  itemJson,
  projectionJson
};
