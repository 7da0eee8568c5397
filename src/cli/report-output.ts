// The flags `plan` and `report` share — --window, --since, --format, --out — checked before any work, and
// the one way a report leaves: stdout, or a file replaced whole (written aside, then renamed) or not at all.
import { randomBytes } from "node:crypto";
import { accessSync, constants, lstatSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseDuration } from "../duration.js";
import { TopsyncError, UsageError } from "../errors.js";
import { isReportFormat, REPORT_FORMATS, type ReportFormat } from "../report/render.js";

/** The longest plan window: longer ones read more fires than an operator can check anyway. */
export const MAX_WINDOW_MS = 92 * 86_400_000;

export interface ReportIo {
  out(text: string): void;
  err(text: string): void;
}

export const processReportIo: ReportIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export function parseWindow(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new UsageError(`--window must be a duration like 24h, 7d or 1h30m; got "${text}"`, "BAD_WINDOW");
  }
  if (ms <= 0 || ms > MAX_WINDOW_MS) {
    throw new UsageError(`--window must be more than 0 and at most 92d; got "${text}"`, "BAD_WINDOW");
  }
  return ms;
}

export function parseFormat(text: string | undefined, json: boolean | undefined): ReportFormat {
  const format = text ?? (json ? "json" : "text");
  if (isReportFormat(format)) return format;
  throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(", ")}; got "${format}"`, "BAD_FORMAT");
}

/** `--out -` is standard output, as for most tools. */
export const STDOUT = "-";

/**
 * Refuses an --out path that cannot be written before any work is done: a usage error (exit 64) like any
 * other flag value that cannot be acted on. Only a regular file is ever replaced: a device, a FIFO, a socket,
 * a directory or a symbolic link already at the path is refused, never replaced or written through. Returns
 * the absolute path (or "-").
 */
export function checkOut(out: string): string {
  if (out === STDOUT) return out;
  const path = resolve(out);
  const dir = dirname(path);
  const target = lstatOrUndefined(out, path);
  if (target?.isSymbolicLink())
    throw badOut(out, "it is a symbolic link; give the file it points to, or another name");
  if (target?.isDirectory()) throw badOut(out, "it is a directory; give a file name");
  if (target && !target.isFile())
    throw badOut(out, "it is not a regular file (a device, FIFO or socket); only regular files are replaced");
  const parent = lstatOrUndefined(out, dir, true);
  if (!parent) throw badOut(out, `the directory ${dir} does not exist`);
  if (!parent.isDirectory()) throw badOut(out, `${dir} is not a directory`);
  if (!writable(dir)) throw badOut(out, `the directory ${dir} is not writable`);
  if (target && !writable(path)) throw badOut(out, "the file is not writable");
  return path;
}

/** Prints the report, or replaces the file with it whole: a failed write leaves the old file (or none). */
export function deliver(io: ReportIo, text: string, out: string | undefined, what: string): void {
  if (!out || out === STDOUT) {
    io.out(text);
    return;
  }
  const path = checkOut(out); // again: the path may have changed while the report was built
  // A short name of its own (not derived from the target's, which may be at the length limit already).
  const aside = join(dirname(path), `.topsync-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(aside, text, { flag: "wx" });
    renameSync(aside, path);
  } catch (error) {
    rmSync(aside, { force: true });
    throw new TopsyncError(
      "OUT_NOT_WRITTEN",
      `could not write ${what} to ${out}, so nothing was written: ${(error as Error).message}`,
    );
  }
  io.err(`${what} written to ${out}\n`);
}

/** The path's own entry (a link is not followed), or undefined when there is none; other failures refuse. */
function lstatOrUndefined(out: string, path: string, follow = false) {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ENAMETOOLONG") throw badOut(out, "the name is too long for the file system");
    if (code === "ENOTDIR") throw badOut(out, `${dirname(path)} is not a directory`);
    throw badOut(out, (error as Error).message);
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function badOut(out: string, why: string): UsageError {
  return new UsageError(`--out ${out} cannot be written: ${why}`, "BAD_OUT");
}
