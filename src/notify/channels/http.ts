// One POST for the HTTP channels: a keep-alive pool per origin, a deadline for the whole call, the answer read
// under a cap. Network failures come back as values (the deliverer retries), never as exceptions.
import type { Dispatcher } from "undici";
import { parseRetryAfter } from "../../http/backoff.js";
import { readCapped } from "../../http/body.js";
import { type HttpPool, openHttpPool } from "../../http/undici-pool.js";

/** The most bytes of a channel's answer read (kept for `notify list` and the log, capped again there). */
const ANSWER_BYTES = 16 * 1024;

export interface HttpAnswer {
  status: number;
  text: string;
  retryAfterMs?: number;
}

export class ChannelHttp {
  private pool: Promise<HttpPool> | undefined;
  private readonly origin: string;
  private readonly path: string;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    const parsed = new URL(url);
    this.origin = parsed.origin;
    this.path = `${parsed.pathname}${parsed.search}`;
    // Credentials in the URL (`https://user:password@host/…`) are not part of its origin: sent as basic auth.
    if (parsed.username || parsed.password) this.authorization = `Basic ${basicCredentials(parsed)}`;
  }

  private readonly authorization: string | undefined;

  /** POSTs `body` to the URL; throws only what the network throws (the caller turns it into a failed send). */
  async post(body: string, headers: Record<string, string>): Promise<HttpAnswer> {
    this.pool ??= openHttpPool(this.origin, {
      connections: 4,
      connectTimeout: this.timeoutMs,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    const pool = await this.pool;
    const signal = AbortSignal.timeout(this.timeoutMs);
    const response: Dispatcher.ResponseData = await pool.request({
      method: "POST",
      path: this.path,
      headers: {
        "content-type": "application/json",
        "user-agent": "topsync",
        ...(this.authorization ? { authorization: this.authorization } : {}),
        ...headers,
      },
      body,
      signal,
    });
    const read = await readCapped(response.body, ANSWER_BYTES);
    const retryAfterMs = parseRetryAfter(response.headers["retry-after"], Date.now());
    return {
      status: response.statusCode,
      text: read.complete ? read.text : read.head,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await (await pool).close().catch(() => {});
  }
}

/** A URL's user and password as HTTP basic authentication sends them: base64 of "user:password", decoded. */
export function basicCredentials(url: URL): string {
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return Buffer.from(`${decode(url.username)}:${decode(url.password)}`, "utf8").toString("base64");
}

/** A network failure as the words a person reads: the error's code and message, nothing more. */
export function networkError(error: unknown): string {
  const e = error as { code?: string; message?: string; name?: string };
  return `${e.code ?? e.name ?? "error"}: ${e.message ?? String(error)}`;
}

/** A short view of an answer for `notify list` and the log. */
export function answerOf(status: number, text: string): string {
  const body = text.length > 500 ? `${text.slice(0, 500)}…` : text;
  return `HTTP ${status}${body.trim() === "" ? "" : ` ${body.trim()}`}`;
}
