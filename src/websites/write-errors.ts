// What a failed website write is reported as: a stable code, the HTTP status, and one line naming the
// website and what the service said (one failing website does not stop the others; its error is recorded with the pass).
import { AuthError, ClientError, HttpError } from "../http/errors.js";
import type { CreateEntry, DeleteEntry, UpdateEntry } from "./model.js";
import type { WebsiteError } from "./runs.js";

export type WriteEntry = CreateEntry | UpdateEntry | DeleteEntry;

/** The declared password is not the one the plan was made with: apply what was shown, or nothing. */
export class StalePlanError extends Error {
  readonly code = "STALE_PLAN";
}

/** The service refused the API key earlier in this pass, so this write was never sent. */
export class NotAttempted extends Error {
  readonly code = "NOT_ATTEMPTED";

  constructor(readonly refusal: AuthError) {
    super(`not attempted: ${refusal.message}`);
  }
}

export function writeError(error: unknown, entry: WriteEntry): WebsiteError {
  const coded =
    error instanceof HttpError || error instanceof StalePlanError || error instanceof NotAttempted;
  const id = entry.action === "create" ? undefined : entry.id;
  const failure: WebsiteError = {
    domain: entry.domain,
    action: entry.action,
    code: coded ? error.code : "FAILED",
    message: `${entry.action} ${entry.domain}${id === undefined ? "" : ` (id ${id})`} failed: ${reason(error, entry)}`,
  };
  if (id !== undefined) failure.id = id;
  if (error instanceof HttpError && error.status !== undefined) failure.status = error.status;
  return failure;
}

function reason(error: unknown, entry: WriteEntry): string {
  if (error instanceof ClientError && error.status === 404) {
    return "HTTP 404: the website no longer exists remotely; the next pass creates it again if it is declared";
  }
  if (error instanceof ClientError) return `HTTP ${error.status}: ${error.providerMessage}`;
  if (error instanceof AuthError) return `${error.message}; nothing more is sent in this pass`;
  if (error instanceof NotAttempted) return "not sent: the service refused the API key earlier in this pass";
  if (error instanceof HttpError && error.outcome === "unknown" && entry.action === "create") {
    return `${error.message} (the outcome is unknown; the next pass adopts the website if it was created)`;
  }
  return error instanceof Error ? error.message : String(error);
}
