import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  DataError,
  ExitCode,
  TopsyncError,
  UsageError
} from "./chunk-3SYTADOT.js";
import "./chunk-V4RWK56N.js";
export {
  DataError,
  ExitCode,
  TopsyncError,
  UsageError
};
