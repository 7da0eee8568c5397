// Reading what a 422 from the analytics service refused, whichever of its two validation shapes it used:
// `{"message":{field:[…]},"status":422}` or Laravel's `{"message":"…","errors":{field:[…]}}`.
import { ClientError } from "../http/errors.js";

/** The messages the service gave for one field of a refused request (none when it is not a 422). */
export function fieldMessages(error: unknown, field: string): string[] {
  if (!(error instanceof ClientError) || error.status !== 422) return [];
  const body = error.body;
  if (typeof body !== "object" || body === null) return [];
  const { message, errors } = body as { message?: unknown; errors?: unknown };
  const fields = [message, errors].filter((value) => typeof value === "object" && value !== null);
  return fields.flatMap((map) => {
    const value = (map as Record<string, unknown>)[field];
    const list = Array.isArray(value) ? value : [value];
    return list.filter((item): item is string => typeof item === "string");
  });
}

/**
 * The service's words when a create was refused because the domain is taken (`unique:websites,domain` is
 * installation-wide, so another account may hold it); undefined for any other refusal.
 */
export function domainTakenMessage(error: unknown): string | undefined {
  return fieldMessages(error, "domain").find((message) => /already (been )?taken/i.test(message));
}
