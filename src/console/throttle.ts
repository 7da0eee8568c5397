// Login throttling: failed logins are counted per user name and per source address within a window; past the
// limit, logins for that name (or from that source) are refused until the window has moved on, whatever the
// password. Counted in this process: each replica throttles on its own (at most replicas × the limit tries).
/** Names and sources remembered at most; past it the oldest entries go (an attacker cannot grow memory). */
const MAX_KEYS = 10_000;

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limits: { perUser: number; perSource: number; windowMs: number },
    private readonly now: () => number,
  ) {}

  /** Milliseconds to wait before this user or source may try again (0: may try now). */
  wait(user: string, source: string): number {
    return Math.max(
      this.waitFor(`user:${user.toLowerCase()}`, this.limits.perUser),
      this.waitFor(`source:${source}`, this.limits.perSource),
    );
  }

  failed(user: string, source: string): void {
    this.add(`user:${user.toLowerCase()}`);
    this.add(`source:${source}`);
  }

  succeeded(user: string): void {
    this.failures.delete(`user:${user.toLowerCase()}`);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs;
    const times = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (times.length === 0) this.failures.delete(key);
    else this.failures.set(key, times);
    return times;
  }

  private waitFor(key: string, limit: number): number {
    const times = this.recent(key);
    if (times.length < limit) return 0;
    return Math.max(1, times[times.length - limit]! + this.limits.windowMs - this.now());
  }

  private add(key: string): void {
    const times = this.recent(key);
    times.push(this.now());
    this.failures.delete(key);
    this.failures.set(key, times.slice(-1000));
    while (this.failures.size > MAX_KEYS) {
      const oldest = this.failures.keys().next().value;
      if (oldest === undefined) break;
      this.failures.delete(oldest);
    }
  }
}
