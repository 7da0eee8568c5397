import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  reconcile,
  reconcileDeps
} from "./chunk-VSAQ7CMK.js";
import "./chunk-INE77FG5.js";
import "./chunk-Q5CGDVWJ.js";
import "./chunk-JUEWK5GU.js";
import "./chunk-LO6SG345.js";
import "./chunk-GJL2AOOX.js";
import "./chunk-76UW4DC7.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-BH4POYA2.js";
import "./chunk-4DGXMM26.js";
import "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-SZJK6VY7.js";
import "./chunk-R5RR2GLU.js";
import "./chunk-V4RWK56N.js";
export {
  reconcile,
  reconcileDeps
};
