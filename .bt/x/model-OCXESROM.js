import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  SENSITIVE,
  hasChanges
} from "./chunk-R5RR2GLU.js";
import "./chunk-V4RWK56N.js";
export {
  SENSITIVE,
  hasChanges
};
