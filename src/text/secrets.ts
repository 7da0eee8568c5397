// Keeping a secret out of text in every form a service may echo it back: as written, in any letter case,
// percent-encoded (any subset of its characters, either hex case, `+` for a space), and base64 of the
// `Bearer <key>` header or of the key alone.

const MIN_LENGTH = 4;
const patterns = new Map<string, RegExp[]>();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** One character of the secret: itself, or its UTF-8 bytes percent-encoded (and `+` for a space). */
function characterForm(char: string): string {
  const bytes = [...Buffer.from(char, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  const forms = [escapeRegExp(char), bytes];
  if (char === " ") forms.push("\\+");
  return `(?:${forms.join("|")})`;
}

function base64Forms(secret: string): string[] {
  const forms = [`Bearer ${secret}`, secret].flatMap((value) => {
    const buffer = Buffer.from(value, "utf8");
    return [buffer.toString("base64").replace(/=+$/, ""), buffer.toString("base64url")];
  });
  // Padding is optional in the forms above and matched when present, so none of it is left behind.
  return [...new Set(forms)].sort((a, b) => b.length - a.length).map((form) => `${escapeRegExp(form)}={0,2}`);
}

function patternsOf(secret: string): RegExp[] {
  let found = patterns.get(secret);
  if (!found) {
    // Case-insensitive matching covers the key lower- or upper-cased and %2b/%2B alike; base64 is matched in
    // its own case only (a case change there is a different value).
    found = [
      new RegExp(base64Forms(secret).join("|"), "g"),
      new RegExp([...secret].map(characterForm).join(""), "gi"),
    ];
    patterns.set(secret, found);
  }
  return found;
}

/** Replaces every form of `secret` in `text` with `replacement`. */
export function redactSecretForms(text: string, secret: string, replacement = "[redacted]"): string {
  if (secret.length < MIN_LENGTH || text === "") return text;
  return patternsOf(secret).reduce((out, pattern) => out.replace(pattern, replacement), text);
}

/** A deep copy of a parsed value with every form of every secret replaced in its strings and keys. */
export function redactSecretsDeep(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === "string") return secrets.reduce((text, s) => redactSecretForms(text, s), value);
  if (depth > 32 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecretsDeep(item, secrets, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, redactSecretsDeep(key, secrets) as string, {
      value: redactSecretsDeep(item, secrets, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
