// Who must approve a plan, and whether an approval is one: the rules' tiers, ed25519 key pairs (`keys new`), the
// signature of a decision over a plan's digest, and the count of distinct valid approvals `apply` relies on.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import type { ApprovalsConfig } from "../config/index.js";
import type { AuthorProof } from "../db/schema.js";
import { UsageError } from "../errors.js";
import type { Money } from "../money.js";
import { ownEntry } from "../own-entry.js";
import type { Approval } from "./document.js";

/** Approvals a purchase plan of this total needs: the highest tier it passes (0 when none). */
export function approvalsForTotal(approvals: ApprovalsConfig, total: Money): number {
  let needed = 0;
  for (const rule of approvals.rules)
    if ("above" in rule && total.gt(rule.above)) needed = Math.max(needed, rule.approvals);
  return needed;
}

/** Approvals a website plan needs: the `deletes` rules when it deletes anything. */
export function approvalsForWebsites(approvals: ApprovalsConfig, deletes: number): number {
  let needed = 0;
  for (const rule of approvals.rules)
    if ("deletes" in rule && deletes > 0) needed = Math.max(needed, rule.deletes);
  return needed;
}

/** The lowest amount tier: a run whose total is above it is held for approval. Undefined without amount rules. */
export function firstThreshold(approvals: ApprovalsConfig): Money | undefined {
  let lowest: Money | undefined;
  for (const rule of approvals.rules)
    if ("above" in rule && (!lowest || rule.above.lt(lowest))) lowest = rule.above;
  return lowest;
}

/** A new approver's key pair: the private key as PKCS#8 PEM, the public key as config holds it. */
export function newKeyPair(): { privatePem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKey: publicKeyText(publicKey),
  };
}

/** "ed25519:" and the key's 32 raw bytes in base64 (the last 32 bytes of its SPKI form). */
export function publicKeyText(key: KeyObject): string {
  const der = key.export({ type: "spki", format: "der" });
  return `ed25519:${der.subarray(der.length - 32).toString("base64")}`;
}

/** The SPKI prefix of every ed25519 public key (RFC 8410), before its 32 raw bytes. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function publicKeyFrom(text: string): KeyObject {
  const raw = Buffer.from(text.replace(/^ed25519:/, ""), "base64");
  if (raw.length !== 32) throw new Error("an ed25519 public key has 32 bytes");
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: "der", type: "spki" });
}

/** The most a private key file is read of: `keys new` writes 119 bytes. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * Reads and parses a private key file (`approve --key`, `console.signing_key`). Only a regular file of a few bytes is
 * read: /dev/zero would be read until memory ran out and a FIFO would wait for a writer for ever (it is opened
 * without blocking, then refused).
 */
export function readPrivateKey(path: string): KeyObject {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new Error("it is a directory, not a key file");
    if (!stat.isFile())
      throw new Error("it is not a regular file (a device, FIFO or socket), not a key file");
    if (stat.size > MAX_KEY_FILE_BYTES)
      throw new Error(`it is ${stat.size} bytes, more than a key file has (${MAX_KEY_FILE_BYTES})`);
    return privateKeyFrom(readFileSync(fd, "utf8"));
  } finally {
    closeSync(fd);
  }
}

/** Reads a private key file as `keys new` wrote it; throws a readable error for anything else. */
export function privateKeyFrom(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519")
    throw new Error(`an ed25519 key is needed, not ${key.asymmetricKeyType}`);
  return key;
}

/**
 * What an approver signs: the decision, the plan's id and its digest, and the approver's name. Binding the id
 * keeps an approval of one plan from counting for another with the same items; binding the digest voids it when
 * the items change.
 */
function signedText(planId: string, approval: Pick<Approval, "approver" | "decision" | "digest">): Buffer {
  return Buffer.from(
    `topsync plan approval v1\n${approval.decision}\n${planId}\n${approval.digest}\n${approval.approver}\n`,
    "utf8",
  );
}

export function signDecision(
  planId: string,
  key: KeyObject,
  decision: Omit<Approval, "signature">,
): Approval {
  const signature = sign(null, signedText(planId, decision), key).toString("base64");
  return { ...decision, signature };
}

/**
 * What an author signs to prove a plan's name is theirs: the plan's id, its digest and the name. Binding the id and
 * digest keeps the signature of one plan from proving the author of another.
 */
function authorText(planId: string, digest: string, author: string): Buffer {
  return Buffer.from(`topsync plan author v1\n${planId}\n${digest}\n${author}\n`, "utf8");
}

/**
 * How a plan's author is known. Without `--as`, or with `--as` naming the operating system's account, the name is
 * the account's (`account`). With a key, the name is an approver's proven by their signature (`key`). `--as` naming
 * anyone else without a key is a claim (`claimed`): whoever saved it may be an approver, so the plan needs one
 * approval more than its rules ask.
 */
export interface Authorship {
  name: string;
  proof: AuthorProof;
  /** With proof `key`: the author's private key (an approver's, checked by `checkAuthorKey`). */
  key?: KeyObject;
}

/** The author's signature for a plan, or null when the author is not proven by a key. */
export function authorSignature(planId: string, digest: string, author: Authorship): string | null {
  return author.key
    ? sign(null, authorText(planId, digest, author.name), author.key).toString("base64")
    : null;
}

/**
 * Refuses a key that cannot prove the name it is given with: the name must be one of `approvals.approvers` and the
 * key that approver's (a signature it makes must verify with the public key the config holds).
 */
