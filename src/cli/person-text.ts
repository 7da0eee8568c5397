// What a person writes on the command line for the ledger to keep (a reason, a note): at most MAX_PERSON_TEXT
// characters, as the console takes, so one pasted by mistake (a log, a file) is refused rather than kept whole in
// every history and printed whole by jobs list and purchases show.
import { UsageError } from "../errors.js";

/** The most characters a reason or note may have (the console's reason field takes as many). */
export const MAX_PERSON_TEXT = 500;

/** The flag's text, trimmed; undefined when absent or blank; a usage error naming the flag when it is too long. */
export function personText(value: string | undefined, flag: string): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (text.length > MAX_PERSON_TEXT)
    throw new UsageError(`${flag} is ${text.length} characters; at most ${MAX_PERSON_TEXT}`);
  return text;
}
