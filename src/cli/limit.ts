// The --limit of the list commands (purchases list, notify list, saved list).
import { UsageError } from "../errors.js";

/** The largest --limit: a number the database's bigint cannot hold (99999999999999999999, 1e300) failed the query. */
export const MAX_LIMIT = 1_000_000;

/** A list command's --limit: a whole number from 1 to MAX_LIMIT, or a usage error naming what was given. */
export function parseLimit(text: string | undefined, fallback = "100"): number {
  const given = text ?? fallback;
  const limit = Number(given);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got "${given}"`);
  return limit;
}
