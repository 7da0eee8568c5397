// The parsed YAML document as plain values for the schema, and the way back from a value's path to its place
// in the file. Numbers are handed over as their source text (so money keeps "350.10" and phones their
// leading zero); a key with an empty value counts as absent, so its default applies.
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, type Scalar } from "yaml";
import { interpolate } from "./interpolate.js";
import { type CollapsedRun, type FieldPlace, placeholderRun, type RecordPlace } from "./long-lists.js";

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
  /** Of the collapsed runs given, those found where they were put (long-lists.ts). */
  runsFound: number;
}

/** The collapsed runs of a document whose every run was found, for `locate`. */
const documentRuns = new WeakMap<Document, Map<string, CollapsedRun>>();

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

export function toPlain(
  doc: Document,
  source: string,
  env: NodeJS.ProcessEnv,
  runs?: Map<string, CollapsedRun>,
): PlainDocument {
  const found = new Set<CollapsedRun>();
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
    if (isSeq(node)) {
      const out: unknown[] = [];
      for (const item of node.items) {
        const run = runAt(node, item);
        if (!run) {
          out.push(convert(item, [...path, out.length]));
          continue;
        }
        found.add(run);
        if (aliasDepth > 0) {
          expanded += run.values.reduce<number>((n, value) => n + nodesOf(value), 0);
          // Past the cap: the next value counted sets `exhausted`, as for any other value.
          if (expanded > MAX_ALIAS_NODES) return convert(null, path);
        }
        for (const value of run.values) out.push(typeof value === "string" ? value : record(value));
      }
      return out;
    }
    if (isPair(node)) {
      const key = keyText(node.key);
      return define({}, key, convert(node.value, [...path, key]));
    }
    return node ?? null;
  }

  /** A collapsed mapping as the parser's nodes would have become: a fresh copy, its secrets noted. */
  function record(value: Record<string, string | boolean | string[]>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === "string" && isSecret(key, field)) secrets.push(field);
      define(out, key, Array.isArray(field) ? [...field] : field);
    }
    return out;
  }

  /** The collapsed run a block sequence's item stands for: its placeholder, exactly where it was put. */
  function runAt(seq: { flow?: boolean | undefined }, item: unknown): CollapsedRun | undefined {
    if (!runs || seq.flow || !isScalar(item) || item.type !== "QUOTE_DOUBLE") return undefined;
    const run = placeholderRun(runs, item.value);
    return run && item.range?.[0] === run.at ? run : undefined;
  }

  const value = convert(doc.contents, []);
  if (runs && found.size === runs.size) documentRuns.set(doc, runs);
  const result = { value, problems, secrets, runsFound: found.size };
  return exhausted ? { ...result, exhausted } : result;
}

/** The values `convert` would have counted for a collapsed item: itself, and each key's value and list items. */
function nodesOf(value: string | Record<string, string | boolean | string[]>): number {
  if (typeof value === "string") return 1;
  let count = 1;
  for (const field of Object.values(value)) count += 1 + (Array.isArray(field) ? field.length : 0);
  return count;
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
    const next = step(node, segment, documentRuns.get(doc));
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

/** An item of a collapsed run in `locate`: where it is, and for a mapping where its parts are. */
interface CollapsedItem {
  collapsed: true;
  range: [number, number, number];
  place?: RecordPlace;
  items?: number[];
}

function at(offset: number): [number, number, number] {
  return [offset, offset, offset];
}

function step(
  node: unknown,
  segment: PropertyKey,
  runs: Map<string, CollapsedRun> | undefined,
): { value: unknown; key?: Node } | undefined {
  if (isCollapsed(node)) {
    // Inside a collapsed mapping: a key, then a list value's item.
    const field: FieldPlace | undefined = node.place?.get(String(segment));
    if (field)
      return { value: { range: at(field.value), items: field.items }, key: { range: at(field.key) } as Node };
    const item = typeof segment === "number" ? node.items?.[segment] : undefined;
    return item === undefined ? undefined : { value: { range: at(item) } };
  }
  if (isMap(node)) {
    const pair = node.items.find((item) => keyText(item.key) === String(segment));
    if (!pair) return undefined;
    return { value: pair.value, key: isNodeLike(pair.key) ? pair.key : undefined };
  }
  if (isSeq(node) && typeof segment === "number") {
    if (!runs) {
      const item = node.items[segment];
      return item === undefined ? undefined : { value: item };
    }
    // Items of a collapsed run are not nodes: their place comes from the run.
    let index = segment;
    for (const item of node.items) {
      const candidate = isScalar(item) && !node.flow ? placeholderRun(runs, item.value) : undefined;
      const run = candidate && isScalar(item) && item.range?.[0] === candidate.at ? candidate : undefined;
      if (!run) {
        if (index === 0) return { value: item };
        index--;
        continue;
      }
      if (index < run.values.length) {
        const offset = run.offsets[index] ?? run.at;
        const item: CollapsedItem = { collapsed: true, range: at(offset), place: run.places?.[index] };
        return { value: item };
      }
      index -= run.values.length;
    }
    return undefined;
  }
  return undefined;
}

function isCollapsed(value: unknown): value is CollapsedItem {
  return typeof value === "object" && value !== null && (value as Partial<CollapsedItem>).collapsed === true;
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "range" in value;
}
