// One keep-alive undici pool per remote service: bearer auth, timeouts, the configured rate limit and the
// limits the service announces on its answers (server-limits.ts), retries with backoff for reads, and every
// failure turned into one typed HttpError. The API key lives here only.
import { EventEmitter } from "node:events";
import type { SecureContext } from "node:tls";
import type { Clock } from "../clock.js";
import { systemClock } from "../clock.js";
import { storableText } from "../text/storable.js";
import { backoffDelay, parseRetryAfter, waitsTooLong } from "./backoff.js";
import { readCapped } from "./body.js";
import { readCaFile, trustedContext } from "./ca-file.js";
import {
  AuthError,
  BodyTooLargeError,
  type CallInfo,
  ClientError,
  clientErrorCode,
  type HttpError,
  MalformedResponseError,
  NoAnswerError,
  NotSentError,
  RateLimitedError,
  ServerError,
  type ServiceName,
} from "./errors.js";
import { parseJsonExact } from "./json-text.js";
import { providerMessage, redactSecret } from "./message.js";
import { type Lane, RateLimiter } from "./rate-limit.js";
import { readLimitHeaders, ServerLimits, type Ticket } from "./server-limits.js";
import { type HttpPool, openHttpPool } from "./undici-pool.js";

export interface ServiceClientOptions {
  service: ServiceName;
  baseUrl: string;
  apiKey: string;
  /** Per phase, and `total` for a whole call (headers and body); all in milliseconds. */
  timeout: { connect: number; headers: number; body: number; total?: number };
  /** The most bytes of one answer body that are read (default 1 MiB); past it the answer is unreadable. */
  maxBody?: number;
  concurrency: number;
  rateLimit: number;
  /** Requests that may go at once after a quiet spell; a tenth of `rateLimit` (at least 1) when absent. */
  burst?: number;
  retry: { max_attempts: number; base_delay: number; max_delay: number };
  clock?: Clock;
  random?: () => number;
  observer?: CallObserver;
  onRetry?: (info: CallInfo, error: HttpError, attempt: number, delayMs: number) => void;
  /** Told the `Date` header of every answer and this clock's time when its headers came (`topsync doctor`'s skew). */
  onServerDate?: (date: string, receivedAt: number) => void;
  /** A PEM file of roots the service's HTTPS is checked against besides Node.js's own (`ca_file`; ca-file.ts). */
  caFile?: string;
}

/** The most requests a minute a client sends, and what holds it there: its configured rate_limit or the service. */
export interface Pace {
  perMinute: number;
  by: "rate_limit" | "service";
}

/** Told about every finished call (for metrics): its endpoint, what happened, how long it took. */
export type CallObserver = (call: CallInfo, result: "ok" | HttpError["code"], durationMs: number) => void;

export interface RequestSpec {
  endpoint: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  form?: Record<string, string>;
  json?: unknown;
  signal?: AbortSignal;
  /**
   * Answers in the 4xx range the caller expects and reads as an answer (a verify read's 404, "not known yet"):
   * returned rather than thrown, which costs an error and its stack trace on every such read.
   */
  expect?: readonly number[];
  /** Its lane at the rate limit: `start` (the default) for new work, `follow` for following up work started. */
  lane?: Lane;
  /** Goes before every request that is not urgent at the rate limit (a follow-up whose deadline is near). */
  urgent?: boolean;
}

export interface ServiceResponse {
  status: number;
  body: unknown;
}

const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "EHOSTUNREACH",
]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
/**
 * The TLS handshake refused the service's certificate. Node.js checks a server's certificate once per connection,
 * in the handshake, and undici writes a request only on a connection whose handshake is done: the request was
 * certainly not sent (a purchase is not in doubt for it), and trying again changes nothing until the certificate
 * or `ca_file` does.
 */
const UNTRUSTED_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_REVOKED",
  "INVALID_CA",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);
export const DEFAULT_TOTAL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_BODY = 1024 * 1024;

