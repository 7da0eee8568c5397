// Text from outside (provider answers, CSV rows, references) shown as data, never as control: terminal
// escapes, carriage returns and bidi overrides are written out as visible escapes, and a CSV cell cannot
// start a spreadsheet formula.

/** C0 and C1 controls, DEL, and the invisible marks that reorder or hide text (bidi overrides, isolates). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this module's job
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const CONTROL_BUT_NEWLINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: as above, line feed (\u000a) left out
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  return code <= 0xff ? `\\x${hex.padStart(2, "0")}` : `\\u${hex.padStart(4, "0")}`;
}

/** One value for one line: every control character (newlines too) and bidi mark shown as an escape. */
export function inert(text: string): string {
  return text.replace(CONTROL, escapeOne);
}

/** Text that may span lines: as `inert`, but line breaks stay. */
export function inertLines(text: string): string {
  return text.replace(CONTROL_BUT_NEWLINE, escapeOne);
}

/** Characters a spreadsheet reads as the start of a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV cell a spreadsheet shows as text: one starting with = + - @ tab or CR gets a leading single quote, as
 * OWASP advises (the CSV writer then quotes it as needed).
 */
export function csvCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}
