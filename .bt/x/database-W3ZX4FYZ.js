import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  openLedger
} from "./chunk-JK5CIMQN.js";
import "./chunk-LFLOYXGR.js";
import "./chunk-BH4POYA2.js";
import "./chunk-3SYTADOT.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";
export {
  openLedger
};
