// The console's settings beyond what the config schema checks: its signing keys read from each approver's
// `console.users.NAME.signing_key` and the shared `console.signing_key` (relative to the config file's folder), which
// approvers can sign with them, and `topsync doctor`'s check of them.

import { createPublicKey, type KeyObject } from "node:crypto";
import { resolve } from "node:path";
import type { Config } from "../config/index.js";
import { type CheckResult, fail, pass, warn } from "../doctor/check.js";
import { ExitCode, TopsyncError } from "../errors.js";
import { ownEntry } from "../own-entry.js";
import { publicKeyText, readPrivateKey } from "../plans/approvals.js";

/**
 * The keys the console signs approvals with: each approver's own (`console.users.NAME.signing_key`) and the shared
 * one (`console.signing_key`) for an approver without one. Several approvers can then each approve in the console
 * with the key `approvals.approvers` names for them.
 */
export interface SigningKeys {
  shared?: KeyObject;
  users: ReadonlyMap<string, KeyObject>;
}

/** The console's signing keys; an unreadable one is a config error naming its field. */
export function readSigningKeys(config: Config, configDir: string): SigningKeys {
  const users = new Map<string, KeyObject>();
  for (const [name, user] of Object.entries(config.console.users))
    if (user.signing_key)
      users.set(name, readKey(configDir, user.signing_key, `console.users.${name}.signing_key`));
  const shared = config.console.signing_key;
  return shared ? { shared: readKey(configDir, shared, "console.signing_key"), users } : { users };
}

/** The key the console signs this user's approvals with: their own, else the shared one. */
export function signingKeyOf(keys: SigningKeys, user: string): KeyObject | undefined {
  return keys.users.get(user) ?? keys.shared;
}

/** A user's signing key and where it is set, as a console view carries them. */
export function signingOf(
  keys: SigningKeys,
  user: string,
): { signingKey?: KeyObject; signingKeyField?: string } {
  const signingKey = signingKeyOf(keys, user);
  return signingKey ? { signingKey, signingKeyField: signingKeyField(keys, user) } : {};
}

/** Where a user's console signing key is set, for messages. */
export function signingKeyField(keys: SigningKeys, user: string): string {
  return keys.users.has(user) ? `console.users.${user}.signing_key` : "console.signing_key";
}

function readKey(configDir: string, file: string, field: string): KeyObject {
  const path = resolve(configDir, file);
  try {
    return readPrivateKey(path);
  } catch (error) {
    throw new TopsyncError(
      "CONFIG",
      `${field}: cannot read the ed25519 private key ${path}: ${(error as Error).message}`,
      ExitCode.config,
    );
  }
}

/** Why each console approver could not approve there (not an approver of record, or a key that is not theirs). */
export function approverProblems(config: Config, keys: SigningKeys): string[] {
  const problems: string[] = [];
  for (const [name, user] of Object.entries(config.console.users)) {
    if (user.role !== "approver") continue;
    const key = ownEntry(config.approvals.approvers, name);
    const signingKey = signingKeyOf(keys, name);
    if (!key)
      problems.push(`approver ${name} is not among approvals.approvers, so cannot approve in the console`);
    else if (!signingKey)
      problems.push(
        `approver ${name} cannot approve in the console: it has no console.users.${name}.signing_key or console.signing_key to sign with`,
      );
    else if (key !== publicKeyText(createPublicKey(signingKey)))
      problems.push(
        `approvals.approvers.${name} is not the public key of ${signingKeyField(keys, name)}, so ${name} cannot approve in the console`,
      );
  }
  return problems;
}

/** `topsync doctor`'s look at the console: off, or on with a readable key, approvers who can sign, and TLS. */
export function checkConsole(config: Config, configDir: string): CheckResult[] {
  const section = config.console;
  if (!section.enabled) return [pass("console", "the console is off")];
  let keys: SigningKeys;
  try {
    keys = readSigningKeys(config, configDir);
  } catch (error) {
    return [
      fail(
        "console",
        (error as Error).message,
        "write the key with `topsync keys new` and point the field at its private key file",
      ),
    ];
  }
  const results: CheckResult[] = [];
  const users = Object.keys(section.users).length;
  const where = section.public_url ?? `${section.path} on the daemon's port`;
  if (!section.public_url)
    results.push(
      warn(
        "console",
        `the console is on at ${where} with ${users} users, but console.public_url is not set: its cookies are not marked Secure and messages carry no link to it`,
        "serve it behind TLS and set console.public_url to its https address",
      ),
    );
  else if (!section.public_url.startsWith("https:"))
    results.push(
      warn(
        "console",
        `console.public_url is ${section.public_url}: passwords and session cookies cross the network in the clear`,
        "serve the console behind TLS (a reverse proxy or an ingress) and give its https address",
      ),
    );
  else results.push(pass("console", `the console is on at ${where} with ${users} users`));
  for (const problem of approverProblems(config, keys))
    results.push(
      warn(
        "console approvers",
        problem,
        "give the approver their own console.users.NAME.signing_key whose public key approvals.approvers names, or give the user another role",
      ),
    );
  return results;
}
