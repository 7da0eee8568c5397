// What a failed statement's SQLSTATE says, as either driver reports it (postgres.js and PGlite put it in `code`,
// drizzle wraps their error in one of its own with the driver's as `cause`).

/** The SQLSTATE of a failed statement, from the driver's error or the one the ORM wrapped it in. */
export function sqlState(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Whether the statement was refused for what it carries (class 22, data exception: a value no column or JSON
 * document can hold): the same statement fails the same way however often it is tried.
 */
export function isDataException(error: unknown): boolean {
  return sqlState(error)?.startsWith("22") === true;
}

/**
 * What the database or its driver said about a failed statement ("database … is not currently accepting
 * connections", "connect ECONNREFUSED …"): the innermost message of the error and its causes, not the ORM's
 * wrapper, which says only "Failed query: <the statement> params: …".
 */
export function databaseReason(error: unknown): string {
  let reason = error instanceof Error ? error.message : String(error);
  for (let e = error; e instanceof Error; e = e.cause) if (e.message) reason = e.message;
  return reason;
}
