// Long lists of plain values — thousands of recipients inline — read without the YAML parser. The `yaml`
// package builds a node with its source range for every item (for error positions), some 25 µs each; a config
// of 10,000 recipients spent most of its load there. A run of lines that are each one simple list item
// (`- "08031234567"`, `- 0803 123 4567`, `- '+2348031234567'`, a comment after it allowed) is read here, by a
// pattern, and the parser sees one placeholder item in its place; the placeholder is expanded back into the
// items when the document becomes plain values, and error positions inside the run come from here.
//
// The run's other lines are taken out of the text the parser sees (the parser's cost is per line, blank ones
// too), and positions are mapped back: `originalOffset` turns an offset in the parsed text into one in the file,
// and the items of a run have their file offsets recorded here. Nothing is taken on trust: a run counts only if
// the parser found its placeholder exactly where it was put, as an item of a block sequence. If not (the lines
// were inside a block scalar, say) or the text has any parse error or warning, the caller parses the original
// text.

/** The items of one collapsed run: their values as the YAML parser would have given them, and their offsets. */
export interface CollapsedRun {
  values: string[];
  /** Where each item is in the file, as positions in the parsed text (see `originalOffset`). */
  offsets: number[];
  /** Offset of the placeholder's opening quote in the parsed text. */
  at: number;
}

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
  const runs = new Map<string, CollapsedRun>();
  const out: string[] = [];
  // Where text was taken out, in parsed-text offsets, and how much by then in all.
  const cuts: Array<{ at: number; removed: number }> = [];
  let removed = 0;
  let i = 0;
  while (i < lines.length) {
    const indent = items[i]?.[1]?.length;
    let end = i + 1;
    if (indent !== undefined) {
      while (end < lines.length && items[end]?.[1]?.length === indent) end++;
      // A plain scalar may go on over more-indented lines: the run's last line counts only when what follows
      // cannot continue it.
      while (end > i + 1 && !endsCleanly(lines, end, indent)) end--;
    }
    const line = lines[i] ?? "";
    if (indent === undefined || end - i < MIN_RUN || !endsCleanly(lines, end, indent)) {
      out.push(line);
      i++;
      continue;
    }
    const start = (starts[i] ?? 0) - removed;
    const values: string[] = [];
    const offsets: number[] = [];
    for (let k = i; k < end; k++) {
      const match = items[k] as RegExpExecArray;
      values.push(match[2] ?? match[3] ?? match[4] ?? "");
      offsets.push(FILE_OFFSET + (starts[k] ?? 0) + indent + 2);
    }
    const placeholder = `${" ".repeat(indent)}- ${PLACEHOLDER(runs.size)}`;
    out.push(placeholder);
    runs.set(`\0${runs.size}`, { values, offsets, at: start + indent + 2 });
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
