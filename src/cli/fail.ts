// The last word of a failed command: one clear paragraph on stderr and the exit code of DESIGN §7.
// A stack trace only with --log-level debug; never a secret.
import { ConfigError } from "../config/index.js";
import { ExitCode, TopsyncError } from "../errors.js";
import { HttpError } from "../http/errors.js";
import { maskPhonesIn } from "../log/mask.js";

export function describeFailure(error: unknown, debug: boolean): { text: string; exitCode: number } {
  if (error instanceof ConfigError) {
    const stack = debug && error.stack ? `\n${error.stack}` : "";
    return { text: `error: the config is not valid:\n${error.message}${stack}`, exitCode: error.exitCode };
  }
  if (error instanceof TopsyncError) {
    const hint = error instanceof HttpError ? httpHint(error) : "";
    const stack = debug && error.stack ? `\n${error.stack}` : "";
    return { text: maskPhonesIn(`error: ${error.message}${hint}${stack}`), exitCode: error.exitCode };
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack =
    debug && error instanceof Error && error.stack
      ? `\n${error.stack}`
      : "\n(run with --log-level debug for details)";
  return { text: maskPhonesIn(`error: unexpected failure: ${message}${stack}`), exitCode: ExitCode.failure };
}

function httpHint(error: HttpError): string {
  switch (error.code) {
    case "HTTP_NOT_SENT":
      return `\nThe ${error.service} service could not be reached; check ${error.service}.base_url and that it is up.`;
    case "HTTP_MALFORMED_RESPONSE":
      return `\nThe ${error.service} service answered something topsync cannot read; nothing was changed on this side.`;
    case "HTTP_TIMEOUT":
      return `\nThe ${error.service} service did not answer within ${error.service}.timeout.`;
    default:
      return "";
  }
}
