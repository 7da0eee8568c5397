// What keeps a file a config names from being read, said after its name: `topsync config check` asks it of every
// `recipients_file`, and a service's client of its `ca_file` (src/http/ca-file.ts).
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";

/**
 * Undefined when `file` is a regular file this process can read; else why not ("does not exist", "is a directory,
 * not a file", …). `tooLarge` says what is wrong with a file of that many bytes, if anything, before it is read.
 */
export async function fileProblem(
  file: string,
  tooLarge?: (bytes: number) => string | undefined,
): Promise<string | undefined> {
  try {
    const found = await stat(file);
    if (found.isDirectory()) return "is a directory, not a file";
    if (!found.isFile()) return "is not a regular file";
    const size = tooLarge?.(found.size);
    if (size !== undefined) return size;
    await access(file, constants.R_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "does not exist";
    if (code === "EACCES" || code === "EPERM") return "cannot be read (permission denied)";
    return `cannot be used: ${(error as Error).message}`;
  }
}
