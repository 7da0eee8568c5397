// The canonical text of a plan's items and its digest: what the ledger records, what approvers sign, and what
// `apply` recomputes from the file. One value has one text, whatever order its keys or items came in.
import { createHash } from "node:crypto";

export type Canonical = string | boolean | null | Canonical[] | { [key: string]: Canonical };

/**
 * RFC 8785 (JSON Canonicalization Scheme) for the values plans hold: object keys sorted by UTF-16 code units, no
 * whitespace, strings escaped as JSON.stringify escapes them. Plans hold no numbers (amounts are decimal strings,
 * instants ISO strings), so a number is refused rather than given one of its many texts.
 */
export function canonicalJson(value: Canonical): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value !== "object") throw new TypeError(`a plan holds no ${typeof value} values`);
  if (flatAndSorted(value)) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(",")}}`;
}

/**
 * An object whose keys are already in canonical order and whose values are all strings, booleans or null: its
 * JSON.stringify text is its canonical text (the common case of items built in that order, and the fast one).
 */
function flatAndSorted(value: { [key: string]: Canonical }): boolean {
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && previous >= key) return false;
    const v = value[key];
    if (v !== null && typeof v !== "string" && typeof v !== "boolean") return false;
    previous = key;
  }
  return true;
}

/**
 * The digest of a plan's items: `sha256:` and the hex SHA-256 of the canonical JSON of the items sorted by
 * their `key` (a purchase's request key, a website change's domain and action), so the order a file lists them in
 * does not matter and nothing else in the file is covered.
 */
export function itemsDigest<T extends { [key: string]: Canonical }>(
  items: readonly T[],
  key: (item: T) => string,
): string {
  const keyed = items.map((item) => ({ sort: key(item), item }));
  keyed.sort((a, b) => (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));
  const hash = createHash("sha256");
  hash.update("[");
  keyed.forEach(({ item }, i) => {
    if (i > 0) hash.update(",");
    hash.update(canonicalJson(item));
  });
  hash.update("]");
  return `sha256:${hash.digest("hex")}`;
}
