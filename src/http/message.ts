// Reading a provider's reason out of an error body, whatever shape it takes, and keeping secrets out of it.
import { redactSecretForms } from "../text/secrets.js";

/** The provider's own words: `message` (string or Laravel's field map) and `errors`, flattened to one line. */
export function providerMessage(body: unknown, text: string): string {
  if (typeof body === "object" && body !== null) {
    const record = body as Record<string, unknown>;
    const parts = [flatten(record.message), flatten(record.errors)].filter((p) => p !== "");
    const unique = [...new Set(parts)];
    if (unique.length > 0) return unique.join(" — ");
  }
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat === "" ? "(empty body)" : flat.slice(0, 200);
}

function flatten(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(flatten).filter(Boolean).join("; ");
  if (typeof value === "object" && value !== null) {
    return Object.entries(value)
      .map(([field, messages]) => `${field}: ${flatten(messages)}`)
      .join("; ");
  }
  return "";
}

/** Replaces every occurrence of a secret with [redacted], in every form it may be echoed (src/text/secrets.ts). */
export function redactSecret(text: string, secret: string): string {
  return redactSecretForms(text, secret);
}
