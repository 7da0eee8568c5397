// Bounds on what is kept of text from outside: a provider answer stored in the event log, a provider status
// or reason in a column. Whatever a service sends, a row stays small enough to read back and print. A cut never
// splits a character (storable.ts).
import { jsonTextOf } from "./json-source.js";
import { cutText } from "./storable.js";

/** Characters of a provider's answer kept in one event (its JSON text); the rest is cut with a marker. */
export const MAX_STORED_RESPONSE_CHARS = 64 * 1024;
/** Characters kept of one piece of provider text in a column (a status, a reason). */
export const MAX_STORED_TEXT_CHARS = 2000;

/** Text cut to `max` characters, with a marker saying how much was left out. */
export function capText(text: string, max = MAX_STORED_TEXT_CHARS): string {
  if (text.length <= max) return text;
  const kept = cutText(text, max);
  return `${kept}… [truncated: ${text.length - kept.length} more characters]`;
}

/**
 * A provider's answer as stored: as it came when its JSON text is within the limit, else a marker object
 * with the first characters of that text and its full length.
 */
export function cappedResponse(value: unknown, max = MAX_STORED_RESPONSE_CHARS): unknown {
  if (value === undefined || value === null) return null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === undefined || text.length <= max) return value;
  return truncatedAnswer(text, max);
}

/**
 * `JSON.stringify(cappedResponse(value))`, serialising the answer once: the length check's text is the stored
 * text; an answer parsed from JSON text is that text, not serialised again. Undefined where that JSON has no value
 * (the answer is a function or a symbol).
 */
export function cappedResponseJson(value: unknown, max = MAX_STORED_RESPONSE_CHARS): string | undefined {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return JSON.stringify(cappedResponse(value, max));
  // An answer as the HTTP client parsed it: the text it came from (json-source.ts), when within the limit.
  const source = jsonTextOf(value);
  if (source !== undefined && source.length <= max) return source;
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined || text.length <= max) return text;
  return JSON.stringify(truncatedAnswer(text, max));
}

/** The marker stored in place of an answer whose JSON text is over the limit. */
function truncatedAnswer(text: string, max: number): { truncated: true; length: number; head: string } {
  return { truncated: true, length: text.length, head: cutText(text, max) };
}
