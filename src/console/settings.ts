// The console's settings beyond what the config schema checks: its signing key read from `console.signing_key`
// (relative to the config file's folder), which approvers can sign with it, and `topsync doctor`'s check of them.

import { createPublicKey, type KeyObject } from "node:crypto";
import { resolve } from "node:path";
import type { Config } from "../config/index.js";
import { type CheckResult, fail, pass, warn } from "../doctor/check.js";
import { ExitCode, TopsyncError } from "../errors.js";
import { ownEntry } from "../own-entry.js";
import { publicKeyText, readPrivateKey } from "../plans/approvals.js";

/** The console's ed25519 signing key, or undefined when none is configured; an unreadable key is a config error. */
export function readSigningKey(config: Config, configDir: string): KeyObject | undefined {
  const file = config.console.signing_key;
  if (!file) return undefined;
  const path = resolve(configDir, file);
  try {
    return readPrivateKey(path);
  } catch (error) {
    throw new TopsyncError(
      "CONFIG",
      `console.signing_key: cannot read the ed25519 private key ${path}: ${(error as Error).message}`,
      ExitCode.config,
    );
  }
}

/** Why each console approver could not approve there (not an approver of record, or a key that is not theirs). */
export function approverProblems(config: Config, signingKey: KeyObject | undefined): string[] {
  const signs = signingKey ? publicKeyText(createPublicKey(signingKey)) : undefined;
  const problems: string[] = [];
  for (const [name, user] of Object.entries(config.console.users)) {
    if (user.role !== "approver") continue;
    const key = ownEntry(config.approvals.approvers, name);
    if (!key)
      problems.push(`approver ${name} is not among approvals.approvers, so cannot approve in the console`);
    else if (!signs)
      problems.push(
        `approver ${name} cannot approve in the console: it has no console.signing_key to sign with`,
      );
    else if (key !== signs)
      problems.push(
        `approvals.approvers.${name} is not the public key of console.signing_key, so ${name} cannot approve in the console`,
      );
  }
  return problems;
}

/** `topsync doctor`'s look at the console: off, or on with a readable key, approvers who can sign, and TLS. */
export function checkConsole(config: Config, configDir: string): CheckResult[] {
  const section = config.console;
  if (!section.enabled) return [pass("console", "the console is off")];
  let key: KeyObject | undefined;
  try {
    key = readSigningKey(config, configDir);
  } catch (error) {
    return [
      fail(
        "console",
        (error as Error).message,
        "write the key with `topsync keys new` and point console.signing_key at its private key file",
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
  for (const problem of approverProblems(config, key))
    results.push(
      warn(
        "console approvers",
        problem,
        "add the approver's public key (of console.signing_key) under approvals.approvers, or give the user another role",
      ),
    );
  return results;
}
