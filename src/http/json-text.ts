// Parsing an answer's JSON text without losing what the provider wrote: a number JSON.parse would round (an
// integer beyond 2^53, a decimal with more digits than a double holds) is kept as its exact source text.
//
// PostgreSQL's text and JSON hold no NUL character and no unpaired surrogate: strings that hold one (written in the
// text as a \u escape) are made storable (src/text/storable.ts), so that an answer recording it never fails the
// ledger's statement.
import { parse as parseLossless } from "lossless-json";
import { rememberJsonText } from "../text/json-source.js";
import { mayHoldUnstorable, storable } from "../text/storable.js";

/**
 * A number (after `:`, `[` or `,`) long enough that a double may not hold it, or with an exponent that String()
 * would rewrite. Text inside strings can match too; that only takes the slower exact path.
 */
const MAY_LOSE_DIGITS = /[:[,]\s*-?(?:\d[\d.]{15,}|\d+(?:\.\d+)?[eE])/;

/**
 * The parsed value, or undefined when the text is not JSON (or empty). A byte order mark before it is ignored, as
 * RFC 8259 lets a reader do: a provider (or its notifications) that sends one sends it on every answer.
 */
export function parseJsonExact(source: string): unknown {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (text.trim() === "") return undefined;
  try {
    // The fast path: nothing in the text that JSON.parse could round.
    if (MAY_LOSE_DIGITS.test(text)) {
      const value = parseLossless(text, null, exactNumber);
      return mayHoldUnstorable(text) ? storable(value) : value;
    }
    const value = JSON.parse(text);
    if (mayHoldUnstorable(text)) return storable(value);
    // The text is then the value's JSON, as the provider wrote it: an answer stored is stored as this text.
    rememberJsonText(value, text);
    return value;
  } catch {
    return undefined;
  }
}

/** A number whose shortest double form is its source text stays a number; any other keeps its text. */
function exactNumber(source: string): number | string {
  const value = Number(source);
  return String(value) === source ? value : source;
}
