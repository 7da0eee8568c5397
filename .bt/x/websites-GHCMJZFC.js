import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  websitesListCommand
} from "./chunk-AL3WAVUU.js";
import "./chunk-NOWJV5E2.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-V4RWK56N.js";
export {
  websitesListCommand
};
