// Login throttling: failed logins are counted per user name from one source, per source address, and per user name
// from every source together, within a window; past a limit, those logins are refused until the window has moved
// on, whatever the password. A name is locked for one source after `perUser` failures from it, so a stranger who
// fails a user's logins on purpose locks only themselves out, not the user (OWASP's advice against lockout as a
// denial of service); from all sources together only after USER_WIDE_FACTOR times as many, which still stops a
// guesser spread over many addresses. Counted in this process: each replica throttles on its own (at most
// replicas × the limit tries).
// A source is an IPv4 address (an IPv4-mapped IPv6 address is its IPv4 address) or an IPv6 /64: one host holds
// a whole /64, so counting each IPv6 address on its own let one host try without limit. The names of configured
// users are never forgotten to make room: thousands of made-up names (from many sources) pushed a real user's
// failures out of memory, and that user's name could be tried again at once.
import { sourceKey } from "../source-address.js";

/** Names and sources remembered at most; past it the oldest entries go (an attacker cannot grow memory). */
const MAX_KEYS = 10_000;
/** A name's failures from every source together that lock it everywhere, as a multiple of `perUser`. */
export const USER_WIDE_FACTOR = 10;

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  private readonly kept: ReadonlySet<string>;

  constructor(
    private readonly limits: { perUser: number; perSource: number; windowMs: number },
    private readonly now: () => number,
    /** The configured user names: their counts stay however many other names fail. */
    users: Iterable<string> = [],
  ) {
    this.kept = new Set([...users].map((name) => `user:${name.toLowerCase()}`));
  }

  /** Milliseconds to wait before this user may try again from this source (0: may try now). */
  wait(user: string, source: string): number {
    const [pair, name, from] = keysOf(user, source);
    return Math.max(
      this.waitFor(pair, this.limits.perUser),
      this.waitFor(name, this.limits.perUser * USER_WIDE_FACTOR),
      this.waitFor(from, this.limits.perSource),
    );
  }

  failed(user: string, source: string): void {
    for (const key of keysOf(user, source)) this.add(key);
  }

  /**
   * Counts a login as failed before its password is checked, so logins sent all at once are counted as they
   * come (checked after, twenty sent together were all let through to the password check, past a limit of 5);
   * `release` takes it back when the password was right.
   */
  attempt(user: string, source: string): { release(): void } {
    const at = this.now();
    const keys = keysOf(user, source);
    for (const key of keys) this.add(key, at);
    return {
      release: () => {
        for (const key of keys) {
          const times = this.failures.get(key);
          const index = times?.indexOf(at) ?? -1;
          if (times && index >= 0) times.splice(index, 1);
        }
      },
    };
  }

  /** A right password: this user's failures from this source are forgotten (not those from elsewhere). */
  succeeded(user: string, source: string): void {
    this.failures.delete(keysOf(user, source)[0]);
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

  private add(key: string, at = this.now()): void {
    const times = this.recent(key);
    times.push(at);
    this.failures.delete(key);
    this.failures.set(key, times.slice(-1000));
    if (this.failures.size <= MAX_KEYS) return;
    for (const oldest of this.failures.keys()) {
      if (this.failures.size <= MAX_KEYS) break;
      if (!this.kept.has(oldest)) this.failures.delete(oldest);
    }
  }
}

/**
 * The keys a login counts under: the name from this source, the name from anywhere (kept however many other keys
 * come, for a configured user), and the source.
 */
function keysOf(user: string, source: string): [pair: string, name: string, from: string] {
  const name = user.toLowerCase();
  const from = sourceKey(source);
  return [`pair:${name}@${from}`, `user:${name}`, `source:${from}`];
}
