// `topsync console hash-password`: a console user's password hash (scrypt) for `console.users`. The password is
// read from standard input (its first line), or asked for on a terminal without echo — never taken from the
// command line, where `ps` and the shell's history would show it.
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { UsageError } from "../errors.js";
import { write } from "./output.js";

const MAX_PASSWORD = 1024;

export async function hashPasswordCommand(): Promise<void> {
  const password = process.stdin.isTTY ? await askTwice() : await firstLine(process.stdin);
  if (password.length === 0)
    throw new UsageError("no password given: type one, or pipe it on standard input");
  if (password.length > MAX_PASSWORD)
    throw new UsageError(`a password is at most ${MAX_PASSWORD} characters`);
  if (password.length < 12) throw new UsageError("a console password is at least 12 characters");
  const { hashPassword } = await import("../console/password.js");
  write(`${await hashPassword(password)}\n`);
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes("\n") || text.length > MAX_PASSWORD + 2) break;
  }
  return (text.split(/\r?\n/)[0] ?? "").slice(0, MAX_PASSWORD + 1);
}

async function askTwice(): Promise<string> {
  const first = await ask("password: ");
  const again = await ask("again: ");
  if (first !== again) throw new UsageError("the two passwords differ; nothing was written");
  return first;
}

/** One line from the terminal, not echoed. */
function ask(prompt: string): Promise<string> {
  process.stderr.write(prompt);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  return new Promise((resolve) =>
    rl.once("line", (line) => {
      rl.close();
      process.stderr.write("\n");
      resolve(line);
    }),
  );
}
