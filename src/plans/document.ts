// A saved plan as a value and as a file: the fields every plan has, the items of a purchase plan and of a website
// plan, the approvals it carries, and the one reader (a tolerant zod schema at the edge) and writer (mode 0600,
// replaced whole) of plan files.
import { randomBytes } from "node:crypto";
import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import * as z from "zod";
import { AUTHOR_PROOFS } from "../db/schema.js";
import { TopsyncError, UsageError } from "../errors.js";
import { itemsDigest } from "./canonical.js";

export const PLAN_FORMAT_VERSION = "1";
export const PLAN_KINDS = ["purchases", "websites"] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];

/** The largest plan file read (a plan of a million purchases is about 300 MB; more belongs in several plans). */
const MAX_PLAN_BYTES = 512 * 1024 * 1024;

const moneyText = z.string().regex(/^\d{1,12}\.\d{2}$/, "an amount with two decimals, like 305.00");
const instant = z.iso.datetime({ offset: true });

/**
 * One purchase of a purchase plan: exactly what `apply` buys, and the price it may pay at most. Its fields are
 * declared in canonical order (sorted, canonical.ts), which is the order an item read from a file comes out in: its
 * `JSON.stringify` text is then its canonical text, and hashing a plan's items needs no sorting of their keys.
 */
export const purchaseItemSchema = z.object({
  fire_time: instant.nullable(),
  job: z.string().nullable(),
  network: z.string(),
  network_id: z.string().min(1),
  phone: z.string().min(1),
  plan_id: z.string().min(1),
  plan_name: z.string(),
  ported: z.boolean(),
  price: moneyText,
  request_key: z.string().min(1),
  source: z.string(),
});
export type PurchaseItem = z.infer<typeof purchaseItemSchema>;

/** A candidate the projection would not buy, with its code (shown, never applied). */
export const rejectedItemSchema = z.object({
  request_key: z.string(),
  source: z.string(),
  job: z.string().nullable(),
  phone: z.string(),
  network: z.string(),
  plan: z.string().nullable(),
  code: z.string(),
  reason: z.string(),
});
export type RejectedItem = z.infer<typeof rejectedItemSchema>;

/**
 * One website change: the action, the domain, the settings it sends (write-only values as keyed hashes, never the
 * values), and the remote record as it was when planned (`remote`, null for a create): a change whose remote
 * record differs at apply is stale.
 */
export const websiteItemSchema = z.object({
  action: z.enum(["create", "update", "delete"]),
  domain: z.string().min(1),
  website_id: z.string().nullable(),
  remote: z.record(z.string(), z.union([z.string(), z.null()])).nullable(),
  desired: z.record(z.string(), z.union([z.string(), z.null()])).nullable(),
  /** The reconciler's planned change as JSON text: what apply carries out. */
  entry: z.string(),
});
export type WebsiteItem = z.infer<typeof websiteItemSchema>;

export const approvalSchema = z.object({
  approver: z.string().min(1),
  decision: z.enum(["approve", "reject"]),
  digest: z.string(),
  signature: z.string(),
  at: instant,
  reason: z.string().nullable(),
});
export type Approval = z.infer<typeof approvalSchema>;

const base = {
  format_version: z.literal(PLAN_FORMAT_VERSION),
  plan_id: z.string().regex(/^p_[a-z0-9]{8,32}$/),
  created_at: instant,
  expires_at: instant,
  author: z.string().min(1),
  /** How the author's name is known (`saved_plans.author_proof`); a file from before it was a claim. */
  author_proof: z.enum(AUTHOR_PROOFS).default("claimed"),
  /** With `key`: the author's signature over the plan's id, digest and name. */
  author_signature: z.string().nullable().default(null),
  config_digest: z.string().nullable(),
  digest: z.string(),
  total: moneyText,
  approvals_required: z.int().min(0),
  approvals: z.array(approvalSchema).default([]),
};

/** What a purchase plan was asked for: the job and fire, or the queue. */
const purchaseRequestSchema = z.object({
  job: z.string().nullable(),
  fire_time: instant.nullable(),
  queued: z.boolean(),
});

export const purchasePlanSchema = z.object({
  ...base,
  kind: z.literal("purchases"),
  request: purchaseRequestSchema,
  items: z.array(purchaseItemSchema),
  rejected: z.array(rejectedItemSchema).default([]),
});
export type PurchasePlan = z.infer<typeof purchasePlanSchema>;

export const websitePlanSchema = z.object({
  ...base,
  kind: z.literal("websites"),
  items: z.array(websiteItemSchema),
  /** Declared domains the plan leaves alone, and why (unmanaged, conflicts, deletes refused). */
  notes: z.array(z.string()).default([]),
});
export type WebsitePlan = z.infer<typeof websitePlanSchema>;

export const planSchema = z.discriminatedUnion("kind", [purchasePlanSchema, websitePlanSchema]);
export type PlanDocument = z.infer<typeof planSchema>;

/** A purchase item's key in the digest and everywhere else: its request key. */
export function purchaseItemKey(item: PurchaseItem): string {
  return item.request_key;
}

/** A website change's key: its domain and action (a domain changed twice is a delete and a create). */
export function websiteItemKey(item: WebsiteItem): string {
  return `${item.domain}\n${item.action}`;
}