/** The service's `ca_file` could not be used: every call fails with it, unsent. */
class CaFileError extends Error {}

/** Raised inside a call when its `timeout.total` ran out, so `classify` can tell it from a caller's cancel. */
class TotalTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no complete answer within timeout.total (${ms} ms)`);
    this.name = "TotalTimeout";
  }
}

/**
 * A call's cancel signal in the form undici's request() also takes (an EventEmitter with `aborted` and `reason`,
 * told "abort" once). An AbortController costs about 8 µs to make on Node 20 and its listener as much again,
 * which on every call of a run of purchases (a buy and its verify reads) was a few per cent of the run's CPU.
 */
class CallSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    // As AbortController.abort() does when it is given no reason.
    this.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    this.emit("abort");
  }
}

export class ServiceClient {
  /** Opened with the first request: undici is loaded then, so a command that calls no service never pays for it. */
  private pool: HttpPool | undefined;
  private opening: Promise<HttpPool> | undefined;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly limiter: RateLimiter;
  private readonly limits: ServerLimits;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(private readonly options: ServiceClientOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.limiter = new RateLimiter(
      options.rateLimit,
      this.clock,
      options.burst ?? Math.max(1, Math.ceil(options.rateLimit / 10)),
    );
    this.limits = new ServerLimits(this.clock);
    this.origin = url.origin;
  }

  private openPool(): Promise<HttpPool> {
    this.opening ??= this.connectOptions()
      .then((connect) =>
        openHttpPool(this.origin, {
          connections: this.options.concurrency,
          pipelining: 1,
          connect,
          headersTimeout: this.options.timeout.headers,
          bodyTimeout: this.options.timeout.body,
        }),
      )
      .then((pool) => {
        this.pool = pool;
        return pool;
      });
    // A command that opens the pool ahead (`open`) and then calls nothing does not leave the rejection unobserved.
    this.opening.catch(() => undefined);
    return this.opening;
  }

  /** How connections are made: the connect timeout, and with a `ca_file` the roots its HTTPS is checked against. */
  private async connectOptions(): Promise<{ timeout: number; secureContext?: SecureContext }> {
    const { caFile, service } = this.options;
    const timeout = this.options.timeout.connect;
    if (caFile === undefined) return { timeout };
    const read = await readCaFile(caFile);
    if (!read.ok) throw new CaFileError(`${service}.ca_file ${caFile} ${read.problem}`);
    return { timeout, secureContext: await trustedContext(read.certificates) };
  }

  /**
   * Loads the HTTP client and makes the pool now instead of with the first request (it connects only then): a
   * command that is about to call the service does this while it waits for other things.
   */
  open(): void {
    void this.openPool();
  }

  get service(): ServiceName {
    return this.options.service;
  }

  /** Requests the pool sends at once. */
  get concurrency(): number {
    return this.options.concurrency;
  }

  /** The pace requests are held to: `rate_limit`, or the limit the service announced when lower and its window known. */
  pace(): Pace {
    const configured = this.options.rateLimit * 60;
    const announced = this.limits.perMinute();
    return announced !== undefined && announced < configured
      ? { perMinute: announced, by: "service" }
      : { perMinute: configured, by: "rate_limit" };
  }

  /** Sends a request; GETs are retried on transient failures, other methods are sent exactly once. */
  async request(spec: RequestSpec): Promise<ServiceResponse> {
    const retries = spec.method === "GET" ? this.options.retry.max_attempts - 1 : 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send(spec);
      } catch (error) {
        const httpError = error as HttpError;
        if (attempt >= retries || !isTransient(httpError) || waitsTooLong(httpError)) throw error;
        const delayMs = this.retryDelay(httpError, attempt);
        this.options.onRetry?.(this.callInfo(spec), httpError, attempt + 1, delayMs);
        await this.clock.sleep(delayMs, spec.signal);
      }
    }
  }

  async close(): Promise<void> {
    // A pool that never opened (its `ca_file` unusable) has nothing to close.
    await (await this.opening?.catch(() => undefined))?.close();
  }

  async destroy(): Promise<void> {
    await (await this.opening?.catch(() => undefined))?.destroy();
  }

  private retryDelay(error: HttpError, attempt: number): number {
    const policy = { baseDelayMs: this.options.retry.base_delay, maxDelayMs: this.options.retry.max_delay };
    if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) return error.retryAfterMs;
    return backoffDelay(attempt, policy, this.random);
  }

  private callInfo(spec: RequestSpec): CallInfo {
    return { service: this.options.service, endpoint: spec.endpoint, method: spec.method, path: spec.path };
  }

  private async send(spec: RequestSpec): Promise<ServiceResponse> {
    const call = this.callInfo(spec);
    const started = this.clock.now();
    try {
      const response = await this.exchange(spec, call);
      // An expected 4xx (RequestSpec.expect) is still counted as what it is.
      const result = response.status < 400 ? "ok" : clientErrorCode(response.status);
      this.options.observer?.(call, result, this.clock.now() - started);
      return response;
    } catch (error) {
      const httpError = this.classify(error, call);
      this.options.observer?.(call, httpError.code, this.clock.now() - started);
      throw httpError;
    }
  }

  /** One exchange under the call's total deadline: headers and body must both arrive before it. */
  private async exchange(spec: RequestSpec, call: CallInfo): Promise<ServiceResponse> {
    const ticket = await this.limits.acquire(spec.signal);
    const held = { released: false };
    try {
      await this.limiter.acquire({ signal: spec.signal, lane: spec.lane, urgent: spec.urgent });
      const totalMs = this.options.timeout.total ?? DEFAULT_TOTAL_TIMEOUT_MS;
      // One signal for the call: the deadline or the caller's signal aborts it. (A listener removed
      // afterwards rather than AbortSignal.any, so a long-lived caller signal does not collect a follower per call.)
      const controller = new CallSignal();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new TotalTimeout(totalMs));
      }, totalMs);
      const forward = () => controller.abort(spec.signal?.reason);
      if (spec.signal?.aborted) forward();
      else spec.signal?.addEventListener("abort", forward, { once: true });
      try {
        const { status, headers, text } = await this.transmit(spec, call, ticket, held, controller);
        const retryAfter = headers["retry-after"];
        const resetAt = readLimitHeaders(headers, this.clock.now()).resetAt;
        return this.interpret(call, status, retryAfter, text, resetAt, spec.expect);
      } catch (error) {
        if (timedOut && !spec.signal?.aborted) throw new TotalTimeout(totalMs);
        throw error;
      } finally {
        clearTimeout(timer);
        spec.signal?.removeEventListener("abort", forward);
      }
    } finally {
      if (!held.released) this.limits.release(ticket);
    }
  }

  /**
   * One HTTP exchange under the call's deadline (`signal`): the service's announced limits are taken from its
   * answer's headers before anything else, and the body is read up to `max_body`.
   */
  private async transmit(
    spec: RequestSpec,
    call: CallInfo,
    ticket: Ticket,
    held: { released: boolean },
    signal: CallSignal,
  ) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: "application/json",
    };
    let body: string | undefined;
    if (spec.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(spec.form).toString();
    } else if (spec.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(spec.json);
    }
    const pool = this.pool ?? (await this.openPool());
    const response = await pool.request({
      method: spec.method,
      path: this.basePath + spec.path + queryString(spec.query),
      headers,
      body,
      signal,
    });
    this.limits.release(ticket, { status: response.statusCode, headers: response.headers });
    held.released = true;
    const date = response.headers.date;
    if (typeof date === "string") this.options.onServerDate?.(date, this.clock.now());
    const maxBody = this.options.maxBody ?? DEFAULT_MAX_BODY;
    const read = await readCapped(response.body, maxBody);
    if (!read.complete) {
      throw new BodyTooLargeError(
        call,
        response.statusCode,
        maxBody,
        storableText(redactSecret(read.head, this.options.apiKey)),
      );
    }
    return { status: response.statusCode, headers: response.headers, text: read.text };
  }

  private interpret(
    call: CallInfo,
    status: number,
    retryAfter: string | string[] | undefined,
    text: string,
    resetAt?: number,
    expect?: readonly number[],
  ): ServiceResponse {
    // An answer that is not JSON is kept as text (in an error, then the ledger's event): a NUL in it, which no JSON
    // has unescaped, could not be stored.
    const redacted = redactSecret(text, this.options.apiKey);
    const safeText = redacted.includes("\0") ? storableText(redacted) : redacted;
    const body = parseJsonExact(safeText);
    if (status >= 400 && status < 500 && status !== 429 && expect?.includes(status)) return { status, body };
    if (status >= 200 && status < 300) {
      if (body === undefined) {
        throw new MalformedResponseError(
          call,
          status,
          `the answer is not JSON: ${excerpt(safeText)}`,
          safeText,
        );
      }
      return { status, body };
    }
    const reason = providerMessage(body, safeText);
    if (status === 429) {
      const now = this.clock.now();
      const wait =
        parseRetryAfter(retryAfter, now) ?? (resetAt === undefined ? undefined : Math.max(0, resetAt - now));
      throw new RateLimitedError(call, wait, body);
    }
    if (status === 401 || status === 403) throw new AuthError(call, status, body);
    if (status >= 400 && status < 500) throw new ClientError(call, status, reason, body);
    throw new ServerError(call, status, reason, body ?? safeText);
  }

  private classify(error: unknown, call: CallInfo): HttpError {
    if (error instanceof Error && "outcome" in error) return error as HttpError;
    if (error instanceof TotalTimeout) return new NoAnswerError(call, error.message, "HTTP_TIMEOUT", error);
    if (error instanceof CaFileError) return new NotSentError(call, error.message, "HTTP_CA_FILE", error);
    const code = errorCode(error);
    const detail = redactSecret(describe(error), this.options.apiKey);
    if (code !== undefined && NOT_SENT_CODES.has(code))
      return new NotSentError(call, detail, "HTTP_NOT_SENT", error);
    if (code !== undefined && UNTRUSTED_CODES.has(code))
      return new NotSentError(
        call,
        `its certificate is not trusted (${detail})`,
        "HTTP_TLS_UNTRUSTED",
        error,
      );
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      return new NoAnswerError(call, `no answer in time (${detail})`, "HTTP_TIMEOUT", error);
    }
    // A cancelled call may already have been written: its outcome is unknown, never "not sent".
    if (isAbort(error)) return new NoAnswerError(call, "the call was cancelled", "HTTP_ABORTED", error);
    return new NoAnswerError(call, `the connection was lost (${detail})`, "HTTP_CONNECTION_LOST", error);
  }
}

/** Failures another try does not mend: a cancel, an answer too large, a certificate or `ca_file` to fix. */
const PERMANENT_CODES = new Set([
  "HTTP_ABORTED",
  "HTTP_BODY_TOO_LARGE",
  "HTTP_TLS_UNTRUSTED",
  "HTTP_CA_FILE",
]);

/** A failure worth another try for a read: nothing was done, or the service hiccuped. */
export function isTransient(error: HttpError): boolean {
  if (PERMANENT_CODES.has(error.code)) return false;
  if (error.outcome === "not_sent" || error.outcome === "unknown") return true;
  return error instanceof RateLimitedError || error.status === 408;
}

function queryString(query: RequestSpec["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `"${flat.slice(0, 120)}…"` : `"${flat}"`;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const own = (error as { code?: unknown }).code;
  if (typeof own === "string" && own !== "UND_ERR_SOCKET") return own;
  const cause = (error as { cause?: unknown }).cause;
  return errorCode(cause) ?? (typeof own === "string" ? own : undefined);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = errorCode(error);
  return code ? `${code}: ${error.message}` : error.message;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || errorCode(error) === "UND_ERR_ABORTED");
}
