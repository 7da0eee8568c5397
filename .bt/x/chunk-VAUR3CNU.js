import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/reseller/size.js
var SIZE = /^\s*(\d+(?:\.\d+)?)\s*(MB|GB|TB|M|G|T)?\s*$/i;
var MB_PER_UNIT = {
  M: 1,
  MB: 1,
  G: 1024,
  GB: 1024,
  T: 1024 * 1024,
  TB: 1024 * 1024
};
function parseSizeMb(text) {
  const match = SIZE.exec(text);
  if (!match)
    return null;
  const unit = (match[2] ?? "MB").toUpperCase();
  const mb = Number(match[1]) * (MB_PER_UNIT[unit] ?? 1);
  return Number.isFinite(mb) ? Math.round(mb) : null;
}
function formatSizeMb(mb) {
  if (mb >= 1024 && mb % 1024 === 0)
    return `${mb / 1024}GB`;
  if (mb >= 1024)
    return `${Number((mb / 1024).toFixed(2))}GB`;
  return `${mb}MB`;
}

export {
  parseSizeMb,
  formatSizeMb
};
