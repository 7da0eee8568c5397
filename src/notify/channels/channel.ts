// What a channel is to the deliverer: a name, a pace, the secrets its answers and errors must not carry, and a
// send that never throws — it says delivered, or not and when to try again (a 429's Retry-After), or not and why.
import type { NotifyMessage } from "../message.js";
import type { RenderContext } from "../templates.js";

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

/** The parts of a URL that are secret: the whole, its path and query, its user and password. */
export function urlSecrets(value: string): string[] {
  const found = [value];
  try {
    const url = new URL(value);
    const path = `${url.pathname}${url.search}`;
    if (path.length > 1) found.push(path);
    if (url.password) found.push(decodeURIComponent(url.password), url.password);
    if (url.username && url.password) found.push(decodeURIComponent(url.username));
    // A token in the path (Slack's last segment, a receiver's key) is long and random; shorter segments are
    // words ("services", "hooks") that messages may well contain.
    for (const segment of url.pathname.split("/")) if (segment.length >= 16) found.push(segment);
  } catch {
    // not a URL: the value alone
  }
  return [...new Set(found)];
}
