import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/duration.js
var UNIT_MS = { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 };
var WHOLE = /^(\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
var PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
function parseDuration(text) {
  const value = text.trim();
  if (!WHOLE.test(value)) {
    throw new RangeError(`"${text}" is not a duration (use a number and a unit: 500ms, 30s, 10m, 24h, 7d)`);
  }
  let total = 0;
  for (const [, amount, unit] of value.matchAll(PART))
    total += Number(amount) * (UNIT_MS[unit] ?? 0);
  return Math.round(total);
}
function formatDuration(ms) {
  if (ms < 1e3)
    return `${Math.round(ms)}ms`;
  const parts = [];
  let rest = Math.round(ms / 1e3);
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1]
  ]) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("");
}

export {
  parseDuration,
  formatDuration
};
