import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  contextFrom,
  createLoggerFor,
  openContext
} from "./chunk-LBSPC3V7.js";
import "./chunk-67GFVRO3.js";
import "./chunk-NFUL76TY.js";
import "./chunk-Q5CGDVWJ.js";
import "./chunk-JUEWK5GU.js";
import "./chunk-CTB3ORUE.js";
import "./chunk-GJL2AOOX.js";
import "./chunk-76UW4DC7.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-4DGXMM26.js";
import "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";
export {
  contextFrom,
  createLoggerFor,
  openContext
};