/** The SHA-256 of the plan's canonical items (canonical.ts), whatever else the file says. */
export function planDigest(
  plan: Pick<PurchasePlan, "kind" | "items"> | Pick<WebsitePlan, "kind" | "items">,
): string {
  return plan.kind === "purchases"
    ? itemsDigest(plan.items, purchaseItemKey)
    : itemsDigest(plan.items as WebsiteItem[], websiteItemKey);
}

/** A new plan id: "p_" and 12 random base-32 characters. */
export function newPlanId(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  return `p_${[...randomBytes(12)].map((b) => alphabet[b % alphabet.length]).join("")}`;
}

/** Why a file is not a plan this topsync can apply; `apply` refuses it (exit 1). */
export class PlanFileError extends TopsyncError {
  constructor(message: string, code = "PLAN_REFUSED") {
    super(code, message, 1);
  }
}

/** Reads and checks a plan file. A file that cannot be read is a usage error; one that is not a plan is refused. */
export function readPlanFile(path: string): PlanDocument {
  let text: string;
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) throw new UsageError(`${path} is not a regular file`, "PLAN_FILE");
    if (stat.size > MAX_PLAN_BYTES)
      throw new PlanFileError(
        `${path} is ${stat.size} bytes, more than a plan file may be (${MAX_PLAN_BYTES})`,
      );
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof TopsyncError) throw error;
    throw new UsageError(`cannot read the plan file ${path}: ${(error as Error).message}`, "PLAN_FILE");
  }
  return parsePlan(text, path);
}

export function parsePlan(text: string, where: string): PlanDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError(`${where} is not a plan file: not JSON (${(error as Error).message})`);
  }
  const parsed = planSchema.safeParse(value);
  if (!parsed.success)
    throw new PlanFileError(
      `${where} is not a plan file this topsync can read: ${z.prettifyError(parsed.error)}`,
    );
  return parsed.data;
}

/** The file's text: JSON, two-space indented, items one per line so a diff of two plans reads item by item. */
export function planText(plan: PlanDocument): string {
  const { items, ...head } = plan;
  const rest = "rejected" in head ? { ...head, rejected: undefined } : head;
  const lines = JSON.stringify({ ...rest, items: [] }, null, 2).split("\n");
  const at = lines.findIndex((line) => line.startsWith('  "items": []'));
  const listed = (items as unknown[]).map(
    (item, i, all) => `    ${JSON.stringify(item)}${i < all.length - 1 ? "," : ""}`,
  );
  const body = [...lines.slice(0, at), '  "items": [', ...listed, `  ]${"rejected" in head ? "," : ""}`];
  if ("rejected" in head) {
    const rejected = head.rejected.map(
      (item, i, all) => `    ${JSON.stringify(item)}${i < all.length - 1 ? "," : ""}`,
    );
    body.push('  "rejected": [', ...rejected, "  ]");
  }
  body.push(...lines.slice(at + 1));
  return `${body.join("\n")}\n`;
}

/**
 * Writes a plan file readable by its owner only (mode 0600), replaced whole: written beside the target and
 * renamed over it. Only a regular file is ever replaced.
 */
export function writePlanFile(path: string, plan: PlanDocument, text = planText(plan)): void {
  reservePlanFile(path).write(text);
}

/** A plan file about to be written: its place taken beside the target (`write` fills and renames it). */
export interface ReservedPlanFile {
  write(text: string): void;
  /** `write` in two steps: the text beside the target, then (once the plan is recorded) renamed over it. */
  fill(text: string): void;
  commit(): void;
  /** The plan was not made after all: the reserved file goes. */
  abandon(): void;
}

/**
 * Takes the place of a plan file before the plan is recorded: a target that is not a regular file, a folder that
 * does not exist or cannot be written, are refused here, before the ledger records a plan (and tells its approvers)
 * that no file would hold.
 */
export function reservePlanFile(path: string): ReservedPlanFile {
  const target = resolve(path);
  let existing: ReturnType<typeof lstatSync> | undefined;
  try {
    existing = lstatSync(target);
  } catch {
    existing = undefined;
  }
  if (existing && !existing.isFile())
    throw new UsageError(`${path} exists and is not a regular file; give another name`, "PLAN_FILE");
  const aside = join(
    dirname(target),
    `.${basename(target).slice(0, 40)}.${randomBytes(4).toString("hex")}.tmp`,
  );
  const failed = (error: unknown) => {
    rmSync(aside, { force: true });
    return new UsageError(`cannot write the plan file ${path}: ${(error as Error).message}`, "PLAN_FILE");
  };
  try {
    writeFileSync(aside, "", { mode: 0o600, flag: "wx" });
  } catch (error) {
    throw failed(error);
  }
  return {
    write(text) {
      this.fill(text);
      this.commit();
    },
    fill(text) {
      try {
        writeFileSync(aside, text, { mode: 0o600 });
      } catch (error) {
        throw failed(error);
      }
    },
    commit() {
      try {
        renameSync(aside, target);
      } catch (error) {
        throw failed(error);
      }
    },
    abandon() {
      rmSync(aside, { force: true });
    },
  };
}
