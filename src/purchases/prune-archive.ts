// The file `purchases prune --archive` appends to: JSON lines, one a purchase, holding full phone numbers and the
// provider's raw answers (created readable by its owner alone). A batch's purchases are deleted only once every byte
// of its lines is written and fsynced; a write that falls short (a full disk, a quota, a file size limit) or a failed
// fsync takes the batch's bytes back off the file and fails the prune with the batch still in the ledger. A prune
// killed between the two leaves its batch in both, and the next prune to the same file does not write it again.
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname } from "node:path";
import { ExitCode, TopsyncError, UsageError } from "../errors.js";
import { PRUNE_BATCH } from "./prune.js";

export interface PruneArchive {
  /** Appends a batch's lines, but those already at the archive's end; resolves once they are on disk. */
  append(lines: string[]): Promise<void>;
  close(): Promise<void>;
}

/** How every line this archive writes begins: a cut-off line that begins so is one of ours, never the only copy. */
const OUR_LINE = '{"purchase":';
const NEWLINE = 0x0a;
const CHUNK = 1 << 20;

/**
 * Opens FILE for appending (created with mode 0600); a symbolic link, a directory or anything but a regular file is
 * refused before anything is pruned. A line of ours cut off at the end (a prune killed while writing) is taken off;
 * the hashes of the last batch's worth of lines are kept, so lines a killed prune archived without deleting their
 * purchases are not written twice. One prune at a time may write a file (the caller makes sure).
 */
export async function openPruneArchive(file: string): Promise<PruneArchive> {
  const { handle, created } = await openFile(file);
  try {
    if (created) await syncDirectory(file);
    const tail = await readTail(handle);
    return archiveOn(handle, file, tail);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function archiveOn(handle: FileHandle, file: string, tail: Tail): PruneArchive {
  let separator = tail.unterminated ? "\n" : "";
  return {
    async append(lines) {
      const fresh = tail.hashes.size === 0 ? lines : lines.filter((line) => !tail.hashes.has(hash(line)));
      if (fresh.length === 0) return;
      const bytes = Buffer.from(`${separator}${fresh.join("\n")}\n`);
      const start = (await handle.stat()).size;
      try {
        await writeWhole(handle, bytes);
        await handle.sync();
      } catch (error) {
        await handle.truncate(start).catch(() => {});
        await handle.sync().catch(() => {});
        throw new TopsyncError(
          "ARCHIVE_WRITE_FAILED",
          `cannot write the archive ${file}: ${(error as Error).message}; the ${lines.length} purchases of this batch ` +
            "stay in the ledger (those of the batches before it are archived and pruned)",
          ExitCode.failure,
          { cause: error },
        );
      }
      separator = "";
    },
    close: () => handle.close(),
  };
}

/** Writes every byte or throws: a write may take fewer bytes than given (a file size limit), and one taking none fails. */
async function writeWhole(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    if (bytesWritten <= 0) throw new Error(`the file took ${done} of ${bytes.length} bytes`);
    done += bytesWritten;
  }
}

async function openFile(file: string): Promise<{ handle: FileHandle; created: boolean }> {
  const flags = constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW;
  let opened: { handle: FileHandle; created: boolean };
  try {
    opened = await open(file, flags | constants.O_CREAT | constants.O_EXCL, 0o600)
      .then((handle) => ({ handle, created: true }))
      .catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
        return { handle: await open(file, flags), created: false };
      });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ELOOP"
        ? "it is a symbolic link; give the file it points to"
        : code === "EISDIR"
          ? "it is a directory; give a file name"
          : code === "ENOENT"
            ? "its directory does not exist"
            : (error as Error).message;
    throw new UsageError(`--archive ${file} cannot be written: ${why}`, "BAD_ARCHIVE");
  }
  if (!(await opened.handle.stat()).isFile()) {
    await opened.handle.close();
    throw new UsageError(`--archive ${file} cannot be written: it is not a regular file`, "BAD_ARCHIVE");
  }
  return opened;
}

/** A new file's name is on disk too, not only its contents. */
async function syncDirectory(file: string): Promise<void> {
  const directory = await open(dirname(file), constants.O_RDONLY);
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

interface Tail {
  /** Hashes of the archive's last lines, at most a batch of them. */
  hashes: Set<string>;
  /** The file ends inside a line that is not ours: the next line starts after a newline. */
  unterminated: boolean;
}

async function readTail(handle: FileHandle): Promise<Tail> {
  const size = (await handle.stat()).size;
  const hashes = new Set<string>();
  if (size === 0) return { hashes, unterminated: false };
  const lastNewline = await findLastNewline(handle, size);
  let unterminated = false;
  if (lastNewline < size - 1) {
    const start = Buffer.alloc(OUR_LINE.length);
    const { bytesRead } = await handle.read(start, 0, start.length, lastNewline + 1);
    if (start.subarray(0, bytesRead).toString() === OUR_LINE.slice(0, bytesRead)) {
      await handle.truncate(lastNewline + 1);
      await handle.sync();
    } else unterminated = true;
  }
  for await (const line of linesBackward(handle, lastNewline)) {
    hashes.add(hash(line));
    if (hashes.size >= PRUNE_BATCH) break;
  }
  return { hashes, unterminated };
}

/** The position of the file's last newline, or -1. */
async function findLastNewline(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(Math.min(CHUNK, size));
  for (let end = size; end > 0; ) {
    const length = Math.min(chunk.length, end);
    await handle.read(chunk, 0, length, end - length);
    const at = chunk.subarray(0, length).lastIndexOf(NEWLINE);
    if (at >= 0) return end - length + at;
    end -= length;
  }
  return -1;
}

/** The lines before `end` (the position of a newline), last first, each without its newline. */
async function* linesBackward(handle: FileHandle, end: number): AsyncGenerator<Buffer> {
  let rest = Buffer.alloc(0);
  for (let position = end; position > 0; ) {
    const length = Math.min(CHUNK, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    const text = Buffer.concat([chunk, rest]);
    let stop = text.length;
    for (let at = text.lastIndexOf(NEWLINE, stop - 1); at >= 0; at = text.lastIndexOf(NEWLINE, stop - 1)) {
      yield text.subarray(at + 1, stop);
      stop = at;
      if (stop === 0) break;
    }
    rest = Buffer.from(text.subarray(0, stop));
  }
  if (end >= 0) yield rest;
}

function hash(line: string | Buffer): string {
  return createHash("sha256").update(line).digest("base64");
}
