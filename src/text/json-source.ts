// The JSON text a parsed answer came from, remembered beside the value (by the object itself, so it goes when the
// value does): storing the answer then writes that text, which is the answer as the provider wrote it, instead of
// serialising the value again — the largest part of recording an answer. Only text whose value is exactly what
// JSON.parse made of it (no number kept exact as text, no string made storable) is remembered, and the value is
// never changed after (answers are read, not written).

const sources = new WeakMap<object, string>();

/** Remembers `text` as the JSON of `value`, an object or array JSON.parse made of it and nothing has changed since. */
export function rememberJsonText(value: unknown, text: string): void {
  if (typeof value === "object" && value !== null) sources.set(value, text);
}

/** The JSON text `value` was parsed from, if remembered. */
export function jsonTextOf(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? sources.get(value) : undefined;
}
