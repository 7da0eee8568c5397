// Personal data out of output: phone numbers masked as 0803****567 unless an operator asks to see them.

const NATIONAL = /^0\d{10}$/;
/** Where each script's digit zero is: ASCII, full-width (pasted from a CJK keyboard), Arabic-Indic, extended Arabic-Indic. */
const ZEROS = [0x30, 0xff10, 0x660, 0x6f0];
/** A regular expression class of the digits `values` (e.g. "789") in every script of ZEROS. */
const digits = (values: string) =>
  `[${ZEROS.flatMap((zero) => [...values].map((v) => `\\u${(zero + Number(v)).toString(16).padStart(4, "0")}`)).join("")}]`;
const D = digits("0123456789");
/**
 * What people and providers write between groups of digits: a space (also a no-break, figure or narrow one), a
 * dot, a dash (also a hyphen, a no-break hyphen, an en dash) or a slash.
 */
const SEP = "[ .\\-/\\u00a0\\u2007\\u202f\\u2010-\\u2013]?";
/**
 * Nigerian mobile numbers in running text, not inside longer digit runs, as people and providers write them:
 * 0 + 10 digits, 234/+234 + 10 digits, +234 0… and +234 (0)…, the 10 digits alone, with a separator between any
 * digits and the first group in parentheses: `08031234567`, `+234 803 123 4567`, `+234 (0) 803 123 4567`,
 * `0802.123.4567`, `(0803) 123-4567`, `+23408031234567`, `803 123 4567`, in any of ZEROS' digits.
 */
const IN_TEXT = new RegExp(
  `(?<!${D})(?:[+\\uff0b]?${digits("2")}${digits("3")}${digits("4")}${SEP}(?:[(\\uff08]${digits("0")}[)\\uff09]${SEP}|${digits("0")}${SEP})?|[(\\uff08]?${digits("0")}|)` +
    `(${digits("789")})${SEP}(${digits("01")})${SEP}(${D})[)\\uff09]?${SEP}(${D})${SEP}(${D})${SEP}(${D})${SEP}(${D})${SEP}(${D})${SEP}(${D})${SEP}(${D})(?!${D})`,
  "g",
);

/**
 * Any other country's number in its international form, as a CRM or a person writes it: a plus, then 8 to 15 digits
 * (E.164's bound) with the same separators and parenthesised groups, not part of a longer digit run or a word:
 * `+44 7911 123456`, `+1 (415) 555-2671`. An intake row or a recipients file may hold one (refused as not
 * Nigerian, but still someone's number).
 */
const INTERNATIONAL = new RegExp(
  `(?<![0-9A-Za-z+\uff0b])[+\uff0b]((?:${SEP}[(\uff08]?${D}[)\uff09]?){8,15})(?!${SEP}${D})`,
  "g",
);
const DIGIT = new RegExp(D, "g");

/** A digit of any script in ZEROS as its ASCII digit. */
function asciiDigit(digit: string): string {
  const code = digit.charCodeAt(0);
  const zero = ZEROS.find((z) => code >= z && code < z + 10) ?? 0x30;
  return String(code - zero);
}

/** "08031234567" → "0803****567"; other shapes keep their first 4 and last 3 characters. */
export function maskPhone(phone: string): string {
  const value = phone.trim();
  if (NATIONAL.test(value)) return `${value.slice(0, 4)}****${value.slice(-3)}`;
  if (value.length <= 7) return "*".repeat(value.length);
  return `${value.slice(0, 4)}${"*".repeat(value.length - 7)}${value.slice(-3)}`;
}

/** Masks every phone number found in a piece of text: Nigerian ones as 0803****567, others as +44*******456. */
export function maskPhonesIn(text: string): string {
  const national = text.replace(IN_TEXT, (...match: string[]) =>
    maskPhone(`0${match.slice(1, 11).map(asciiDigit).join("")}`),
  );
  if (!national.includes("+") && !national.includes("\uff0b")) return national;
  return national.replace(INTERNATIONAL, (_whole, groups: string) => {
    const digits = (groups.match(DIGIT) ?? []).map(asciiDigit).join("");
    return `+${digits.slice(0, 2)}${"*".repeat(digits.length - 5)}${digits.slice(-3)}`;
  });
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
