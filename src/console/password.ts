// Console passwords: scrypt (node:crypto) with a random salt, written `scrypt$N$r$p$salt$hash`, checked in constant
// time. The cost parameters travel with each hash, so a later default never locks out an existing user.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt's cost: N = 2^15 with r = 8 uses 32 MiB and about 50-100 ms per check (OWASP's advice). */
const N = 32_768;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Whether `password` is the one `hash` was made from; false for a hash that cannot be read. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = hash.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  if (expected.length !== KEY_LENGTH) return false;
  try {
    const given = await derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p));
    return timingSafeEqual(given, expected);
  } catch {
    return false;
  }
}
