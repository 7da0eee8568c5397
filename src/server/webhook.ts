// The provider-notification receiver (README "Webhooks"): POST `webhooks.path`. A delivery from a source
// outside `allow_from` is refused (403), one more from a source that has `max_per_source` in progress 429; one
// that is not authenticated (a token in a header or the path, checked before the body is read; or an HMAC of the
// raw body) gets 401; a body over 64 KiB 413, one not complete within `body_timeout` 408, one that is not a
// notification 400. None of these changes anything, and each is answered without reading the rest of the body.
// An accepted delivery is stored (secrets redacted, capped), deduplicated on the sha256 of its body, answered
// 200, and processed whether or not the answer reaches the provider; a body delivered again is processed too
// when it is still waiting (its first processor may have stopped).
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { BlockList, isIP } from "node:net";
import type { WebhooksConfig } from "../config/index.js";
import type { Executor } from "../db/client.js";
import { formatDuration } from "../duration.js";
import { parseJsonExact } from "../http/json-text.js";
import type { Logger } from "../log/logger.js";
import { bodyHash, parseNotification, storeNotification } from "../purchases/notifications.js";
import { sourceKey } from "../source-address.js";
import { redactSecretForms } from "../text/secrets.js";
import { RefusalLog } from "./refusal-log.js";

export const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;

/** Why a delivery was refused: the `reason` of topsync_http_refusals_total. */
export type WebhookRefusal =
  | "method"
  | "forbidden_source"
  | "source_limit"
  | "unauthenticated"
  | "too_large"
  | "body_timeout"
  | "incomplete"
  | "not_a_notification"
  | "not_ready";

export interface WebhookReceiverOptions {
  config: WebhooksConfig;
  /** The database once connected; deliveries before that get 503 (the provider retries). */
  database: () => Executor | undefined;
  /** Secrets to keep out of stored bodies (the webhook secret, API keys). */
  secrets: readonly string[];
  logger: Logger;
  now?: () => number;
  /** Called once the answer is given (or the connection is gone) for each newly stored notification. */
  onStored: (id: number) => void;
  /** The same for a body stored before, delivered again: it may still be waiting to be processed. */
  onRedelivered?: (id: number) => void;
  /** Counts a refused delivery (metrics). */
  onRejected?: (reason: WebhookRefusal, message: string) => void;
}

export interface WebhookReceiver {
  /** Whether this request's path is the receiver's. */
  owns(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly reason: WebhookRefusal,
    message: string,
  ) {
    super(message);
  }
}

export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const { config } = options;
  const base = config.path.replace(/\/+$/, "") || "/";
  const allow = allowList(config.allow_from);
  const now = options.now ?? Date.now;
  const refusals = new RefusalLog(options.logger, now);
  /** Deliveries in progress by source address. */
  const inProgress = new Map<string, number>();
  const owns = (pathname: string) =>
    config.auth === "token" && config.token_in === "path"
      ? pathname === base || pathname.startsWith(`${base === "/" ? "" : base}/`)
      : pathname === base || pathname === `${base}/`;

  async function receive(request: IncomingMessage, response: ServerResponse, source: string): Promise<void> {
    if (config.auth === "token") checkToken(config, request);
    const raw = await readBody(request, config.body_timeout);
    if (config.auth === "hmac") checkSignature(config, request, raw, now());
    // Read as the client reads answers: a reference written as a JSON number beyond a double keeps every digit
    // (JSON.parse would round it, and the notification would name another transaction); a NUL or half a surrogate
    // pair in a field the ledger stores (the reference, the status) is kept as U+FFFD.
    const body = parseJsonExact(raw.toString("utf8"));
    if (body === undefined) throw new Refusal(400, "not_a_notification", "the body is not JSON");
    const parsed = parseNotification(body);
    if ("problem" in parsed) throw new Refusal(400, "not_a_notification", parsed.problem);
    const db = options.database();
    if (!db) throw new Refusal(503, "not_ready", "not ready: the database is not connected yet");
    const text = options.secrets.reduce(
      (out, secret) => redactSecretForms(out, secret),
      raw.toString("utf8"),
    );
    const stored = await storeNotification(db, {
      sha256: bodyHash(raw),
      source: source || null,
      body: text,
      parsed,
    });
    send(response, 200, { received: true, id: stored.id, duplicate: stored.duplicate });
    // Stored is enough: it is processed whether or not the provider hears the answer.
    if (!stored.duplicate) options.onStored(stored.id);
    else options.onRedelivered?.(stored.id);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const source = normaliseAddress(request.socket.remoteAddress ?? "");
    /** The source whose count this delivery holds, once it holds one. */
    let counted: string | undefined;
    try {
      if (request.method !== "POST")
        throw new Refusal(405, "method", "method not allowed: deliveries are POST");
      if (allow && !allowed(allow, source))
        throw new Refusal(403, "forbidden_source", "source address not allowed");
      const key = sourceKey(source);
      const busy = inProgress.get(key) ?? 0;
      if (busy >= config.max_per_source)
        throw new Refusal(
          429,
          "source_limit",
          `too many deliveries in progress from one source (webhooks.max_per_source ${config.max_per_source})`,
        );
      inProgress.set(key, busy + 1);
      counted = key;
      await receive(request, response, source);
    } catch (error) {
      if (error instanceof Refusal) refuse(response, error);
      else fail(response, error);
    } finally {
      if (counted !== undefined) {
        const left = (inProgress.get(counted) ?? 1) - 1;
        if (left > 0) inProgress.set(counted, left);
        else inProgress.delete(counted);
      }
    }
  }

  function refuse(response: ServerResponse, refusal: Refusal): void {
    options.onRejected?.(refusal.reason, refusal.message);
    refusals.warn(refusal.reason, `webhook delivery refused (${refusal.status}): ${refusal.message}`);
    // The rest of a refused body is not read: the connection is closed after the answer.
    response.setHeader("connection", "close");
    if (refusal.status === 429 || refusal.status === 503) response.setHeader("retry-after", "1");
    send(response, refusal.status, { received: false, error: refusal.message });
  }

  function fail(response: ServerResponse, error: unknown): void {
    // Logged without the request's path: with token_in: path, it holds the secret.
    options.logger.warn({ err: error }, `webhook delivery not stored: ${(error as Error).message}`);
    if (!response.headersSent) send(response, 500, { received: false, error: "not stored; try again" });
    else response.end();
  }

  return { owns, handle };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(`${JSON.stringify(body)}\n`);
}

