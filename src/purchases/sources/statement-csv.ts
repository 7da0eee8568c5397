// A provider's statement (its transaction export, a CSV with a header line), streamed: read twice — once to check
// every line and find the statement's period, once to hand the lines out in chunks — and never held whole in
// memory. Only a regular file of at most MAX_STATEMENT_BYTES is read. A line with a cell that cannot be read
// exactly refuses the file, every such line named; a line dated far from the rest (the placeholder 1970-01-01 of
// a transaction that never settled) is set aside with the reason, and does not stretch the period.
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { pipeline } from "node:stream";
import { parse } from "csv-parse";
import { DataError } from "../../errors.js";
import { inert } from "../../text/inert.js";
import { type DateFormat, readStatementAmount, readStatementDate } from "./statement-cells.js";

export const STATEMENT_FIELDS = ["reference", "phone", "amount", "date", "status"] as const;
export type StatementField = (typeof STATEMENT_FIELDS)[number];
/** Which CSV column holds each field (header names, matched case-insensitively). */
export type ColumnMap = Record<StatementField, string>;
export const DEFAULT_COLUMNS: ColumnMap = {
  reference: "reference",
  phone: "phone",
  amount: "amount",
  date: "date",
  status: "status",
};

/** How the export writes its cells: which columns, dates in which order, amounts with which decimal mark. */
export interface StatementFormat {
  columns: ColumnMap;
  dateFormat: DateFormat;
  decimalComma: boolean;
  /** The zone of a time written without one (the config's `timezone`). */
  timeZone: string;
}

export interface StatementLine {
  /** 1-based line in the file where the record starts (the header is line 1). */
  line: number;
  reference: string;
  phone: string;
  /** Two decimals, exact: "1405.00". */
  amount: string;
  date: Date;
  /** Lower case, as written. */
  status: string;
}

/** A line dated outside the statement's period: reported, not matched. */
export interface SetAsideLine extends StatementLine {
  reason: string;
}

export interface StatementChunk {
  lines: StatementLine[];
  setAside: SetAsideLine[];
}

/** A statement checked whole: its lines come in chunks, in file order, as often as they are asked for. */
export interface Statement {
  /** Lines read, the header not counted. */
  lines: number;
  /** First and last date of the lines not set aside; null when there are none. */
  period: { from: Date; to: Date } | null;
  chunks(): AsyncIterable<StatementChunk>;
}

/** The largest statement read: some seven million lines, far beyond any month's export. */
export const MAX_STATEMENT_BYTES = 512 * 1024 * 1024;
/** The longest record (one line, or several inside quotes): a real line is under 200 characters. */
const MAX_RECORD_CHARS = 64 * 1024;
/** A line whose date is further than this from every other line's starts a group of its own. */
export const PERIOD_GAP_MS = 31 * 86_400_000;
const CHUNK_LINES = 1000;
const MAX_REPORTED = 20;
const MAX_CELL: Record<StatementField, number> = {
  reference: 128,
  phone: 32,
  amount: 40,
  date: 64,
  status: 64,
};

const OPEN_ERRORS: Record<string, string> = {
  ENOENT: "does not exist",
  EACCES: "cannot be read (permission denied)",
  EPERM: "cannot be read (permission denied)",
  ENXIO: "is not a regular file (a socket)",
  ELOOP: "is a symbolic link loop",
};

/**
 * Opens and checks a statement: a regular file within the size limit, a header naming every column, every line
 * readable. Throws a DataError (exit 65) naming the file, and each refused line with its column and reason. The
 * file stays open until `close`; the second reading reads the same bytes of the same file.
 */
