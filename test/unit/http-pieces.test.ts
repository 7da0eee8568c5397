import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { backoffDelay, parseRetryAfter } from "../../src/http/backoff.js";
import { providerMessage, redactSecret } from "../../src/http/message.js";
import { RateLimiter } from "../../src/http/rate-limit.js";

/** A clock that records sleeps; it moves only when `advance` is set (for callers that await in turn). */
function manualClock(advance: boolean): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      if (advance) now += ms;
    },
  };
}

describe("rate limiter", () => {
  it("spaces concurrent callers to the configured rate", async () => {
    const clock = manualClock(false);
    const limiter = new RateLimiter(10, clock);
    await Promise.all(Array.from({ length: 5 }, () => limiter.acquire()));
    // five callers at 10/s: the first goes at once, the others are reserved 100 ms apart
    expect(clock.slept).toEqual([100, 200, 300, 400]);
  });

  it("lets a burst through, then spaces", async () => {
    const clock = manualClock(true);
    const limiter = new RateLimiter(10, clock, 3);
    for (let i = 0; i < 4; i++) await limiter.acquire();
    expect(clock.slept).toEqual([100]);
  });
});

describe("rate limiter lanes", () => {
  it("lets new work and follow-ups take turns while both wait, an urgent request first", async () => {
    const clock = manualClock(true);
    const limiter = new RateLimiter(10, clock);
    const order: string[] = [];
    const go = (name: string, options: Parameters<RateLimiter["acquire"]>[0] = {}) =>
      limiter.acquire(options).then(() => order.push(name));
    await limiter.acquire();
    await Promise.all([
      go("read 1", { lane: "follow" }),
      go("read 2", { lane: "follow" }),
      go("read 3", { lane: "follow" }),
      go("buy 1"),
      go("buy 2"),
      go("read 4", { lane: "follow", urgent: true }),
    ]);
    // A backlog of reads does not hold a purchase back: one of each in turn, at 10 a second.
    expect(order).toEqual(["read 4", "buy 1", "read 1", "buy 2", "read 2", "read 3"]);
    expect(clock.now()).toBe(600);
  });

  it("a waiter whose signal aborts leaves the queue", async () => {
    const clock = manualClock(true);
    const limiter = new RateLimiter(10, clock);
    await limiter.acquire();
    const stop = new AbortController();
    const gone = limiter.acquire({ signal: stop.signal, lane: "follow" });
    const kept = limiter.acquire();
    stop.abort(new Error("stopped"));
    await expect(gone).rejects.toThrow("stopped");
    await kept;
    expect(limiter.waiting()).toBe(0);
  });
});

