import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/log/mask.js
var NATIONAL = /^0\d{10}$/;
var SEP = "[ .\\-]?";
var IN_TEXT = new RegExp(`(?<!\\d)(?:\\+?234${SEP}(?:\\(0\\)${SEP}|0${SEP})?|\\(?0)([789])${SEP}([01])${SEP}(\\d)\\)?${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)(?!\\d)`, "g");
function maskPhone(phone) {
  const value = phone.trim();
  if (NATIONAL.test(value))
    return `${value.slice(0, 4)}****${value.slice(-3)}`;
  if (value.length <= 7)
    return "*".repeat(value.length);
  return `${value.slice(0, 4)}${"*".repeat(value.length - 7)}${value.slice(-3)}`;
}
function maskPhonesIn(text) {
  return text.replace(IN_TEXT, (...match) => maskPhone(`0${match.slice(1, 11).join("")}`));
}
function maskPhonesDeep(value, depth = 0) {
  if (typeof value === "string")
    return maskPhonesIn(value);
  if (depth > 8 || typeof value !== "object" || value === null)
    return value;
  if (Array.isArray(value))
    return value.map((item) => maskPhonesDeep(item, depth + 1));
  if (value instanceof Error || value instanceof Date)
    return value;
  const copy = {};
  for (const [key, item] of Object.entries(value))
    copy[key] = maskPhonesDeep(item, depth + 1);
  return copy;
}

export {
  maskPhone,
  maskPhonesIn,
  maskPhonesDeep
};
