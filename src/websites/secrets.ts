// Keyed hashes of the write-only website values (password, exclude_params): the service never returns them,
// so drift is judged against what topsync last applied. HMAC-SHA256 under a key derived from the API key.
import { createHmac } from "node:crypto";
import type { WebsiteItem } from "../config/index.js";
import type { SecretHashes } from "./model.js";

/**
 * The hashing key, derived from the analytics API key so the database alone never lets anyone test
 * guesses. A new API key makes every stored hash stale: the next pass sets the write-only values once more.
 */
export function deriveSecretKey(apiKey: string): string {
  return createHmac("sha256", apiKey).update("topsync website secrets v1").digest("hex");
}

function keyedHash(key: string, field: string, value: string): string {
  return createHmac("sha256", Buffer.from(key, "hex")).update(`${field}\n${value}`).digest("hex");
}

export function passwordHash(key: string, password: string): string {
  return keyedHash(key, "password", password);
}

/** The list as a set: trimmed, without blanks or repeats, in a fixed order. */
export function excludeParamsHash(key: string, params: readonly string[]): string {
  return keyedHash(key, "exclude_params", canonicalSet(params).join("\n"));
}

export function canonicalSet(values: readonly string[]): string[] {
  const set = new Set(values.map((value) => value.trim()).filter((value) => value !== ""));
  return [...set].sort();
}

/** The hashes of an item's write-only values as declared (the password only when privacy is password). */
export function declaredSecrets(item: WebsiteItem, key: string): SecretHashes {
  const hashes: SecretHashes = { exclude_params: excludeParamsHash(key, item.exclude_params) };
  if (item.privacy === 2 && item.password !== undefined) hashes.password = passwordHash(key, item.password);
  return hashes;
}
