// Wording of schema issues for people editing YAML: the parse-wide error map, "unknown key (did you mean …)",
// and keeping secrets out of every message.
import type * as z from "zod";
import { redactSecretForms } from "../text/secrets.js";
import { show } from "./fields.js";

const NOUNS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a mapping",
  array: "a list",
};

function plural(count: number | bigint, word: string): string {
  return `${count} ${word}${Number(count) === 1 ? "" : "s"}`;
}

/** Messages for issues the field schemas leave to the parse (required keys, types, sizes, enums). */
export function configErrorMap(issue: z.core.$ZodRawIssue): string | undefined {
  const got = show(issue.input);
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `expected ${NOUNS[issue.expected] ?? `a ${issue.expected}`}, got ${got}`;
    case "too_small":
      if (issue.origin === "string")
        return issue.minimum === 1
          ? "must not be empty"
          : `must be at least ${plural(issue.minimum, "character")}`;
      if (issue.origin === "array") return `must have at least ${plural(issue.minimum, "item")}`;
      return `must be ${issue.inclusive === false ? "greater than" : "at least"} ${issue.minimum}, got ${got}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${plural(issue.maximum, "character")}`;
      if (issue.origin === "array") return `must have at most ${plural(issue.maximum, "item")}`;
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}, got ${got}`;
    case "invalid_value": {
      const values = issue.values.map((value) => JSON.stringify(value));
      return `expected ${values.length === 1 ? values[0] : `one of ${values.join(", ")}`}, got ${got}`;
    }
    case "invalid_union":
      return `does not match any allowed form, got ${got}`;
    case "invalid_format":
      return `has the wrong format, got ${got}`;
    case "invalid_key":
      // A record's key that broke its rule (a user's, an approver's or a channel's name): the rule's own words,
      // where zod says only "Invalid key in record".
      return issue.issues[0]?.message;
    default:
      return undefined;
  }
}

/** Levenshtein distance, enough to catch a missed underscore or a swapped letter. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known key closest to a misspelt one, when it is close enough to be a typo. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const simple = (text: string) => text.toLowerCase().replaceAll("-", "_");
  const limit = Math.max(1, Math.floor(key.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = distance(simple(key), simple(candidate));
    if (d <= limit && (best === undefined || d < best.distance)) best = { key: candidate, distance: d };
  }
  return best?.key;
}

export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const suggestion = closestKey(key, known);
  if (suggestion !== undefined) return `unknown key (did you mean "${suggestion}"?)`;
  return known.length > 0 ? `unknown key (allowed here: ${known.join(", ")})` : "unknown key";
}

/** The parts of a zod definition needed to find which keys an object at some path accepts. */
interface Def {
  type: string;
  innerType?: Walkable;
  in?: Walkable;
  options?: Walkable[];
  shape?: Record<string, Walkable>;
  element?: Walkable;
  getter?: () => Walkable;
}
interface Walkable {
  _zod: { def: Def };
}

/** The object schemas a value at `path` may match, looking through optional/default/pipe/union wrappers. */
function objectsAt(schema: Walkable, path: readonly PropertyKey[]): Def[] {
  const def = schema._zod.def;
  const inner = def.innerType ?? def.in ?? def.getter?.();
  if (inner) return objectsAt(inner, path);
  if (def.type === "union") return (def.options ?? []).flatMap((option) => objectsAt(option, path));
  if (path.length === 0) return def.type === "object" ? [def] : [];
  const [head, ...rest] = path;
  if (def.type === "object") {
    const child = def.shape?.[String(head)];
    return child ? objectsAt(child, rest) : [];
  }
  if (def.type === "array" && def.element && typeof head === "number") return objectsAt(def.element, rest);
  return [];
}

/** Keys an object at `path` of `schema` accepts. */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = objectsAt(schema as unknown as Walkable, path).flatMap((def) => Object.keys(def.shape ?? {}));
  return [...new Set(keys)];
}

/**
 * Replaces every secret value in a message by `***`, longest first so no fragment survives; in every form it
 * may be written (any case, percent-encoded, base64: src/text/secrets.ts).
 */
export function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 3) out = redactSecretForms(out.replaceAll(secret, "***"), secret, "***");
  }
  return out;
}
