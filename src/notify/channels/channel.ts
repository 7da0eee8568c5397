// What a channel is to the deliverer: a name, a pace, the secrets its answers and errors must not carry, and a
// send that never throws — it says delivered, or not and when to try again (a 429's Retry-After), or not and why.
import type { NotifyMessage } from "../message.js";
import type { RenderContext } from "../templates.js";
import { basicCredentials } from "./http.js";

export type SendResult =
  | { ok: true; answer: string }
  | { ok: false; answer: string; error: string; retryAfterMs?: number };

export interface Channel {
  name: string;
  type: "slack" | "telegram" | "webhook" | "email";
  /** Least time between two sends, across replicas. */
  paceMs: number;
  /** Every form of this channel's secrets (URL, token, key, password), for redaction. */
  secrets: string[];
  send(message: NotifyMessage, ctx: RenderContext): Promise<SendResult>;
  close(): Promise<void>;
}

/** The least length of a URL's query value kept as a secret. */
const QUERY_SECRET_MIN = 8;

/** The parts of a URL that are secret: the whole, its path and query, its query's values, its user and password. */
export function urlSecrets(value: string): string[] {
  const found = [value];
  try {
    const url = new URL(value);
    const path = `${url.pathname}${url.search}`;
    if (path.length > 1) found.push(path);
    if (url.password) found.push(decodeURIComponent(url.password), url.password);
    if (url.username && url.password) found.push(decodeURIComponent(url.username));
    // Sent as basic authentication (http.ts): the header's value, and the pair it encodes.
    if (url.username || url.password) {
      const pair = basicCredentials(url);
      found.push(pair, Buffer.from(pair, "base64").toString("utf8"));
    }
    // A token in the path (Slack's last segment, a receiver's key) is long and random; shorter segments are
    // words ("services", "hooks") that messages may well contain.
    for (const segment of url.pathname.split("/")) if (segment.length >= 16) found.push(segment);
    // A query's values (a receiver's `?token=…`), as written and decoded: a receiver refusing one often names it.
    // Short ones ("json", "1") are settings, not keys.
    for (const pair of url.search.slice(1).split("&")) {
      const raw = pair.slice(pair.indexOf("=") + 1);
      if (!pair.includes("=") || raw.length < QUERY_SECRET_MIN) continue;
      found.push(raw);
      try {
        found.push(decodeURIComponent(raw.replace(/\+/g, " ")), decodeURIComponent(raw));
      } catch {
        // a malformed escape: the value as written
      }
    }
  } catch {
    // not a URL: the value alone
  }
  return [...new Set(found)];
}