export function checkAuthorKey(approvers: ApprovalsConfig["approvers"], author: Authorship): void {
  if (!author.key) return;
  const mismatch = keyMismatch(approvers, author.name, author.key);
  if (mismatch === "not_approver")
    throw new UsageError(
      `--key proves an approver's name, and ${JSON.stringify(author.name)} is not among approvals.approvers; leave out --key to save the plan as a claim (it then needs one approval more)`,
    );
  if (mismatch === "other_key")
    throw new UsageError(
      `the key given is not ${author.name}'s: approvals.approvers.${author.name} names another; nothing was saved`,
    );
}

/**
 * Whether `key` is the private key of the public key `approvals.approvers` names for `name`: `not_approver` when
 * no key is named for it, `other_key` when another is, undefined when it is this one.
 */
export function keyMismatch(
  approvers: ApprovalsConfig["approvers"],
  name: string,
  key: KeyObject,
): "not_approver" | "other_key" | undefined {
  const configured = ownEntry(approvers, name);
  if (!configured) return "not_approver";
  return publicKeyText(createPublicKey(key)) === configured ? undefined : "other_key";
}

/**
 * Why a plan's author is not proven, or null when it is: a claim, or a signature that no longer verifies (the
 * author's key was changed or removed from approvals.approvers since).
 */
export function authorUnproven(
  plan: {
    id: string;
    digest: string;
    author: string;
    author_proof: AuthorProof;
    author_signature: string | null;
  },
  approvers: ApprovalsConfig["approvers"],
): string | null {
  if (plan.author_proof === "account") return null;
  if (plan.author_proof === "claimed")
    return `its author ${JSON.stringify(plan.author)} was named with --as and did not sign it`;
  const publicKey = ownEntry(approvers, plan.author);
  if (!publicKey) return `its author ${plan.author} signed it but is no longer among approvals.approvers`;
  return verifies(authorText(plan.id, plan.digest, plan.author), publicKey, plan.author_signature)
    ? null
    : `its author ${plan.author}'s signature does not verify with the key in approvals.approvers`;
}

/**
 * A plan's author fields and the approvals it needs: its rules' count, one more when its author only claims a name.
 */
export function authorFields(
  planId: string,
  digest: string,
  rulesRequire: number,
  author: Authorship,
): {
  author: string;
  author_proof: AuthorProof;
  author_signature: string | null;
  approvals_required: number;
} {
  return {
    author: author.name,
    author_proof: author.proof,
    author_signature: authorSignature(planId, digest, author),
    approvals_required: withUnprovenAuthor(rulesRequire, author.proof === "claimed"),
  };
}

/** The approvals a plan needs when its author is not proven: one more than its rules ask, when they ask any. */
export function withUnprovenAuthor(required: number, unproven: boolean): number {
  return unproven && required > 0 ? required + 1 : required;
}

function verifies(text: Buffer, publicKey: string, signature: string | null): boolean {
  if (signature === null) return false;
  try {
    return verify(null, text, publicKeyFrom(publicKey), Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

/**
 * Whether an approver's name is the plan's author's: compared without case, surrounding space or compatibility forms,
 * since a plan's author is whatever name its saver gave (`--as`, the operating system's user): "Ada", " ada" and
 * "ＡＤＡ" are ada, who cannot approve what she wrote.
 */
export function isAuthor(approver: string, author: string): boolean {
  const fold = (name: string) => name.normalize("NFKC").trim().toLowerCase();
  return fold(approver) === fold(author);
}

/** Why an approval does not count for this plan, or null when it does. */
export function approvalProblem(
  approval: Approval,
  plan: { plan_id: string; digest: string; author: string },
  approvers: ApprovalsConfig["approvers"],
): string | null {
  const key = approvers[approval.approver];
  if (!key) return `${approval.approver} is not among approvals.approvers`;
  if (approval.decision === "approve" && isAuthor(approval.approver, plan.author))
    return `${approval.approver} is the plan's author`;
  if (approval.digest !== plan.digest)
    return `${approval.approver} approved other items (digest ${approval.digest})`;
  const good = verifies(signedText(plan.plan_id, approval), key, approval.signature);
  return good ? null : `${approval.approver}'s signature does not verify with the key in approvals.approvers`;
}

export interface ApprovalCount {
  /** Distinct approvers whose approval counts. */
  valid: string[];
  /** Approvals that do not count, each with why. */
  void: Array<{ approver: string; why: string }>;
  /** A valid rejection, when there is one. */
  rejectedBy?: string;
  /** Every approver whose rejection is valid (a forged or copied one is not). */
  rejections: string[];
}

/** Counts distinct valid approvals (an approver counts once, wherever the approval came from). */
export function countApprovals(
  approvals: readonly Approval[],
  plan: { plan_id: string; digest: string; author: string },
  approvers: ApprovalsConfig["approvers"],
): ApprovalCount {
  const result: ApprovalCount = { valid: [], void: [], rejections: [] };
  for (const approval of approvals) {
    const why = approvalProblem(approval, plan, approvers);
    if (approval.decision === "reject") {
      // An author may reject their own plan, but only with a signature that verifies, like anyone's.
      if (!why) {
        result.rejectedBy ??= approval.approver;
        result.rejections.push(approval.approver);
      }
      continue;
    }
    if (why) result.void.push({ approver: approval.approver, why });
    else if (!result.valid.includes(approval.approver)) result.valid.push(approval.approver);
  }
  return result;
}

/** The approvals of the ledger and of the file together, one per approver and decision (the ledger's first). */
export function mergeApprovals(ledger: readonly Approval[], file: readonly Approval[]): Approval[] {
  const seen = new Set<string>();
  const merged: Approval[] = [];
  for (const approval of [...ledger, ...file]) {
    const key = `${approval.approver}\n${approval.decision}\n${approval.signature}`;
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(approval);
  }
  return merged;
}
