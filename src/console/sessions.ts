// Console sessions and one-time form tokens, kept in the ledger so every replica shares them: a session is a
// random token in an HttpOnly cookie (the ledger keeps only its SHA-256) with its CSRF token; a form token is
// drawn into each form and spent by its first submit, so a second submit of the same form does nothing.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

export interface Session {
  user: string;
  csrf: string;
  expiresAt: Date;
  /** The fingerprint of the password hash the user logged in with (`credentialOf`); null for older sessions. */
  credential: string | null;
}

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

function hashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * What a session remembers of the password it was made with: the SHA-256 of the user's password_hash in config.
 * A session is good only while the config still holds that hash: a password changed (one leaked, a person gone)
 * ends every session made with the old one.
 */
export function credentialOf(passwordHash: string): string {
  return hashOf(passwordHash);
}

/** Equal tokens, compared in constant time. */
export function sameToken(a: string, b: string): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right) && a === b;
}

export async function createSession(
  db: Executor,
  user: { name: string; passwordHash: string },
  now: Date,
  ttlMs: number,
): Promise<{ token: string; session: Session }> {
  const token = newToken();
  const csrf = newToken();
  const expiresAt = new Date(now.getTime() + ttlMs);
  const credential = credentialOf(user.passwordHash);
  // Expired sessions go as new ones come: the table holds the sessions alive and those of the last day.
  await rows(
    db,
    sql`delete from console_sessions where expires_at < ${new Date(now.getTime() - 86_400_000).toISOString()}::timestamptz`,
  );
  await rows(
    db,
    sql`insert into console_sessions (token_hash, user_name, csrf, credential, created_at, expires_at)
        values (${hashOf(token)}, ${user.name}, ${csrf}, ${credential}, ${now.toISOString()}::timestamptz, ${expiresAt.toISOString()}::timestamptz)`,
  );
  return { token, session: { user: user.name, csrf, expiresAt, credential } };
}

/** The live session of a cookie's token, or undefined (unknown, or expired). */
export async function findSession(db: Executor, token: string, now: Date): Promise<Session | undefined> {
  const [row] = await rows<{
    user_name: string;
    csrf: string;
    expires_at: Date | string;
    credential: string | null;
  }>(
    db,
    sql`select user_name, csrf, expires_at, credential from console_sessions
        where token_hash = ${hashOf(token)} and expires_at > ${now.toISOString()}::timestamptz`,
  );
  return row
    ? { user: row.user_name, csrf: row.csrf, expiresAt: new Date(row.expires_at), credential: row.credential }
    : undefined;
}

export async function endSession(db: Executor, token: string): Promise<void> {
  await rows(db, sql`delete from console_sessions where token_hash = ${hashOf(token)}`);
}

/**
 * Spends a form's one-time token: true for its first submit, false when it was spent already (the same form
 * submitted again). Tokens older than a week go as new ones are spent.
 */
export async function spendFormToken(
  db: Executor,
  form: { token: string; user: string; action: string; subject: string },
  now: Date,
): Promise<boolean> {
  const spent = await rows<{ form_token: string }>(
    db,
    sql`insert into console_form_uses (form_token, user_name, action, subject, at)
        values (${form.token}, ${form.user}, ${form.action}, ${form.subject}, ${now.toISOString()}::timestamptz)
        on conflict (form_token) do nothing returning form_token`,
  );
  if (spent.length > 0)
    await rows(
      db,
      sql`delete from console_form_uses where at < ${new Date(now.getTime() - 7 * 86_400_000).toISOString()}::timestamptz`,
    );
  return spent.length > 0;
}

/** Records what a spent form's action came to, for the page a second submit shows. */
export async function recordFormOutcome(db: Executor, token: string, outcome: string): Promise<void> {
  await rows(db, sql`update console_form_uses set outcome = ${outcome} where form_token = ${token}`);
}

/** What a spent form came to (null while its action runs); undefined when not spent, or spent by another user. */
export async function formOutcome(
  db: Executor,
  token: string,
  user: string,
): Promise<string | null | undefined> {
  const [row] = await rows<{ outcome: string | null }>(
    db,
    sql`select outcome from console_form_uses where form_token = ${token} and user_name = ${user}`,
  );
  return row ? row.outcome : undefined;
}