/** The body, up to 64 KiB, complete within `deadlineMs` of now. */
function readBody(request: IncomingMessage, deadlineMs: number): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (refusal?: Refusal) => {
      clearTimeout(timer);
      request.off("data", onData).off("end", onEnd).off("error", onFailed).off("close", onClose);
      if (!refusal) return;
      request.pause();
      reject(refusal);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_WEBHOOK_BODY_BYTES) stop(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const incomplete = () =>
      new Refusal(400, "incomplete", "the connection closed before the body was complete");
    const onFailed = () => stop(incomplete());
    const onClose = () => {
      if (!request.complete) stop(incomplete());
    };
    const timer = setTimeout(
      () =>
        stop(
          new Refusal(
            408,
            "body_timeout",
            `the body did not arrive within ${formatDuration(deadlineMs)} (webhooks.body_timeout)`,
          ),
        ),
      deadlineMs,
    );
    request.on("data", onData).on("end", onEnd).on("error", onFailed).on("close", onClose);
  });
}

function tooLarge(): Refusal {
  return new Refusal(413, "too_large", `the body is over ${MAX_WEBHOOK_BODY_BYTES} bytes`);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function secretOf(config: WebhooksConfig): string {
  const secret = config.secret ?? "";
  if (secret === "") throw new Refusal(401, "unauthenticated", "no webhook secret configured");
  return secret;
}

/** Throws a 401 Refusal unless the delivery carries the token; needs nothing of the body. */
function checkToken(config: WebhooksConfig, request: IncomingMessage): void {
  const secret = secretOf(config);
  const given =
    config.token_in === "path"
      ? tokenInPath(request.url ?? "/")
      : (header(request, config.token_header) ?? "");
  if (!sameText(given, secret)) throw new Refusal(401, "unauthenticated", "missing or wrong token");
}

/** The last segment of the path, decoded; empty when it is not a valid escape (a wrong token like any other). */
function tokenInPath(target: string): string {
  try {
    return decodeURIComponent(new URL(target, "http://x").pathname.split("/").pop() ?? "");
  } catch {
    return "";
  }
}

/** Throws a 401 Refusal unless the delivery carries an HMAC of its body (and timestamp) with the secret. */
function checkSignature(config: WebhooksConfig, request: IncomingMessage, raw: Buffer, now: number): void {
  const secret = secretOf(config);
  const signature = header(request, config.signature_header)?.trim();
  if (!signature) throw new Refusal(401, "unauthenticated", `no ${config.signature_header} header`);
  let signed = raw;
  if (config.timestamp_header) {
    const stamp = header(request, config.timestamp_header)?.trim() ?? "";
    if (!/^\d{1,12}$/.test(stamp))
      throw new Refusal(401, "unauthenticated", `no valid ${config.timestamp_header} header`);
    if (Math.abs(now - Number(stamp) * 1000) > config.tolerance)
      throw new Refusal(401, "unauthenticated", `${config.timestamp_header} is outside the tolerance window`);
    signed = Buffer.concat([Buffer.from(`${stamp}.`), raw]);
  }
  const expected = createHmac(config.algorithm, secret).update(signed).digest();
  const given = decodeSignature(signature.replace(/^sha(256|512)=/i, ""), config.encoding);
  if (!given || given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new Refusal(401, "unauthenticated", "the signature does not match the body");
}

function decodeSignature(text: string, encoding: "hex" | "base64"): Buffer | undefined {
  if (encoding === "hex") return /^[0-9a-fA-F]+$/.test(text) ? Buffer.from(text, "hex") : undefined;
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, "base64") : undefined;
}

/** Equal text, compared in constant time (over the hashes, so the lengths do not show either). */
function sameText(a: string, b: string): boolean {
  const hash = (text: string) => createHmac("sha256", "topsync-token").update(text).digest();
  return timingSafeEqual(hash(a), hash(b)) && a === b;
}

function normaliseAddress(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** A BlockList of the configured addresses and CIDR ranges; undefined when any source may deliver. */
function allowList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const family = isIP(address ?? "") === 6 ? "ipv6" : "ipv4";
    if (bits !== undefined) list.addSubnet(address!, Number(bits), family);
    else list.addAddress(address!, family);
  }
  return list;
}

function allowed(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}