describe("backoff", () => {
  it("draws full jitter under an exponential ceiling capped at the maximum", () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(0, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(400);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(2, policy, () => 0)).toBe(0);
  });

  it("reads Retry-After as seconds or as a date", () => {
    expect(parseRetryAfter("3", 0)).toBe(3000);
    expect(parseRetryAfter("Thu, 01 Jan 1970 00:00:10 GMT", 4000)).toBe(6000);
    expect(parseRetryAfter("soon", 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe("provider messages", () => {
  it("reads both 422 shapes", () => {
    const laravel = {
      message: "The domain has already been taken.",
      errors: { domain: ["The domain has already been taken."] },
    };
    expect(providerMessage(laravel, "")).toBe(
      "The domain has already been taken. — domain: The domain has already been taken.",
    );
    expect(
      providerMessage({ message: { privacy: ["The selected privacy is invalid."] }, status: 422 }, ""),
    ).toBe("privacy: The selected privacy is invalid.");
  });

  it("falls back to the text of a non-JSON body", () => {
    expect(providerMessage(undefined, "<html><h1>502 Bad Gateway</h1></html>")).toBe("502 Bad Gateway");
  });

  it("redacts a secret wherever it appears", () => {
    expect(redactSecret("key sk-live-123 echoed sk-live-123", "sk-live-123")).toBe(
      "key [redacted] echoed [redacted]",
    );
  });
});

describe("the limits a service announces", () => {
  it("reads Laravel's headers, X-RateLimit-Reset as epoch seconds or seconds from now", async () => {
    const { readLimitHeaders } = await import("../../src/http/server-limits.js");
    const now = 1_800_000_000_000;
    expect(
      readLimitHeaders(
        {
          "x-ratelimit-limit": "60",
          "x-ratelimit-remaining": "0",
          "retry-after": "12",
          "x-ratelimit-reset": "1800000012",
        },
        now,
      ),
    ).toEqual({ limit: 60, remaining: 0, retryAt: now + 12_000, resetAt: now + 12_000 });
    expect(readLimitHeaders({ "x-ratelimit-reset": "30" }, now)).toEqual({ resetAt: now + 30_000 });
    expect(readLimitHeaders({ "x-ratelimit-remaining": "many" }, now)).toEqual({});
  });

  it("holds requests once the window is spent and lets them go when it closes", async () => {
    const { ServerLimits } = await import("../../src/http/server-limits.js");
    const clock = manualClock(true);
    const limits = new ServerLimits(clock);
    const headers = (remaining: number) => ({
      "x-ratelimit-limit": "2",
      "x-ratelimit-remaining": String(remaining),
    });
    limits.release(await limits.acquire(), { status: 200, headers: headers(1) });
    limits.release(await limits.acquire(), { status: 200, headers: headers(0) });
    // spent, and nothing says until when: one request finds out
    const probe = await limits.acquire();
    limits.release(probe, { status: 429, headers: { ...headers(0), "retry-after": "5" } });
    expect(clock.slept).toEqual([]);
    limits.release(await limits.acquire(), { status: 200, headers: headers(1) });
    expect(clock.slept).toEqual([5000]);
  });
});

describe("a listing's pages", () => {
  it("follow last_page past short pages, and agree with total", async () => {
    const { ListingTracker } = await import("../../src/analytics/listing.js");
    const tracker = new ListingTracker(100);
    const page = (n: number, ids: number[]) =>
      tracker.take({ page: n, ids, lastPage: 3, total: 25, perPage: 10 });
    expect(page(1, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).next).toBe(true);
    expect(page(2, [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]).next).toBe(true);
    expect(page(3, [21, 22, 23, 24, 25]).next).toBe(false);
    expect(tracker.problem()).toBeUndefined();
  });

  it("are incomplete when they disagree: a website on two pages, a changed total, fewer than total", async () => {
    const { ListingTracker } = await import("../../src/analytics/listing.js");
    const tracker = new ListingTracker(2);
    expect(tracker.take({ page: 1, ids: [1, 2], lastPage: 2, total: 4 }).fresh).toEqual([0, 1]);
    expect(tracker.take({ page: 2, ids: [2, 3], lastPage: 2, total: 5 })).toEqual({
      fresh: [1],
      next: false,
    });
    expect(tracker.problem()).toBe(
      "1 website (id 2) appeared on two pages: the list changed while it was read; total changed from 4 to 5 while the list was read; 3 websites were read but the service's total is 5",
    );
  });

  it("are incomplete when one page holds two records with one id: the second is not silently dropped", async () => {
    const { ListingTracker } = await import("../../src/analytics/listing.js");
    const tracker = new ListingTracker(100);
    expect(tracker.take({ page: 1, ids: [1, 2, 2], lastPage: 1 })).toEqual({ fresh: [0, 1], next: false });
    expect(tracker.problem()).toBe("page 1 holds 1 more website with an id already on it (id 2)");
  });

  it("without last_page, end at a page shorter than asked for", async () => {
    const { ListingTracker } = await import("../../src/analytics/listing.js");
    const tracker = new ListingTracker(2);
    expect(tracker.take({ page: 1, ids: [1, 2] }).next).toBe(true);
    expect(tracker.take({ page: 2, ids: [3] }).next).toBe(false);
    expect(tracker.problem()).toBeUndefined();
  });

  it("stop at the hard cap of pages", async () => {
    const { ListingTracker, MAX_PAGES } = await import("../../src/analytics/listing.js");
    const tracker = new ListingTracker(1);
    expect(() => {
      for (let page = 1; page <= MAX_PAGES + 1; page++) tracker.take({ page, ids: [page] });
    }).toThrow(`the listing did not end after ${MAX_PAGES} pages`);
  });
});
