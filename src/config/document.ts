// The parsed YAML document as plain values for the schema, and the way back from a value's path to its place
// in the file. Numbers are handed over as their source text (so money keeps "350.10" and phones their
// leading zero); a key with an empty value counts as absent, so its default applies.
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, type Scalar } from "yaml";
import { interpolate } from "./interpolate.js";

export type PathSegment = string | number;

export interface PathProblem {
  path: PathSegment[];
  /** Offset in the source text. */
  offset: number;
  message: string;
}

export interface PlainDocument {
  value: unknown;
  /** Interpolation problems, each at the reference's own offset. */
  problems: PathProblem[];
  /** Values of secret-looking keys after interpolation, to be kept out of every message. */
  secrets: string[];
  /** Set when aliases expand to more than MAX_ALIAS_NODES values (an "alias bomb"); the value is then partial. */
  exhausted?: PathProblem;
}

/**
 * How many values aliases may expand to in one document. Each `*name` copies its anchor's whole subtree, so a
 * few nested aliases in a few hundred bytes can ask for billions of values; a real config reuses a handful of
 * small blocks. The `yaml` package's own `maxAliasCount` guards only its `toJS`, which this loader does not
 * use: this count is the guard for the conversion below.
 */
export const MAX_ALIAS_NODES = 10_000;

/** Keys whose values never appear in output: api keys, passwords, tokens, and URLs that carry credentials. */
const SECRET_KEY = /(?:^|_)(?:api_?key|password|secret|token)$/i;
const URL_KEY = /(?:^|_)url$/i;

function isSecret(key: PathSegment | undefined, value: string): boolean {
  if (typeof key !== "string" || value === "") return false;
  return SECRET_KEY.test(key) || (URL_KEY.test(key) && value.includes("@"));
}

export function toPlain(doc: Document, source: string, env: NodeJS.ProcessEnv): PlainDocument {
  const problems: PathProblem[] = [];
  const secrets: string[] = [];
  const resolving = new Set<unknown>();
  let aliasDepth = 0;
  let expanded = 0;
  let exhausted: PathProblem | undefined;
  // The outermost alias being expanded: where the problem is reported (an anchor's inside may be far away).
  let outermost: { path: PathSegment[]; offset: number } = { path: [], offset: 0 };

  function scalar(node: Scalar, path: PathSegment[]): unknown {
    const { value } = node;
    if (typeof value === "number" || typeof value === "bigint") return node.source ?? String(value);
    if (typeof value !== "string") return value;
    const result = interpolate(value, env);
    const start = node.range?.[0] ?? 0;
    const raw = source.slice(start, node.range?.[1] ?? start);
    for (const problem of result.problems) {
      const needle = problem.variable !== undefined ? `\${${problem.variable}` : "${";
      const at = raw.indexOf(needle);
      problems.push({ path, offset: at >= 0 ? start + at : start, message: problem.message });
    }
    if (isSecret(path[path.length - 1], result.value)) secrets.push(result.value);
    return result.value;
  }

  function convert(node: unknown, path: PathSegment[]): unknown {
    if (exhausted) return null;
    if (aliasDepth > 0 && ++expanded > MAX_ALIAS_NODES) {
      exhausted = {
        ...outermost,
        message: `aliases expand to more than ${MAX_ALIAS_NODES} values; write the values out or use fewer nested aliases`,
      };
      return null;
    }
    if (isAlias(node)) {
      if (aliasDepth === 0) outermost = { path, offset: node.range?.[0] ?? 0 };
      const target = node.resolve(doc);
      if (target === undefined) {
        problems.push({ path, offset: node.range?.[0] ?? 0, message: `unknown anchor "*${node.source}"` });
        return null;
      }
      if (resolving.has(target)) return null;
      resolving.add(target);
      aliasDepth++;
      const value = convert(target, path);
      aliasDepth--;
      resolving.delete(target);
      return value;
    }
    if (isScalar(node)) return scalar(node, path);
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        if (isEmpty(pair.value)) continue;
        const key = keyText(pair.key);
        define(out, key, convert(pair.value, [...path, key]));
      }
      return out;
    }
    if (isSeq(node)) return node.items.map((item, index) => convert(item, [...path, index]));
    if (isPair(node)) {
      const key = keyText(node.key);
      return define({}, key, convert(node.value, [...path, key]));
    }
    return node ?? null;
  }

  const value = convert(doc.contents, []);
  return exhausted ? { value, problems, secrets, exhausted } : { value, problems, secrets };
}

function isEmpty(node: unknown): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

function keyText(key: unknown): string {
  if (isScalar(key)) return typeof key.value === "string" ? key.value : (key.source ?? String(key.value));
  return String(key);
}

/** Sets a key without letting `__proto__` or friends touch the prototype. */
function define(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

export interface Located {
  /** Offset of the node the path names or, when it is missing or empty, of the nearest place above it. */
  offset: number;
  /** The whole path exists in the file. */
  found: boolean;
  /** The whole path exists but its value is empty (`key:` with nothing after it). */
  empty: boolean;
  /** Offset of the last key on the way, when the path ends in a key that exists. */
  keyOffset: number | undefined;
}

/** Where a value's path is in the file: the node itself, or as near to it as the file goes. */
export function locate(doc: Document, path: readonly PropertyKey[]): Located {
  let node: unknown = doc.contents;
  let nearest = offsetOf(node) ?? 0;
  let keyOffset: number | undefined;
  let depth = 0;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    const next = step(node, segment);
    if (!next) break;
    node = next.value;
    keyOffset = offsetOf(next.key);
    nearest = keyOffset ?? offsetOf(node) ?? nearest;
    depth++;
  }
  const found = depth === path.length;
  const empty = found && isEmpty(node);
  const offset = found && !empty ? (offsetOf(node) ?? nearest) : nearest;
  return { offset, found, empty, keyOffset: found ? keyOffset : undefined };
}

function offsetOf(node: unknown): number | undefined {
  return isNodeLike(node) ? node.range?.[0] : undefined;
}

function step(node: unknown, segment: PropertyKey): { value: unknown; key?: Node } | undefined {
  if (isMap(node)) {
    const pair = node.items.find((item) => keyText(item.key) === String(segment));
    if (!pair) return undefined;
    return { value: pair.value, key: isNodeLike(pair.key) ? pair.key : undefined };
  }
  if (isSeq(node) && typeof segment === "number") {
    const item = node.items[segment];
    return item === undefined ? undefined : { value: item };
  }
  return undefined;
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "range" in value;
}
