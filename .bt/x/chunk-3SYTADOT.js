import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/errors.js
var ExitCode = {
  ok: 0,
  failure: 1,
  changes: 2,
  usage: 64,
  dataError: 65,
  config: 78
};
var TopsyncError = class extends Error {
  code;
  exitCode;
  constructor(code, message, exitCode = ExitCode.failure, options) {
    super(message, options);
    this.code = code;
    this.exitCode = exitCode;
    this.name = new.target.name;
  }
};
var UsageError = class extends TopsyncError {
  constructor(message, code = "USAGE") {
    super(code, message, ExitCode.usage);
  }
};
var DataError = class extends TopsyncError {
  constructor(message, code = "BAD_INPUT") {
    super(code, message, ExitCode.dataError);
  }
};

export {
  ExitCode,
  TopsyncError,
  UsageError,
  DataError
};
