import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  deleteRefusal
} from "./chunk-SZJK6VY7.js";
import "./chunk-V4RWK56N.js";
export {
  deleteRefusal
};
