// The provider-notification receiver (README "Webhooks"): POST `webhooks.path`. A delivery from a source
// outside `allow_from` is refused (403); one that is not authenticated (HMAC of the raw body, or a token in a
// header or the path) gets 401; a body over 64 KiB 413; one that is not a notification 400. None of these
// changes anything. An accepted delivery is stored (secrets redacted, capped), deduplicated on the sha256 of
// its body, answered 200 at once, and processed after the answer.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { BlockList, isIP } from "node:net";
import type { WebhooksConfig } from "../config/index.js";
import type { Executor } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { bodyHash, parseNotification, storeNotification } from "../purchases/notifications.js";
import { redactSecretForms } from "../text/secrets.js";

export const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;

export interface WebhookReceiverOptions {
  config: WebhooksConfig;
  /** The database once connected; deliveries before that get 503 (the provider retries). */
  database: () => Executor | undefined;
  /** Secrets to keep out of stored bodies (the webhook secret, API keys). */
  secrets: readonly string[];
  logger: Logger;
  now?: () => number;
  /** Called after the answer for each newly stored notification. */
  onStored: (id: number) => void;
  /** Counts a refused delivery (metrics: `rejected`). */
  onRejected?: (why: string) => void;
}

export interface WebhookReceiver {
  /** Whether this request's path is the receiver's. */
  owns(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
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
  const owns = (pathname: string) =>
    config.auth === "token" && config.token_in === "path"
      ? pathname === base || pathname.startsWith(`${base === "/" ? "" : base}/`)
      : pathname === base || pathname === `${base}/`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      if (request.method !== "POST") throw new Refusal(405, "method not allowed: deliveries are POST");
      const source = normaliseAddress(request.socket.remoteAddress ?? "");
      if (allow && !allowed(allow, source)) throw new Refusal(403, "source address not allowed");
      const raw = await readBody(request);
      authenticate(config, request, raw, now());
      let body: unknown;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        throw new Refusal(400, "the body is not JSON");
      }
      const parsed = parseNotification(body);
      if ("problem" in parsed) throw new Refusal(400, parsed.problem);
      const db = options.database();
      if (!db) throw new Refusal(503, "not ready: the database is not connected yet");
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
      if (!stored.duplicate) response.once("finish", () => options.onStored(stored.id));
      send(response, 200, { received: true, id: stored.id, duplicate: stored.duplicate });
    } catch (error) {
      if (!(error instanceof Refusal)) {
        // Logged without the request's path: with token_in: path, it holds the secret.
        options.logger.warn({ err: error }, `webhook delivery not stored: ${(error as Error).message}`);
        if (!response.headersSent) send(response, 500, { received: false, error: "not stored; try again" });
        else response.end();
        return;
      }
      if (error.status !== 503) options.onRejected?.(error.message);
      options.logger.warn(`webhook delivery refused (${error.status}): ${error.message}`);
      // The rest of a refused body is not read: the connection is closed after the answer.
      response.setHeader("connection", "close");
      send(response, error.status, { received: false, error: error.message });
    }
  }

  return { owns, handle };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(`${JSON.stringify(body)}\n`);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BODY_BYTES)
    return Promise.reject(new Refusal(413, `the body is over ${MAX_WEBHOOK_BODY_BYTES} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_WEBHOOK_BODY_BYTES) {
        request.removeAllListeners("data");
        request.pause();
        reject(new Refusal(413, `the body is over ${MAX_WEBHOOK_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Throws a 401 Refusal unless the delivery carries the configured proof. */
function authenticate(config: WebhooksConfig, request: IncomingMessage, raw: Buffer, now: number): void {
  const secret = config.secret ?? "";
  if (secret === "") throw new Refusal(401, "no webhook secret configured");
  if (config.auth === "token") {
    const given =
      config.token_in === "path"
        ? decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname.split("/").pop() ?? "")
        : (header(request, config.token_header) ?? "");
    if (!sameText(given, secret)) throw new Refusal(401, "missing or wrong token");
    return;
  }
  const signature = header(request, config.signature_header)?.trim();
  if (!signature) throw new Refusal(401, `no ${config.signature_header} header`);
  let signed = raw;
  if (config.timestamp_header) {
    const stamp = header(request, config.timestamp_header)?.trim() ?? "";
    if (!/^\d{1,12}$/.test(stamp)) throw new Refusal(401, `no valid ${config.timestamp_header} header`);
    if (Math.abs(now - Number(stamp) * 1000) > config.tolerance)
      throw new Refusal(401, `${config.timestamp_header} is outside the tolerance window`);
    signed = Buffer.concat([Buffer.from(`${stamp}.`), raw]);
  }
  const expected = createHmac(config.algorithm, secret).update(signed).digest();
  const given = decodeSignature(signature.replace(/^sha(256|512)=/i, ""), config.encoding);
  if (!given || given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new Refusal(401, "the signature does not match the body");
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
