// Pacing to the limits a service announces (Laravel's throttle and its relatives): every answer's
// X-RateLimit-Limit / X-RateLimit-Remaining, and Retry-After / X-RateLimit-Reset, shared by every concurrent
// call to the service. Requests go while the window has room for them; when it is spent, they wait for it to
// close — at a time the service said, or learned from an earlier window — or, when nothing says when, one
// request alone finds out. The very first request also goes alone, since its answer says whether the service
// counts at all. So a throttled service sees at most one refusal per window, usually none.
import type { Clock } from "../clock.js";
import { MAX_RETRY_AFTER_MS } from "./backoff.js";

export interface LimitHeaders {
  limit?: number;
  remaining?: number;
  /** Epoch ms the window closes, from X-RateLimit-Reset (epoch seconds, or seconds from now when small). */
  resetAt?: number;
  /** Epoch ms before which the service asked not to be called again (Retry-After). */
  retryAt?: number;
}

type HeaderValue = string | string[] | undefined;

function header(headers: Record<string, HeaderValue>, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === "" ? undefined : text.trim();
}

function count(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Below this, X-RateLimit-Reset is read as seconds from now; above, as epoch seconds. */
const EPOCH_SECONDS = 1_000_000_000;

export function readLimitHeaders(headers: Record<string, HeaderValue>, now: number): LimitHeaders {
  const found: LimitHeaders = {};
  const limit = count(header(headers, "x-ratelimit-limit"));
  const remaining = count(header(headers, "x-ratelimit-remaining"));
  const reset = count(header(headers, "x-ratelimit-reset"));
  const retryAfter = header(headers, "retry-after");
  if (limit !== undefined) found.limit = limit;
  if (remaining !== undefined) found.remaining = remaining;
  if (reset !== undefined) found.resetAt = reset > EPOCH_SECONDS ? reset * 1000 : now + reset * 1000;
  if (retryAfter !== undefined) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) found.retryAt = now + Math.round(Number(retryAfter) * 1000);
    else if (!Number.isNaN(Date.parse(retryAfter))) found.retryAt = Date.parse(retryAfter);
  }
  return found;
}

/** One request let through: when it was sent, so its answer can be placed among the others. */
export interface Ticket {
  sentAt: number;
}

export interface Answer {
  status: number;
  headers: Record<string, HeaderValue>;
}

/** How long the others wait for the very first answer; a first request that hangs must not hold them all. */
const FIRST_WAIT_MS = 1000;
/** After a refusal that says "now" (Retry-After: 0), still this long before the next try. */
const MIN_PAUSE_MS = 250;

export class ServerLimits {
  private limit: number | undefined;
  /** The lowest Remaining reported in the current window, and when the request that reported it was sent. */
  private remaining: number | undefined;
  private remainingAt = 0;
  private inFlight = 0;
  private blockedUntil = 0;
  /** When the current window closes, when the service said or an earlier window taught it. */
  private closesAt: number | undefined;
  /** When the request that opened the current window was sent (its answer said limit − 1). */
  private openedAt: number | undefined;
  /** How long a window lasts, learned from a refusal in a window whose opening was seen. */
  private windowMs: number | undefined;
  private readonly waiting = new Set<() => void>();
  /** Until the first answer, one request at a time: it tells whether (and how) the service counts. */
  private heard = false;
  private firstSentAt = 0;

  constructor(private readonly clock: Clock) {}

  /** Waits until the service's announced limits leave room for one more request. */
  async acquire(signal?: AbortSignal): Promise<Ticket> {
    for (;;) {
      const now = this.clock.now();
      const wait = this.waitFor(now);
      if (wait === 0) break;
      if (wait !== "answer") await this.clock.sleep(wait, signal);
      else if (this.heard) await this.nextAnswer(signal);
      else
        await Promise.race([
          this.nextAnswer(signal),
          this.clock.sleep(this.firstSentAt + FIRST_WAIT_MS - now, signal),
        ]);
    }
    if (this.inFlight === 0 && !this.heard) this.firstSentAt = this.clock.now();
    this.inFlight += 1;
    return { sentAt: this.clock.now() };
  }

