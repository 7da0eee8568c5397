// Durations as config writes them ("500ms", "30s", "10m", "24h", "7d", "1h30m") parsed to milliseconds.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const WHOLE = /^(\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds for a duration string; throws a RangeError saying what a duration looks like. */
export function parseDuration(text: string): number {
  const value = text.trim();
  if (!WHOLE.test(value)) {
    throw new RangeError(`"${text}" is not a duration (use a number and a unit: 500ms, 30s, 10m, 24h, 7d)`);
  }
  let total = 0;
  for (const [, amount, unit] of value.matchAll(PART)) total += Number(amount) * (UNIT_MS[unit!] ?? 0);
  return Math.round(total);
}

/** The shortest readable form of a duration in milliseconds: 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("");
}
