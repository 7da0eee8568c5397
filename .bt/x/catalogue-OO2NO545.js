import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  networksCommand,
  plansCommand
} from "./chunk-S5WE36L7.js";
import "./chunk-NOWJV5E2.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-Y6YROLBT.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";
export {
  networksCommand,
  plansCommand
};