  /** Requests a minute the service allows, once both its limit and the length of its window are known. */
  perMinute(): number | undefined {
    if (this.limit === undefined || this.windowMs === undefined) return undefined;
    return (this.limit * 60_000) / this.windowMs;
  }

  /** Every acquired ticket comes back here once, with the answer when there was one. */
  release(ticket: Ticket, answer?: Answer): void {
    this.inFlight -= 1;
    if (answer) this.learn(ticket, answer);
    for (const wake of [...this.waiting]) wake();
  }

  /** 0 to go now, milliseconds to sleep, or "answer" to wait for an answer in flight to say more. */
  private waitFor(now: number): number | "answer" {
    if (now < this.blockedUntil) return this.blockedUntil - now;
    if (!this.heard) return this.inFlight > 0 && now < this.firstSentAt + FIRST_WAIT_MS ? "answer" : 0;
    if (this.remaining === undefined) return 0;
    if (this.closesAt !== undefined && now >= this.closesAt) this.windowClosed(now);
    if (this.remaining === undefined || this.remaining - this.inFlight > 0) return 0;
    if (this.inFlight > 0) return "answer";
    if (this.closesAt !== undefined) return this.closesAt - now;
    return 0; // spent, and nothing says until when: this one request finds out
  }

  private windowClosed(now: number): void {
    this.remaining = this.limit;
    this.remainingAt = now;
    this.closesAt = undefined;
    this.openedAt = undefined;
  }

  private learn(ticket: Ticket, answer: Answer): void {
    this.heard = true;
    const now = this.clock.now();
    const said = readLimitHeaders(answer.headers, now);
    if (said.limit !== undefined) this.limit = said.limit;
    if (answer.status === 429) {
      this.refused(ticket, said, now);
      return;
    }
    if (said.remaining === undefined) return;
    if (this.remaining === undefined || said.remaining <= this.remaining) {
      this.remaining = said.remaining;
      this.remainingAt = Math.max(this.remainingAt, ticket.sentAt);
    } else if (ticket.sentAt >= this.remainingAt) {
      // More room than a request sent earlier reported: the window has turned over since.
      this.remaining = said.remaining;
      this.remainingAt = ticket.sentAt;
      this.closesAt = undefined;
      this.openedAt = undefined;
    }
    if (this.limit !== undefined && said.remaining === this.limit - 1) this.opened(ticket.sentAt);
    if (said.resetAt !== undefined) this.closesAt = Math.min(said.resetAt, now + MAX_RETRY_AFTER_MS);
  }

  /** This request opened a window: it closes one learned window length later, when one was learned. */
  private opened(sentAt: number): void {
    if (this.openedAt !== undefined && this.openedAt >= sentAt) return;
    this.openedAt = sentAt;
    if (this.windowMs !== undefined) this.closesAt = sentAt + this.windowMs + margin(this.windowMs);
  }

  private refused(ticket: Ticket, said: LimitHeaders, now: number): void {
    this.remaining = 0;
    this.remainingAt = Math.max(this.remainingAt, ticket.sentAt);
    const asked = said.retryAt ?? said.resetAt;
    if (asked === undefined) return;
    const until = Math.min(asked, now + MAX_RETRY_AFTER_MS);
    const resumeAt = Math.max(until, now + MIN_PAUSE_MS);
    this.blockedUntil = Math.max(this.blockedUntil, resumeAt);
    this.closesAt = resumeAt;
    if (this.openedAt !== undefined && resumeAt > this.openedAt) this.windowMs = resumeAt - this.openedAt;
  }

  private nextAnswer(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const abort = () => {
        this.waiting.delete(done);
        reject(signal?.reason ?? new DOMException("This operation was aborted", "AbortError"));
      };
      const done = () => {
        this.waiting.delete(done);
        signal?.removeEventListener("abort", abort);
        resolve();
      };
      if (signal?.aborted) {
        abort();
        return;
      }
      this.waiting.add(done);
      signal?.addEventListener("abort", abort, { once: true });
    });
  }
}

/** Seconds-resolution clocks on the service's side: a little slack past a learned window's end. */
function margin(windowMs: number): number {
  return windowMs >= 10_000 ? 1000 : 50;
}
