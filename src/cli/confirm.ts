// Asking a person before money moves or records change: y/N on a terminal; without one, refuse unless the
// command was told to go ahead (--yes, --auto-approve).
import { createInterface } from "node:readline/promises";
import { UsageError } from "../errors.js";

export async function confirm(question: string, flag: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new UsageError(
      `not asking on a non-interactive terminal; pass ${flag} to go ahead`,
      "NEEDS_CONFIRMATION",
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}
