import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/text/inert.js
var CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
var CONTROL_BUT_NEWLINE = (
  // biome-ignore lint/suspicious/noControlCharactersInRegex: as above, line feed (\u000a) left out
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g
);
var NAMED = { "\n": "\\n", "\r": "\\r", "	": "\\t" };
function escapeOne(char) {
  const named = NAMED[char];
  if (named)
    return named;
  const code = char.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  return code <= 255 ? `\\x${hex.padStart(2, "0")}` : `\\u${hex.padStart(4, "0")}`;
}
function inert(text) {
  return text.replace(CONTROL, escapeOne);
}
function inertLines(text) {
  return text.replace(CONTROL_BUT_NEWLINE, escapeOne);
}
var FORMULA_START = /^[=+\-@\t\r]/;
function csvCell(value) {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export {
  inert,
  inertLines,
  csvCell
};
