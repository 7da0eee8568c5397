// Long lists — thousands of recipients or of websites inline — read without the YAML parser. The `yaml` package
// builds a node with its source range for every value (for error positions), some 25 µs each; a config of 10,000
// recipients or 10,000 websites spent most of its load there. A run of lines that are each one simple list item
// (`- "08031234567"`, `- 0803 123 4567`, `- '+2348031234567'`, a comment after it allowed), or of simple
// mappings (`- domain: shop.example.com` with more `key: value` lines under it, whose values are plain or quoted
// words, or lists of them), is read here, by patterns, and the parser sees one placeholder item in its place; the
// placeholder is expanded back into the items when the document becomes plain values, and error positions inside
// the run come from here. Anything a pattern does not take for certain (a null, an interpolation, a nested
// mapping, a tab) ends the run, and the parser reads it.
//
// The run's other lines are taken out of the text the parser sees (the parser's cost is per line, blank ones
// too), and positions are mapped back: `originalOffset` turns an offset in the parsed text into one in the file,
// and the items of a run have their file offsets recorded here. Nothing is taken on trust: a run counts only if
// the parser found its placeholder exactly where it was put, as an item of a block sequence. If not (the lines
// were inside a block scalar, say) or the text has any parse error or warning, the caller parses the original
// text.

/** The items of one collapsed run: their values as the YAML parser would have given them, and their offsets. */
export interface CollapsedRun {
  /** Strings (a run of scalars) or records (a run of mappings: string, boolean and string-list values). */
  values: Array<string | RunRecord>;
  /** Where each item is in the file, as positions in the parsed text (see `originalOffset`). */
  offsets: number[];
  /** Of a run of mappings: where each record's keys, values and list items are, in the same positions. */
  places?: RecordPlace[];
  /** Offset of the placeholder's opening quote in the parsed text. */
  at: number;
}

export type RunRecord = Record<string, string | boolean | string[]>;

/** Where one key of a collapsed mapping is: the key, its value, and a list value's items. */
export interface FieldPlace {
  key: number;
  value: number;
  items?: number[];
}

export type RecordPlace = Map<string, FieldPlace>;

export interface Collapsed {
  /** The text the parser reads. */
  text: string;
  /** By placeholder value. */
  runs: Map<string, CollapsedRun>;
  /** The file's offset for an offset in `text`, or for an item offset of a run. */
  originalOffset(offset: number): number;
}

/**
 * Item offsets of a run are file offsets above this mark: the items have no place in the parsed text. Far above
 * any config (they are capped at a few MiB) and far below 2^53.
 */
const FILE_OFFSET = 2 ** 40;

/** Runs shorter than this are left to the parser: the point is long lists. */
export const MIN_RUN = 64;

