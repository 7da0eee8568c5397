// Text from outside made storable: PostgreSQL's text and JSON hold neither the NUL character nor half of a UTF-16
// surrogate pair ("unsupported Unicode escape sequence", "invalid byte sequence for encoding UTF8: 0x00"), and one
// such character in a provider's answer would fail the statement that records it — and every purchase batched
// with it. Each is stored as U+FFFD, the character that stands for one that could not be kept.

/** In JSON text: an escape that parses to NUL or to a surrogate (paired ones too: the cheap test is the text's). */
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;
/** In a string: NUL, or a surrogate without its other half. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Whether JSON text may parse to strings `storable` would change (false: it cannot). Asked of every answer and every
 * batch of transitions: a search for `\u` first, which almost no answer holds (a tenth of the pattern's cost).
 */
export function mayHoldUnstorable(jsonText: string): boolean {
  return jsonText.includes("\\u") && UNSTORABLE_ESCAPE.test(jsonText);
}

/** `text` with each NUL and each unpaired surrogate replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, "\uFFFD");
}

/**
 * A parsed JSON value with every string (keys too) storable: the same value when nothing needed to change,
 * else the value with its strings changed in place (a key that changes moves to the end of its object).
 */
export function storable(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = storable(value[i]);
    return value;
  }
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const clean = storableText(key);
      const inner = storable(record[key]);
      if (clean === key) {
        // An own data property: assignment sets it, even one named "__proto__" (JSON.parse makes it own).
        record[key] = inner;
        continue;
      }
      delete record[key];
      Object.defineProperty(record, clean, {
        value: inner,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return value;
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would leave the first half of a surrogate pair at
 * the end (a character cut in two is not storable).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
