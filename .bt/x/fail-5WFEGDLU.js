import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  HttpError
} from "./chunk-JUEWK5GU.js";
import {
  maskPhonesIn
} from "./chunk-CTB3ORUE.js";
import {
  inertLines
} from "./chunk-IIT3DDOC.js";
import {
  ConfigError
} from "./chunk-GJL2AOOX.js";
import "./chunk-76UW4DC7.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-4DGXMM26.js";
import {
  ExitCode,
  TopsyncError
} from "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";

// dist/cli/fail.js
var ERROR_LEVEL = 50;
function failureOutput(error, debug, terminal) {
  const failure = describeFailure(error, debug);
  if (terminal)
    return { output: `${inertLines(failure.text)}
`, exitCode: failure.exitCode };
  const brief = describeFailure(error, false).text.replace(/^error: /, "");
  const message = brief.replace(/\n\(run with --log-level debug for details\)$/, "");
  const record = {
    level: ERROR_LEVEL,
    time: Date.now(),
    code: errorCode(error),
    exitCode: failure.exitCode,
    msg: message
  };
  if (debug && error instanceof Error && error.stack)
    record.stack = maskPhonesIn(error.stack);
  return { output: `${JSON.stringify(record)}
`, exitCode: failure.exitCode };
}
function errorCode(error) {
  if (error instanceof ConfigError || error instanceof TopsyncError)
    return error.code;
  return "UNEXPECTED";
}
function describeFailure(error, debug) {
  if (error instanceof ConfigError) {
    const stack2 = debug && error.stack ? `
${error.stack}` : "";
    return { text: `error: the config is not valid:
${error.message}${stack2}`, exitCode: error.exitCode };
  }
  if (error instanceof TopsyncError) {
    const hint = error instanceof HttpError ? httpHint(error) : "";
    const stack2 = debug && error.stack ? `
${error.stack}` : "";
    return { text: maskPhonesIn(`error: ${error.message}${hint}${stack2}`), exitCode: error.exitCode };
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = debug && error instanceof Error && error.stack ? `
${error.stack}` : "\n(run with --log-level debug for details)";
  return { text: maskPhonesIn(`error: unexpected failure: ${message}${stack}`), exitCode: ExitCode.failure };
}
function httpHint(error) {
  switch (error.code) {
    case "HTTP_NOT_SENT":
      return `
The ${error.service} service could not be reached; check ${error.service}.base_url and that it is up.`;
    case "HTTP_MALFORMED_RESPONSE":
      return `
The ${error.service} service answered something topsync cannot read; nothing was changed on this side.`;
    case "HTTP_TIMEOUT":
      return `
The ${error.service} service did not answer within ${error.service}.timeout.`;
    default:
      return "";
  }
}
export {
  describeFailure,
  failureOutput
};
