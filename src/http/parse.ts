// Checks an answer against its schema; a mismatch becomes a MalformedResponseError that says where.
import type * as z from "zod";
import type { CallInfo } from "./errors.js";
import { MalformedResponseError } from "./errors.js";
import type { ServiceResponse } from "./service-client.js";

export function parseAnswer<S extends z.ZodType>(
  schema: S,
  response: ServiceResponse,
  call: CallInfo,
): z.output<S> {
  const result = schema.safeParse(response.body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const where = first && first.path.length > 0 ? first.path.join(".") : "(the body)";
  const what = first?.message ?? "unexpected shape";
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problems)` : "";
  throw new MalformedResponseError(
    call,
    response.status,
    `the answer does not have the documented shape: ${where}: ${what}${more}`,
    response.body,
  );
}
