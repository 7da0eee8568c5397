import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  TopsyncError
} from "./chunk-3SYTADOT.js";

// dist/http/errors.js
var HttpError = class extends TopsyncError {
  outcome;
  status;
  body;
  service;
  endpoint;
  method;
  path;
  constructor(code, outcome, call, detail, status, body, options) {
    super(code, `${call.service} ${call.method} ${call.path}: ${detail}`, 1, options);
    this.outcome = outcome;
    this.status = status;
    this.body = body;
    this.service = call.service;
    this.endpoint = call.endpoint;
    this.method = call.method;
    this.path = call.path;
  }
};
var NotSentError = class extends HttpError {
  constructor(call, detail, code = "HTTP_NOT_SENT", cause) {
    super(code, "not_sent", call, detail, void 0, void 0, { cause });
  }
};
var RateLimitedError = class extends HttpError {
  retryAfterMs;
  constructor(call, retryAfterMs, body) {
    const wait = retryAfterMs === void 0 ? "" : ` (retry after ${Math.ceil(retryAfterMs / 1e3)}s)`;
    super("HTTP_RATE_LIMITED", "rejected", call, `rate limited by the service${wait}`, 429, body);
    this.retryAfterMs = retryAfterMs;
  }
};
var AuthError = class extends HttpError {
  constructor(call, status, body) {
    super("HTTP_UNAUTHORIZED", "rejected", call, `the service refused the API key (HTTP ${status}); check ${call.service}.api_key`, status, body);
  }
};
var ClientError = class extends HttpError {
  providerMessage;
  constructor(call, status, providerMessage, body, code = status === 404 ? "HTTP_NOT_FOUND" : status === 422 ? "HTTP_VALIDATION" : "HTTP_CLIENT_ERROR") {
    super(code, "rejected", call, `HTTP ${status}: ${providerMessage}`, status, body);
    this.providerMessage = providerMessage;
  }
};
var ServerError = class extends HttpError {
  constructor(call, status, detail, body) {
    super("HTTP_SERVER_ERROR", "unknown", call, `HTTP ${status}: ${detail}`, status, body);
  }
};
var NoAnswerError = class extends HttpError {
  constructor(call, detail, code, cause) {
    super(code, "unknown", call, detail, void 0, void 0, { cause });
  }
};
var MalformedResponseError = class extends HttpError {
  constructor(call, status, detail, body) {
    super("HTTP_MALFORMED_RESPONSE", "unknown", call, detail, status, body);
  }
};
var BodyTooLargeError = class extends HttpError {
  constructor(call, status, maxBytes, head) {
    super("HTTP_BODY_TOO_LARGE", "unknown", call, `the answer (HTTP ${status}) is larger than max_body (${maxBytes} bytes); reading stopped there`, status, { truncated: true, max_body: maxBytes, first_bytes: head });
  }
};
function isHttpError(error) {
  return error instanceof HttpError;
}

export {
  HttpError,
  NotSentError,
  RateLimitedError,
  AuthError,
  ClientError,
  ServerError,
  NoAnswerError,
  MalformedResponseError,
  BodyTooLargeError,
  isHttpError
};
