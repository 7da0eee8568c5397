// Recipients from a CSV file (`phone[,ported]`), streamed: the file is read twice — once to check every
// row, once to hand out batches — and never held whole in memory. A bad row stops the file before
// anything from it is inserted.
import { createReadStream } from "node:fs";
import { parse } from "csv-parse";
import { DataError } from "../../errors.js";
import { normalisePhone } from "../phone.js";

export interface FileRecipient {
  line: number;
  phone: string;
  ported: boolean;
}

const TRUE = new Set(["true", "yes", "y", "1"]);
const FALSE = new Set(["false", "no", "n", "0", ""]);
const MAX_REPORTED = 20;

function parser(file: string) {
  return createReadStream(file).pipe(
    parse({
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      bom: true,
      trim: true,
      skip_empty_lines: true,
      info: true,
    }),
  );
}

function readRow(record: Record<string, string | undefined>, line: number): FileRecipient | string {
  const phone = normalisePhone(record.phone ?? "");
  if (!phone.ok)
    return `line ${line}: ${record.phone ? `"${record.phone}" is an ${phone.reason}` : "the phone column is empty"}`;
  const ported = (record.ported ?? "").toLowerCase();
  if (!TRUE.has(ported) && !FALSE.has(ported))
    return `line ${line}: ported must be true or false, got "${record.ported}"`;
  return { line, phone: phone.phone, ported: TRUE.has(ported) };
}

/** Checks every row; throws a DataError (exit 65) listing the bad lines. Returns the number of recipients. */
export async function checkRecipientsFile(file: string): Promise<number> {
  const problems: string[] = [];
  let count = 0;
  try {
    for await (const { record, info } of parser(file) as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      if (count === 0 && problems.length === 0 && !("phone" in record)) {
        throw new DataError(
          `${file}: no "phone" column in the header (columns: ${Object.keys(record).join(", ")})`,
        );
      }
      const row = readRow(record, info.lines);
      if (typeof row === "string") problems.push(row);
      else count++;
    }
  } catch (error) {
    if (error instanceof DataError) throw error;
    const e = error as NodeJS.ErrnoException & { lines?: number };
    if (e.code === "ENOENT") throw new DataError(`recipients file ${file} does not exist`, "FILE_NOT_FOUND");
    throw new DataError(`${file}${e.lines ? `: line ${e.lines}` : ""}: ${e.message}`, "BAD_CSV");
  }
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
  for await (const { record, info } of parser(file) as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    const row = readRow(record, info.lines);
    if (typeof row === "string") throw new DataError(`${file}: changed while being read (${row})`);
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
