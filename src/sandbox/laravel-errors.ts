// Laravel's validation summary line, shared by both services' 422 answers.

export type FieldErrors = Record<string, string[]>;

/** The first message, plus how many more there are: "The domain field is required. (and 1 more error)". */
export function summarise(errors: FieldErrors): string {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? "The given data was invalid.";
  const more = messages.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more > 1 ? "s" : ""})` : first;
}
