// Personal data out of output: phone numbers masked as 0803****567 unless an operator asks to see them.

const NATIONAL = /^0\d{10}$/;
/** A space, dot or dash people and providers write between groups of digits. */
const SEP = "[ .\\-]?";
/**
 * Nigerian mobile numbers in running text, not inside longer digit runs, as people and providers write them:
 * 0 + 10 digits, 234/+234 + 10 digits, +234 0… and +234 (0)…, with a space, dot or dash between any digits
 * and the first group in parentheses: `08031234567`, `+234 803 123 4567`, `+234 (0) 803 123 4567`,
 * `0802.123.4567`, `(0803) 123-4567`, `+23408031234567`.
 */
const IN_TEXT = new RegExp(
  `(?<!\\d)(?:\\+?234${SEP}(?:\\(0\\)${SEP}|0${SEP})?|\\(?0)` +
    `([789])${SEP}([01])${SEP}(\\d)\\)?${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)${SEP}(\\d)(?!\\d)`,
  "g",
);

/** "08031234567" → "0803****567"; other shapes keep their first 4 and last 3 characters. */
export function maskPhone(phone: string): string {
  const value = phone.trim();
  if (NATIONAL.test(value)) return `${value.slice(0, 4)}****${value.slice(-3)}`;
  if (value.length <= 7) return "*".repeat(value.length);
  return `${value.slice(0, 4)}${"*".repeat(value.length - 7)}${value.slice(-3)}`;
}

/** Masks every phone number found in a piece of text. */
export function maskPhonesIn(text: string): string {
  return text.replace(IN_TEXT, (...match: string[]) => maskPhone(`0${match.slice(1, 11).join("")}`));
}

/** A deep copy of a value with every phone number in its strings masked. */
export function maskPhonesDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return maskPhonesIn(value);
  if (depth > 8 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskPhonesDeep(item, depth + 1));
  if (value instanceof Error || value instanceof Date) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = maskPhonesDeep(item, depth + 1);
  return copy;
}
