import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  parseSince,
  purchasesCancelCommand,
  purchasesListCommand,
  purchasesRequeueCommand,
  purchasesResolveCommand,
  purchasesShowCommand
} from "./chunk-H4XKTI73.js";
import "./chunk-R4UDDDHW.js";
import "./chunk-JK5CIMQN.js";
import "./chunk-LFLOYXGR.js";
import "./chunk-NOWJV5E2.js";
import "./chunk-CTB3ORUE.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-EBZNZK5S.js";
import "./chunk-BH4POYA2.js";
import "./chunk-4DGXMM26.js";
import "./chunk-3SYTADOT.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";
export {
  parseSince,
  purchasesCancelCommand,
  purchasesListCommand,
  purchasesRequeueCommand,
  purchasesResolveCommand,
  purchasesShowCommand
};
