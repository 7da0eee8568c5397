// The last word of a failed command: one clear paragraph on stderr and its exit code (the README's exit code table, under "Commands") — or, when
// stderr is not a terminal, one JSON line like every other log line. A stack trace only with --log-level
// debug; never a secret.
import { ConfigError } from "../config/index.js";
import { ExitCode, TopsyncError } from "../errors.js";
import { HttpError } from "../http/errors.js";
import { maskPhonesIn } from "../log/mask.js";
import { inertLines } from "../text/inert.js";

/** pino's number for the error level, so the last line reads like the log lines before it. */
const ERROR_LEVEL = 50;

/**
 * What stderr gets for a failure: the readable paragraph on a terminal (controls in it shown as escapes),
 * else one JSON log line with the level, the error's code, the exit code, the message and (at debug) the
 * stack.
 */
export function failureOutput(
  error: unknown,
  debug: boolean,
  terminal: boolean,
): { output: string; exitCode: number } {
  const failure = describeFailure(error, debug);
  if (terminal) return { output: `${inertLines(failure.text)}\n`, exitCode: failure.exitCode };
  const brief = describeFailure(error, false).text.replace(/^error: /, "");
  const message = brief.replace(/\n\(run with --log-level debug for details\)$/, "");
  const record: Record<string, unknown> = {
    level: ERROR_LEVEL,
    time: Date.now(),
    code: errorCode(error),
    exitCode: failure.exitCode,
    msg: message,
  };
  if (debug && error instanceof Error && error.stack) record.stack = maskPhonesIn(error.stack);
  return { output: `${JSON.stringify(record)}\n`, exitCode: failure.exitCode };
}

function errorCode(error: unknown): string {
  if (error instanceof ConfigError || error instanceof TopsyncError) return error.code;
  return "UNEXPECTED";
}

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
    case "HTTP_TLS_UNTRUSTED":
      return `\nNothing was sent. If a private authority (or a TLS-inspecting proxy) signed the ${error.service} service's certificate, set ${error.service}.ca_file to that authority's PEM file.`;
    case "HTTP_CA_FILE":
      return `\nNothing was sent. \`topsync config check\` checks ${error.service}.ca_file.`;
    case "HTTP_MALFORMED_RESPONSE":
      return `\nThe ${error.service} service answered something topsync cannot read; nothing was changed on this side.`;
    case "HTTP_TIMEOUT":
      return `\nThe ${error.service} service did not answer within ${error.service}.timeout.`;
    default:
      return "";
  }
}
