// Recipients from a CSV file (`phone[,ported]`), streamed: the file is read twice — once to check every
// row, once to hand out batches — and never held whole in memory. A bad row stops the file before
// anything from it is inserted.
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream";
import { parse } from "csv-parse";
import { DataError } from "../../errors.js";
import { fileProblem } from "../../file-problem.js";
import { inert } from "../../text/inert.js";
import { cutText } from "../../text/storable.js";
import { normalisePhone } from "../phone.js";

export interface FileRecipient {
  line: number;
  phone: string;
  ported: boolean;
}

const TRUE = new Set(["true", "yes", "y", "1"]);
const FALSE = new Set(["false", "no", "n", "0", ""]);
const MAX_REPORTED = 20;
/**
 * The longest row (or header) read: a phone and a flag take a few dozen characters. Past it the file is refused,
 * where a file with no line ends (/dev/zero, a binary file) would otherwise be gathered into one row for ever.
 */
const MAX_RECORD_CHARS = 64 * 1024;
/** How much of a value from the file an error message quotes. */
const QUOTED_CHARS = 40;
/** How many of the header's names an error message lists. */
const LISTED_COLUMNS = 10;

/** A value from the file as a message quotes it: controls escaped, cut after QUOTED_CHARS. */
function quoted(value: string): string {
  return value.length > QUOTED_CHARS ? `${inert(cutText(value, QUOTED_CHARS))}…` : inert(value);
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: "does not exist",
  EISDIR: "is a directory, not a file",
  EACCES: "cannot be read (permission denied)",
  EPERM: "cannot be read (permission denied)",
};

/**
 * The file's rows as records. The file stream and the parser are one pipeline, so a file that cannot be read
 * (missing, a directory, no permission) fails the iteration instead of raising an unhandled stream error. The
 * header must name a `phone` column, and each column once.
 */
function parser(file: string, onHeader: () => void = () => {}) {
  const csv = parse({
    columns: (header: string[]) => {
      onHeader();
      const names = header.map((h) => h.trim().toLowerCase());
      const twice = names.find((name, i) => name !== "" && names.indexOf(name) !== i);
      if (twice !== undefined)
        throw new DataError(
          `${file}: the header names the column "${quoted(twice)}" twice`,
          "BAD_CSV_HEADER",
        );
      if (!names.includes("phone")) {
        const listed = names.slice(0, LISTED_COLUMNS).map(quoted).join(", ");
        const more = names.length > LISTED_COLUMNS ? `, … ${names.length - LISTED_COLUMNS} more` : "";
        throw new DataError(
          `${file}: no "phone" column in the header (columns: ${listed}${more})`,
          "BAD_CSV_HEADER",
        );
      }
      return names;
    },
    bom: true,
    trim: true,
    skip_empty_lines: true,
    info: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  pipeline(createReadStream(file), csv, () => {});
  return csv;
}

/** A file that cannot be read, or a CSV that cannot be parsed, as a DataError (exit 65) naming the file. */
function readFailure(file: string, error: unknown): DataError {
  if (error instanceof DataError) return error;
  const e = error as NodeJS.ErrnoException & { lines?: number };
  const reason = e.code ? READ_ERRORS[e.code] : undefined;
  if (reason) return new DataError(`recipients file ${file} ${reason}`, "RECIPIENTS_FILE_UNREADABLE");
  // The parser's message quotes the file (CSV_MAX_RECORD_SIZE, a stray quote): escaped, and cut.
  const message = e.message.length > 200 ? `${cutText(e.message, 200)}…` : e.message;
  return new DataError(`${file}${e.lines ? `: line ${e.lines}` : ""}: ${inert(message)}`, "BAD_CSV");
}

function readRow(record: Record<string, string | undefined>, line: number): FileRecipient | string {
  const phone = normalisePhone(record.phone ?? "");
  if (!phone.ok)
    return `line ${line}: ${record.phone ? `"${quoted(record.phone)}" is an ${phone.reason}` : "the phone column is empty"}`;
  const ported = (record.ported ?? "").toLowerCase();
  if (!TRUE.has(ported) && !FALSE.has(ported))
    return `line ${line}: ported must be true or false, got "${quoted(record.ported ?? "")}"`;
  return { line, phone: phone.phone, ported: TRUE.has(ported) };
}

/** Checks every row; throws a DataError (exit 65) listing the bad lines. Returns the number of recipients. */
export async function checkRecipientsFile(file: string): Promise<number> {
  // Read twice (checked, then handed out), so a regular file: a pipe would be empty the second time, a device
  // endless.
  const problem = await fileProblem(file);
  if (problem) throw new DataError(`recipients file ${file} ${problem}`, "RECIPIENTS_FILE_UNREADABLE");
  const problems: string[] = [];
  let count = 0;
  let header = false;
  const csv = parser(file, () => {
    header = true;
  });
  try {
    for await (const { record, info } of csv as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      const row = readRow(record, info.lines);
      if (typeof row === "string") problems.push(row);
      else count++;
    }
  } catch (error) {
    throw readFailure(file, error);
  }
  if (!header)
    throw new DataError(`${file}: the file is empty; it needs a header with a "phone" column`, "EMPTY_CSV");
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED).join("\n  ");
    const more = problems.length > MAX_REPORTED ? `\n  … and ${problems.length - MAX_REPORTED} more` : "";
    throw new DataError(
      `${file}: ${problems.length} bad rows, nothing from this file was queued:\n  ${shown}${more}`,
      "BAD_CSV_ROWS",
    );
  }
  return count;
}

/** The recipients of a checked file in batches of `size`. */
export async function* recipientBatches(file: string, size: number): AsyncGenerator<FileRecipient[]> {
  let batch: FileRecipient[] = [];
  const rows = parser(file) as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    for await (const { record, info } of rows) {
      const row = readRow(record, info.lines);
      if (typeof row === "string") throw new DataError(`${file}: changed while being read (${row})`);
      batch.push(row);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    throw readFailure(file, error);
  }
  if (batch.length > 0) yield batch;
}
