// Every failure of a call to a remote service, as one typed error. `outcome` says what the caller may
// assume about the remote side: `not_sent` (certainly never reached it), `rejected` (it answered and did
// nothing), `unknown` (it may have acted). Nothing above this layer looks at socket errors.
import { TopsyncError } from "../errors.js";

export type Outcome = "not_sent" | "rejected" | "unknown";
export type ServiceName = "reseller" | "analytics";

export interface CallInfo {
  service: ServiceName;
  endpoint: string;
  method: string;
  path: string;
}

export class HttpError extends TopsyncError {
  readonly service: ServiceName;
  readonly endpoint: string;
  readonly method: string;
  readonly path: string;

  constructor(
    code: string,
    readonly outcome: Outcome,
    call: CallInfo,
    detail: string,
    readonly status?: number,
    readonly body?: unknown,
    options?: { cause?: unknown },
  ) {
    super(code, `${call.service} ${call.method} ${call.path}: ${detail}`, 1, options);
    this.service = call.service;
    this.endpoint = call.endpoint;
    this.method = call.method;
    this.path = call.path;
  }
}

/** The request never left this machine: refused connection, DNS failure, connect timeout. */
export class NotSentError extends HttpError {
  constructor(call: CallInfo, detail: string, code = "HTTP_NOT_SENT", cause?: unknown) {
    super(code, "not_sent", call, detail, undefined, undefined, { cause });
  }
}

/** 429: the service refused to process the request now. */
export class RateLimitedError extends HttpError {
  constructor(
    call: CallInfo,
    readonly retryAfterMs: number | undefined,
    body: unknown,
  ) {
    const wait = retryAfterMs === undefined ? "" : ` (retry after ${Math.ceil(retryAfterMs / 1000)}s)`;
    super("HTTP_RATE_LIMITED", "rejected", call, `rate limited by the service${wait}`, 429, body);
  }
}

/** 401/403: the API key is missing, wrong or not allowed. */
export class AuthError extends HttpError {
  constructor(call: CallInfo, status: number, body: unknown) {
    super(
      "HTTP_UNAUTHORIZED",
      "rejected",
      call,
      `the service refused the API key (HTTP ${status}); check ${call.service}.api_key`,
      status,
      body,
    );
  }
}

/** The code of a 4xx answer other than 401, 403 and 429. */
export function clientErrorCode(status: number): string {
  return status === 404 ? "HTTP_NOT_FOUND" : status === 422 ? "HTTP_VALIDATION" : "HTTP_CLIENT_ERROR";
}

/** Another 4xx: the service looked at the request and said no. `providerMessage` is its reason. */
export class ClientError extends HttpError {
  constructor(
    call: CallInfo,
    status: number,
    readonly providerMessage: string,
    body: unknown,
    code = clientErrorCode(status),
  ) {
    super(code, "rejected", call, `HTTP ${status}: ${providerMessage}`, status, body);
  }
}

/** 5xx: the service failed; it may or may not have acted. */
export class ServerError extends HttpError {
  constructor(call: CallInfo, status: number, detail: string, body: unknown) {
    super("HTTP_SERVER_ERROR", "unknown", call, `HTTP ${status}: ${detail}`, status, body);
  }
}

/** The request was written but no complete answer came: timeout or connection reset. */
export class NoAnswerError extends HttpError {
  constructor(
    call: CallInfo,
    detail: string,
    code: "HTTP_TIMEOUT" | "HTTP_CONNECTION_LOST" | "HTTP_ABORTED",
    cause?: unknown,
  ) {
    super(code, "unknown", call, detail, undefined, undefined, { cause });
  }
}

/** A 2xx whose body is not JSON or does not match the documented shape. */
export class MalformedResponseError extends HttpError {
  constructor(call: CallInfo, status: number, detail: string, body: unknown) {
    super("HTTP_MALFORMED_RESPONSE", "unknown", call, detail, status, body);
  }
}

/**
 * An answer larger than the service's `max_body`: reading stopped at the cap, so what it said is not known
 * (for a purchase, money may have moved). `body` holds the first bytes, for the event log.
 */
export class BodyTooLargeError extends HttpError {
  constructor(call: CallInfo, status: number, maxBytes: number, head: string) {
    super(
      "HTTP_BODY_TOO_LARGE",
      "unknown",
      call,
      `the answer (HTTP ${status}) is larger than max_body (${maxBytes} bytes); reading stopped there`,
      status,
      { truncated: true, max_body: maxBytes, first_bytes: head },
    );
  }
}

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