// One list item on one line: indent, "- ", then a double- or single-quoted string or a plain scalar made only of
// digits, +, spaces, dots, dashes and brackets (what phone numbers are written with), then an optional comment.
// Such a scalar has no escapes, no interpolation and no YAML meaning but its text (a number's source text is
// what the loader keeps anyway).
// A comment needs a space before its #, as in YAML ("0803#1" is one plain scalar; '"0803"#1' an error).
const ITEM = /^( *)- (?:"([0-9+() .-]*)"|'([0-9+() .-]*)'|([0-9+(][0-9+() .-]*?))(?: +#.*| *)$/;
const PLACEHOLDER = (index: number) => `"\\0${index}"`;
/** A placeholder value: NUL then the run's number. */
const PLACEHOLDER_VALUE = /^\0(\d+)$/;

export function collapseLongLists(text: string): Collapsed | undefined {
  // A text that can spell a NUL could spell a placeholder: leave it to the parser.
  if (text.length < MIN_RUN * 4 || /\\0|\\x00|\\u0000|\\U00000000|\0/.test(text)) return undefined;
  const lines = text.split("\n");
  const starts: number[] = [];
  for (let i = 0, offset = 0; i < lines.length; i++) {
    starts.push(offset);
    offset += (lines[i] ?? "").length + 1;
  }
  const items = lines.map((line) => ITEM.exec(line));
  // A directive (%YAML 1.1) changes what plain words mean: mappings are then left to the parser.
  const records = !/^%/m.test(text);
  const runs = new Map<string, CollapsedRun>();
  const out: string[] = [];
  // Where text was taken out, in parsed-text offsets, and how much by then in all.
  const cuts: Array<{ at: number; removed: number }> = [];
  let removed = 0;
  // Mappings before this line were read as too short a run: not read again from each of their lines.
  let readUpTo = 0;
  let i = 0;
  while (i < lines.length) {
    let run = scalarRun(lines, items, i, starts);
    if (!run && records && i >= readUpTo) {
      const found = recordRun(lines, i, starts);
      if (found && "short" in found) readUpTo = found.short;
      else run = found;
    }
    if (!run) {
      out.push(lines[i] ?? "");
      i++;
      continue;
    }
    const { indent, end } = run;
    const start = (starts[i] ?? 0) - removed;
    const placeholder = `${" ".repeat(indent)}- ${PLACEHOLDER(runs.size)}`;
    out.push(placeholder);
    runs.set(`\0${runs.size}`, { ...run.items, at: start + indent + 2 });
    // The placeholder line stands for lines i..end-1: everything after it moves by the difference.
    const original = (end < lines.length ? (starts[end] ?? 0) : text.length + 1) - (starts[i] ?? 0);
    removed += original - (placeholder.length + 1);
    cuts.push({ at: start + placeholder.length + 1, removed });
    i = end;
  }
  if (runs.size === 0) return undefined;
  return {
    text: out.join("\n"),
    runs,
    originalOffset(offset) {
      if (offset >= FILE_OFFSET) return offset - FILE_OFFSET;
      let shift = 0;
      for (const cut of cuts) {
        if (offset < cut.at) break;
        shift = cut.removed;
      }
      return offset + shift;
    },
  };
}

/** A run found at a line: its indent, the line after it, and its items. */
interface FoundRun {
  indent: number;
  end: number;
  items: Omit<CollapsedRun, "at">;
}

/** Simple scalar items from line `i` on, at one indent, when there are at least MIN_RUN of them. */
function scalarRun(
  lines: string[],
  items: Array<RegExpExecArray | null>,
  i: number,
  starts: number[],
): FoundRun | undefined {
  const indent = items[i]?.[1]?.length;
  if (indent === undefined) return undefined;
  let end = i + 1;
  while (end < lines.length && items[end]?.[1]?.length === indent) end++;
  // A plain scalar may go on over more-indented lines: the run's last line counts only when what follows
  // cannot continue it.
  while (end > i + 1 && !endsCleanly(lines, end, indent)) end--;
  if (end - i < MIN_RUN || !endsCleanly(lines, end, indent)) return undefined;
  const values: string[] = [];
  const offsets: number[] = [];
  for (let k = i; k < end; k++) {
    const match = items[k] as RegExpExecArray;
    values.push(match[2] ?? match[3] ?? match[4] ?? "");
    offsets.push(FILE_OFFSET + (starts[k] ?? 0) + indent + 2);
  }
  return { indent, end, items: { values, offsets } };
}

// A mapping's key as config keys are written (no `__proto__`, no word YAML reads as other than text).
const KEY = /^([a-z][a-z0-9_]*):(?= |$)/;
const NOT_KEYS = new Set(["true", "false", "null", "y", "n", "yes", "no", "on", "off"]);
// Words YAML's core schema reads as something else than their text: null is left to the parser; true and false
// are booleans; numbers are handed on as their text anyway (document.ts).
const NULL_WORD = /^(?:~|null|Null|NULL)$/;
const BOOLEAN_WORD = /^(?:true|True|TRUE|false|False|FALSE)$/;
// A plain word of printable ASCII that no YAML indicator starts and that holds no space, comma, bracket, quote or
// #; in a flow list, no colon either. Double- and single-quoted text without escapes, quotes or a `$` (no
// interpolation to do).
const PLAIN = /^[A-Za-z0-9._/+][A-Za-z0-9._/+:@=-]*/;
const FLOW_PLAIN = /^[A-Za-z0-9._/+][A-Za-z0-9._/+@=-]*/;
const DOUBLE = /^"([\x20\x21\x23\x25-\x5b\x5d-\x7e]*)"/;
const SINGLE = /^'([\x20-\x23\x25\x26\x28-\x7e]*)'/;
/** What may follow a value on its line: spaces, then a comment. */
const LINE_END = /^(?: +#.*| *)$/;

/** A scalar at the start of `text`: its value and length, or undefined when not certainly that. */
function scalarAt(text: string, flow: boolean): { value: string | boolean; length: number } | undefined {
  const quoted = DOUBLE.exec(text) ?? SINGLE.exec(text);
  if (quoted) return { value: quoted[1] ?? "", length: quoted[0].length };
  const plain = (flow ? FLOW_PLAIN : PLAIN).exec(text)?.[0];
  if (plain === undefined || plain.endsWith(":") || NULL_WORD.test(plain)) return undefined;
  return { value: BOOLEAN_WORD.test(plain) ? /^t/i.test(plain) : plain, length: plain.length };
}

/** A flow list of scalars (`[a, "b"]`) at the start of `text`, with each item's column from `column`. */
function flowListAt(text: string, column: number) {
  if (!text.startsWith("[")) return undefined;
  const values: string[] = [];
  const columns: number[] = [];
  let at = 1;
  const space = () => {
    while (text[at] === " ") at++;
  };
  space();
  if (text[at] === "]") return { values, columns, length: at + 1 };
  for (;;) {
    const item = scalarAt(text.slice(at), true);
    if (!item || typeof item.value !== "string") return undefined;
    values.push(item.value);
    columns.push(column + at);
    at += item.length;
    space();
    if (text[at] === "]") return { values, columns, length: at + 1 };
    if (text[at] !== ",") return undefined;
    at++;
    space();
  }
}

/** Spaces only: a tab is never indentation in YAML, so a line indented with one is not read here. */
const indentOf = (line: string) => /^ */.exec(line)?.[0].length ?? 0;
const isBlank = (line: string) => /^[ \t]*(?:#.*)?$/.test(line);

/** The first line from `from` on that is not blank or a comment. */
function nextContent(lines: string[], from: number): number {
  let k = from;
  while (k < lines.length && isBlank(lines[k] ?? "")) k++;
  return k;
}

/** A block list of scalars under a key: its items from line `from`, at one indent of at least `column`. */
function blockListAt(lines: string[], from: number, column: number, starts: number[]) {
  const values: string[] = [];
  const offsets: number[] = [];
  let indent: number | undefined;
  let k = from;
  for (; k < lines.length; k++) {
    const line = lines[k] ?? "";
    const own = indentOf(line);
    if (own !== (indent ?? own) || own < column || !line.startsWith("- ", own)) break;
    indent = own;
    const item = scalarAt(line.slice(own + 2), false);
    if (!item || typeof item.value !== "string" || !LINE_END.test(line.slice(own + 2 + item.length)))
      return undefined;
    values.push(item.value);
    offsets.push(FILE_OFFSET + (starts[k] ?? 0) + own + 2);
  }
  if (indent === undefined) return undefined;
  return { values, offsets, at: FILE_OFFSET + (starts[from] ?? 0) + indent, end: k };
}

/**
 * One mapping item at line `i` (`- key: value` at `indent`, its other keys two columns in), when every line of it
 * is certainly read: its record, where its parts are, and the line after it (blank lines after it not taken).
 */
function recordAt(lines: string[], i: number, indent: number, starts: number[]) {
  const column = indent + 2;
  const record: RunRecord = {};
  const place: RecordPlace = new Map();
  let k = i;
  for (;;) {
    const line = lines[k] ?? "";
    const key = KEY.exec(line.slice(column))?.[1];
    if (key === undefined || NOT_KEYS.has(key) || place.has(key)) return undefined;
    if (k === i ? !line.startsWith("- ", indent) || indentOf(line) !== indent : indentOf(line) !== column)
      return undefined;
    const keyOffset = FILE_OFFSET + (starts[k] ?? 0) + column;
    const rest = line.slice(column + key.length + 1);
    if (rest.trim() === "") {
      const list = blockListAt(lines, k + 1, column, starts);
      if (!list) return undefined;
      record[key] = list.values;
      place.set(key, { key: keyOffset, value: list.at, items: list.offsets });
      k = list.end;
    } else {
      const text = rest.trimStart();
      const at = column + key.length + 1 + rest.length - text.length;
      const list = flowListAt(text, at);
      const item = list ? undefined : scalarAt(text, false);
      const length = list?.length ?? item?.length;
      if (length === undefined || !LINE_END.test(text.slice(length))) return undefined;
      const value = FILE_OFFSET + (starts[k] ?? 0) + at;
      if (list) {
        record[key] = list.values;
        const items = list.columns.map((c) => FILE_OFFSET + (starts[k] ?? 0) + c);
        place.set(key, { key: keyOffset, value, items });
      } else {
        record[key] = (item as { value: string | boolean }).value;
        place.set(key, { key: keyOffset, value });
      }
      k++;
    }
    // The next key, past blank and comment lines inside the item; or the item's end.
    const next = nextContent(lines, k);
    if (next >= lines.length || indentOf(lines[next] ?? "") <= indent) return { record, place, end: k };
    k = next;
  }
}

/**
 * Mapping items from line `i` on, at one indent, when there are at least MIN_RUN of them; when fewer, the line
 * after them (`short`).
 */
function recordRun(lines: string[], i: number, starts: number[]): FoundRun | { short: number } | undefined {
  const line = lines[i] ?? "";
  const indent = indentOf(line);
  if (!line.startsWith("- ", indent) || !KEY.test(line.slice(indent + 2))) return undefined;
  const values: RunRecord[] = [];
  const offsets: number[] = [];
  const places: RecordPlace[] = [];
  let end = i;
  for (let k = i; ; ) {
    const found = recordAt(lines, k, indent, starts);
    if (!found) break;
    values.push(found.record);
    offsets.push(FILE_OFFSET + (starts[k] ?? 0) + indent + 2);
    places.push(found.place);
    end = found.end;
    // The next item may come after blank and comment lines, which are then taken with the run.
    k = nextContent(lines, end);
    if (
      k >= lines.length ||
      indentOf(lines[k] ?? "") !== indent ||
      !(lines[k] ?? "").startsWith("- ", indent)
    )
      break;
  }
  if (values.length === 0) return undefined;
  if (values.length < MIN_RUN) return { short: end };
  return { indent, end, items: { values, offsets, places } };
}

/** The line at `next` (and blank lines before it) cannot be the continuation of a plain scalar above it. */
function endsCleanly(lines: string[], next: number, indent: number): boolean {
  for (let k = next; k < lines.length; k++) {
    const line = lines[k] ?? "";
    if (line.trim() === "") continue;
    return line.length - line.trimStart().length <= indent;
  }
  return true;
}

/** The run a scalar's value stands for, when it is a placeholder. */
export function placeholderRun(runs: Map<string, CollapsedRun> | undefined, value: unknown) {
  return runs && typeof value === "string" && PLACEHOLDER_VALUE.test(value) ? runs.get(value) : undefined;
}
