// Timestamps as both services write them: ISO 8601 UTC with microseconds and a trailing Z.

/** "2026-11-22T10:00:00.123456Z"; the sub-millisecond digits come from the monotonic clock. */
export function isoMicros(date: Date): string {
  const micros = String(Math.floor((performance.now() % 1) * 1000)).padStart(3, "0");
  return date.toISOString().replace(/Z$/, `${micros}Z`);
}