export async function openStatement(
  file: string,
  format: StatementFormat,
  now: Date,
): Promise<Statement & { close(): Promise<void> }> {
  const handle = await openRegularFile(file);
  try {
    const size = (await handle.stat()).size;
    const delimiter = await sniffDelimiter(handle, size, file);
    const { index, times, count } = await checkStatement(handle, size, file, format, delimiter);
    const period = statementPeriod(times, count, now.getTime()); // the dates are not needed after this
    const statement: Statement = {
      lines: count,
      period: period && { from: new Date(period.from), to: new Date(period.to) },
      chunks: () => chunksOf(records(handle, size, file, delimiter), file, format, index, period, count),
    };
    return { ...statement, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A statement of lines already read (in memory), as openStatement hands them out. */
export function statementOf(lines: StatementLine[], now: Date): Statement {
  const times = Float64Array.from(lines, (l) => l.date.getTime());
  const period = statementPeriod(times, lines.length, now.getTime());
  return {
    lines: lines.length,
    period: period && { from: new Date(period.from), to: new Date(period.to) },
    async *chunks() {
      for (let i = 0; i < lines.length; i += CHUNK_LINES)
        yield split(lines.slice(i, i + CHUNK_LINES), period);
    },
  };
}

async function openRegularFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    // Without O_NONBLOCK, opening a FIFO waits for a writer; with it, the check below refuses the FIFO at once.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const reason = OPEN_ERRORS[code] ?? `cannot be read (${code || (error as Error).message})`;
    throw new DataError(`statement ${file} ${reason}`, "STATEMENT_UNREADABLE");
  }
  const stat = await handle.stat();
  const refused = stat.isDirectory()
    ? "is a directory, not a file"
    : !stat.isFile()
      ? "is not a regular file (a device, FIFO or socket); a statement is read from a file"
      : stat.size > MAX_STATEMENT_BYTES
        ? `is ${stat.size} bytes, more than the ${MAX_STATEMENT_BYTES} a statement may have; split it by month`
        : undefined;
  if (refused) {
    await handle.close();
    throw new DataError(`statement ${file} ${refused}`, "STATEMENT_UNREADABLE");
  }
  return handle;
}

/** Bytes of the file's start read to find how it is written. */
const SNIFFED_BYTES = 4096;

/**
 * How the file separates its cells, from its header line: commas, or — when the header has none — semicolons or
 * tabs, as spreadsheets write CSV where the decimal mark is a comma. A text encoding the reader cannot read is
 * refused with what it is: UTF-16 big-endian, or UTF-16 without its byte-order mark (NUL bytes in the header). UTF-8
 * (with or without a BOM) and UTF-16 little-endian with its BOM (Excel's "Unicode text") are read.
 */
async function sniffDelimiter(handle: FileHandle, size: number, file: string): Promise<string> {
  const head = Buffer.alloc(Math.min(size, SNIFFED_BYTES));
  if (head.length > 0) await handle.read(head, 0, head.length, 0);
  const refuse = (why: string) =>
    new DataError(
      `statement ${file} ${why}: save it as UTF-8 (or export it again as CSV) and read it again`,
      "STATEMENT_ENCODING",
    );
  if (head[0] === 0xfe && head[1] === 0xff) throw refuse("is UTF-16 big-endian text");
  const littleEndian = head[0] === 0xff && head[1] === 0xfe;
  const text = littleEndian ? head.subarray(2).toString("utf16le") : head.toString("utf8");
  const first = text.split(/\r\n|\n|\r/, 1)[0] ?? "";
  if (first.includes("\u0000"))
    throw refuse("holds NUL bytes in its first line (UTF-16 text without its byte-order mark, or not text)");
  const header = first.replace(/"[^"]*"/g, ""); // a quoted column name may hold any delimiter
  if (header.includes(",")) return ",";
  if (header.includes(";")) return ";";
  if (header.includes("\t")) return "\t";
  return ",";
}

/** A record of the file and the line it starts on (the header is line 1). */
interface CsvRecord {
  record: string[];
  line: number;
}

/**
 * The file's records, header first, read from the start of the open file up to `size` bytes, empty lines left
 * out. Lines are counted here rather than by the parser's `info`, which copies a dozen counters into a new object
 * for every record: with it a million-line file took three times as long to read, and twice the memory.
 */
function records(
  handle: FileHandle,
  size: number,
  file: string,
  delimiter: string,
): AsyncIterable<CsvRecord> {
  const csv = parse({
    bom: true,
    delimiter,
    relax_column_count: true,
    trim: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  if (size === 0) csv.end();
  else pipeline(handle.createReadStream({ start: 0, end: size - 1, autoClose: false }), csv, () => {});
  return numbered(csv as AsyncIterable<string[]>, file);
}

/** Each record with its first line: one line, plus the line breaks inside its quoted cells. */
async function* numbered(csv: AsyncIterable<string[]>, file: string): AsyncGenerator<CsvRecord> {
  let next = 1;
  try {
    for await (const record of csv) {
      const line = next;
      next += 1;
      for (const cell of record) if (cell.includes("\n") || cell.includes("\r")) next += lineBreaks(cell);
      if (record.length === 1 && record[0] === "") continue; // an empty line, or one of spaces
      yield { record, line };
    }
  } catch (error) {
    if (error instanceof DataError) throw error;
    const e = error as Error & { lines?: number };
    throw new DataError(
      `${file}${e.lines ? `: line ${e.lines}` : ""}: not a CSV file: ${inert(e.message)}`,
      "BAD_CSV",
    );
  }
}

function lineBreaks(cell: string): number {
  return cell.match(/\r\n|\n|\r/g)?.length ?? 0;
}

type ColumnIndex = Record<StatementField, number>;

function columnIndex(header: string[], file: string, columns: ColumnMap): ColumnIndex {
  const index = {} as ColumnIndex;
  for (const field of STATEMENT_FIELDS) {
    const named = (name: string) => name.toLowerCase() === columns[field].toLowerCase();
    const at = header.findIndex(named);
    // Two columns of one name (an export's "Amount" charged and "Amount" after a fee): which one holds the field
    // cannot be told, and the first is not a guess worth a settlement.
    if (at !== -1 && header.findIndex((name, i) => i > at && named(name)) !== -1)
      throw new DataError(
        `${file}: the header names the column "${inert(header[at]!)}" (for ${field}) twice: rename one of them in the file (and map the other with --columns ${field}=NAME)`,
        "BAD_STATEMENT_HEADER",
      );
    if (at === -1)
      throw new DataError(
        `${file}: no column "${inert(columns[field])}" for ${field} (columns: ${inert(header.join(", ").slice(0, 500))}); map it with --columns ${field}=NAME`,
        "BAD_STATEMENT_HEADER",
      );
    index[field] = at;
  }
  return index;
}

/** One line's cells as a StatementLine, or what is wrong with them ("column "amount": "16,8" has …"). */
function readLine(
  record: string[],
  line: number,
  index: ColumnIndex,
  format: StatementFormat,
): StatementLine | string {
  const reference = cellOf(record, index, "reference");
  const phone = cellOf(record, index, "phone");
  const amountText = cellOf(record, index, "amount");
  const dateText = cellOf(record, index, "date");
  const status = cellOf(record, index, "status");
  const amount = amountText === undefined ? undefined : readStatementAmount(amountText, format.decimalComma);
  const date =
    dateText === undefined ? undefined : readStatementDate(dateText, format.dateFormat, format.timeZone);
  if (
    reference &&
    !reference.includes("\u0000") &&
    phone !== undefined &&
    status !== undefined &&
    amount?.ok &&
    date?.ok
  )
    return { line, reference, phone, amount: amount.value, date: date.value, status: status.toLowerCase() };
  // Something is wrong: say what, cell by cell.
  const column = (field: StatementField) => `column "${inert(format.columns[field])}"`;
  const shown = (text: string) => `"${inert(text)}"`;
  const problems: string[] = [];
  for (const field of STATEMENT_FIELDS)
    if (cellOf(record, index, field) === undefined)
      problems.push(`${column(field)} is longer than ${MAX_CELL[field]} characters`);
  if (reference === "") problems.push(`${column("reference")} is empty`);
  else if (reference?.includes("\u0000"))
    problems.push(`${column("reference")}: ${shown(reference)} holds a NUL character`);
  if (amount && !amount.ok) problems.push(`${column("amount")}: ${shown(amountText!)} ${amount.reason}`);
  if (date && !date.ok) problems.push(`${column("date")}: ${shown(dateText!)} ${date.reason}`);
  return problems.join("; ");
}

/** A cell, trimmed; undefined when it is longer than its field may be. */
function cellOf(record: string[], index: ColumnIndex, field: StatementField): string | undefined {
  const value = (record[index[field]] ?? "").trim();
  return value.length > MAX_CELL[field] ? undefined : value;
}

/** The first reading: every line checked, and its date kept (8 bytes a line) to find the period. */
async function checkStatement(
  handle: FileHandle,
  size: number,
  file: string,
  format: StatementFormat,
  delimiter: string,
) {
  let index: ColumnIndex | undefined;
  let times = new Float64Array(1024);
  let count = 0;
  const problems: string[] = [];
  let refused = 0;
  for await (const r of records(handle, size, file, delimiter)) {
    if (!index) {
      index = columnIndex(r.record, file, format.columns);
      continue;
    }
    const read = readLine(r.record, r.line, index, format);
    if (typeof read === "string") {
      if (++refused <= MAX_REPORTED) problems.push(`line ${r.line}: ${read}`);
      continue;
    }
    if (count === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[count++] = read.date.getTime();
  }
  if (!index) throw new DataError(`${file}: empty statement (no header line)`, "EMPTY_CSV");
  if (refused > 0) {
    const more = refused > MAX_REPORTED ? `\n  … and ${refused - MAX_REPORTED} more` : "";
    throw new DataError(
      `${file}: ${refused} ${refused === 1 ? "line" : "lines"} refused, nothing was matched:\n  ${problems.join("\n  ")}${more}`,
      "BAD_STATEMENT_LINES",
    );
  }
  return { index, times, count };
}

/**
 * The statement's period: its lines' dates, grouped where more than PERIOD_GAP_MS separates one from the next;
 * the group with the most lines is the statement (on a tie, the one nearest `now`). The lines of the other groups
 * are set aside: a placeholder date, or a year typed wrong, cannot stretch the period over the whole ledger.
 * Sorts the first `count` of `times` in place.
 */
export function statementPeriod(
  times: Float64Array,
  count: number,
  now: number,
): { from: number; to: number } | null {
  if (count === 0) return null;
  const sorted = times.subarray(0, count).sort();
  let best = { from: sorted[0]!, to: sorted[0]!, lines: 0 };
  let start = 0;
  for (let i = 1; i <= count; i++) {
    if (i < count && sorted[i]! - sorted[i - 1]! <= PERIOD_GAP_MS) continue;
    const group = { from: sorted[start]!, to: sorted[i - 1]!, lines: i - start };
    const distance = (g: { from: number; to: number }) => Math.max(0, g.from - now, now - g.to);
    if (group.lines > best.lines || (group.lines === best.lines && distance(group) < distance(best)))
      best = group;
    start = i;
  }
  return { from: best.from, to: best.to };
}

function setAsideReason(time: number, period: { from: number; to: number }): string {
  const days = (ms: number) => Math.floor(ms / 86_400_000).toLocaleString("en");
  return time < period.from
    ? `dated ${days(period.from - time)} days before the statement's other lines`
    : `dated ${days(time - period.to)} days after the statement's other lines`;
}

function split(lines: StatementLine[], period: { from: number; to: number } | null): StatementChunk {
  const chunk: StatementChunk = { lines: [], setAside: [] };
  for (const line of lines) {
    const time = line.date.getTime();
    if (!period || (time >= period.from && time <= period.to)) chunk.lines.push(line);
    else chunk.setAside.push({ ...line, reason: setAsideReason(time, period) });
  }
  return chunk;
}

/** The second reading: the lines again, checked again (the file may have changed), in chunks. */
async function* chunksOf(
  source: AsyncIterable<CsvRecord>,
  file: string,
  format: StatementFormat,
  index: ColumnIndex,
  period: { from: number; to: number } | null,
  expected: number,
): AsyncGenerator<StatementChunk> {
  const changed = (why: string) =>
    new DataError(`${file} changed while being read (${why}); read it again`, "STATEMENT_CHANGED");
  let header = true;
  let seen = 0;
  let batch: StatementLine[] = [];
  for await (const r of source) {
    if (header) {
      header = false;
      continue;
    }
    const read = readLine(r.record, r.line, index, format);
    if (typeof read === "string") throw changed(`line ${r.line}: ${read}`);
    seen++;
    batch.push(read);
    if (batch.length >= CHUNK_LINES) {
      yield split(batch, period);
      batch = [];
    }
  }
  if (batch.length > 0) yield split(batch, period);
  if (seen !== expected) throw changed(`${seen} lines now, ${expected} before`);
}
