// The `console` section: the operations console on the daemon's port (off unless enabled), its users with their
// scrypt password hashes and roles, how long a session lasts, and the key it signs approvals with.
import * as z from "zod";
import {
  boolean,
  duration,
  evenWithFieldIssues,
  httpUrl,
  integer,
  MAX_SPAN_MS,
  show,
  text,
} from "./fields.js";

export const CONSOLE_ROLES = ["viewer", "operator", "approver"] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** `topsync console hash-password` writes `scrypt$N$r$p$salt$hash` (salt and hash in base64). */
export const PASSWORD_HASH =
  /^scrypt\$\d{1,8}\$\d{1,3}\$\d{1,3}\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/;

/**
 * The `console` section's schema. Built only when a config has the section (`optionalSection`, fields.ts): most
 * configs leave it out, and building zod schemas is much of a command's start.
 */
export function buildConsoleSchema() {
  const passwordHash = text().refine((hash) => PASSWORD_HASH.test(hash), {
    error: () =>
      "expected a hash as `topsync console hash-password` prints it (scrypt$N$r$p$salt$hash); a password itself is never written in config",
  });

  const userSchema = z.strictObject({
    password_hash: passwordHash,
    role: z.enum(CONSOLE_ROLES, {
      error: (iss) => `expected one of ${CONSOLE_ROLES.join(", ")}, got ${show(iss.input)}`,
    }),
    /** An approver's own private key file, which the console signs their approvals with (else `signing_key`). */
    signing_key: text().optional(),
  });

  return z
    .strictObject({
      enabled: boolean().prefault(false),
      path: text()
        .regex(/^\/[A-Za-z0-9._~/-]*$/, "must start with / and hold only letters, digits and . _ ~ / -")
        .refine(
          // As the console takes it: without its trailing slashes ("//" was not "/", and became "": every path).
          (path) => !["", "/healthz", "/readyz", "/metrics"].includes(path.replace(/\/+$/, "")),
          {
            message: "must be a path of its own (not /, /healthz, /readyz or /metrics)",
          },
        )
        .prefault("/console"),
      /** Where people reach the console (behind TLS): cookies are Secure when it is https; messages link to it. */
      public_url: httpUrl().optional(),
      session_ttl: duration({ min: 60_000, max: MAX_SPAN_MS }).prefault("12h"),
      /** Every action hidden and refused: a look-only console. */
      read_only: boolean().prefault(false),
      /**
       * A file with the ed25519 private key (as `topsync keys new` writes it) the console signs approvals with, for
       * an approver without a `signing_key` of their own under `users`.
       */
      signing_key: text().optional(),
      users: z
        .record(
          z
            .string()
            .regex(
              /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
              "a user's name is 1 to 64 letters, digits, . _ -, starting with a letter or digit",
            ),
          userSchema,
        )
        .prefault({}),
      /**
       * Failed logins allowed per user name from one source address (ten times as many from all sources together),
       * and per source address, in `login_window`; then logins wait.
       */
      login_attempts: integer(1, 1000).prefault(5),
      login_attempts_per_source: integer(1, 10_000).prefault(20),
      login_window: duration({ min: 1000, max: MAX_SPAN_MS }).prefault("15m"),
    })
    .superRefine((section, ctx) => {
      if (section.enabled && Object.keys(section.users).length === 0)
        ctx.addIssue({
          code: "custom",
          path: ["users"],
          message:
            "the console is enabled but has no users; add one (name: {password_hash, role}) with a hash from `topsync console hash-password`",
        });
    }, evenWithFieldIssues);
}

/** Whether a listen address is this machine's loopback: a console bound there is reached by no other machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * A console on an address other machines reach needs `public_url`: the Origin of every POST is checked against it,
 * and without it the only thing to check against would be the request's own Host header, which the client writes
 * (a page on a rebound DNS name sends a Host and an Origin that agree). On loopback the console checks the Origin
 * against its own loopback addresses and port instead (handler.ts).
 */
export function checkConsoleOrigin(
  config: { console?: unknown; server?: unknown },
  ctx: z.RefinementCtx,
): void {
  const section = config.console as { enabled?: unknown; public_url?: unknown } | undefined;
  const host = (config.server as { host?: unknown } | undefined)?.host;
  if (section?.enabled !== true || section.public_url !== undefined || typeof host !== "string") return;
  if (isLoopbackHost(host)) return;
  ctx.addIssue({
    code: "custom",
    path: ["console", "public_url"],
    message: `the console is enabled on server.host ${host}, which is not a loopback address, and console.public_url is not set: a POST's Origin would have nothing to be checked against but the request's own Host header, which any client (or a rebound DNS name) sets. Set console.public_url to the address people open the console at (e.g. https://ops.example.com/console), or bind server.host to 127.0.0.1 and reach it through a tunnel or a proxy`,
  });
}

/** A config without the section: what `buildConsoleSchema()` makes of `{}` (test/config/sections.test.ts checks). */
export function consoleDefaults(): ConsoleConfig {
  return {
    enabled: false,
    path: "/console",
    session_ttl: 12 * 3_600_000,
    read_only: false,
    users: {},
    login_attempts: 5,
    login_attempts_per_source: 20,
    login_window: 15 * 60_000,
  };
}

export type ConsoleConfig = z.output<ReturnType<typeof buildConsoleSchema>>;
export type ConsoleUser = ConsoleConfig["users"][string];
