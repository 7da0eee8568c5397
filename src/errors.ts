// The one error hierarchy of topsync: every error carries a stable `code` to branch on and the exit code
// the CLI ends with (the README's exit code table, under "Commands"). HTTP errors add the `outcome` that money safety depends on (was the request sent, refused, or of unknown outcome).

export const ExitCode = {
  ok: 0,
  failure: 1,
  changes: 2,
  usage: 64,
  dataError: 65,
  config: 78,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class TopsyncError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCode = ExitCode.failure,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A command line that cannot be acted on: a missing argument, an unknown name, a row in the wrong state. */
export class UsageError extends TopsyncError {
  constructor(message: string, code = "USAGE") {
    super(code, message, ExitCode.usage);
  }
}

/** Input data that cannot be used: a CSV row, a phone number, a reference. */
export class DataError extends TopsyncError {
  constructor(message: string, code = "BAD_INPUT") {
    super(code, message, ExitCode.dataError);
  }
}
