// The values the website reconciler passes between its steps: what topsync owns, and the plan (a plain,
// serialisable value without any secret: the password is looked up from config only when it is sent).
import type { WebsiteInput } from "../analytics/client.js";

/** How a domain came into the ownership table; only `created` and `imported` make a website owned. */
export type OwnershipOrigin = "created" | "imported" | "declared";

/** Keyed hashes (hex) of the last applied write-only values. */
export interface SecretHashes {
  password?: string;
  exclude_params?: string;
}

export interface OwnershipRecord {
  /** Normalised domain. */
  domain: string;
  /** Null when a create's outcome was unknown: the website may or may not exist. */
  website_id: number | null;
  origin: OwnershipOrigin;
  applied_secrets: SecretHashes | null;
}

export type Ownership = ReadonlyMap<string, OwnershipRecord>;

export type FieldName = "privacy" | "email" | "exclude_bots" | "exclude_ips" | "password" | "exclude_params";
export type FieldValue = string | boolean | string[] | null;
export type Diff = Partial<Record<FieldName, { from: FieldValue; to: FieldValue }>>;

/** How a write-only value appears in a plan: never its text. */
export const SENSITIVE = "(sensitive)";

/** What is sent, minus the password (the plan never holds it). */
export type WebsiteFields = Omit<WebsiteInput, "domain" | "password">;

export interface CreateEntry {
  action: "create";
  domain: string;
  /** As written in config, when normalisation rewrote it. */
  declared_domain?: string;
  diff: Diff;
  send: WebsiteFields;
  sendPassword: boolean;
  /** Hashes of the write-only values sent, recorded in the ownership table once applied. */
  secrets: SecretHashes;
  /** Topsync owned an earlier website with this domain: it was deleted remotely and is re-created. */
  reason?: string;
}

export interface UpdateEntry {
  action: "update";
  domain: string;
  id: number;
  owned: boolean;
  diff: Diff;
  send: WebsiteFields;
  sendPassword: boolean;
  secrets: SecretHashes;
}

export interface DeleteEntry {
  action: "delete";
  domain: string;
  id: number;
  reason: string;
}

export interface UnmanagedEntry {
  action: "unmanaged";
  domain: string;
  id: number;
  reason: string;
}

export interface ConflictEntry {
  action: "conflict";
  domain: string;
  ids: number[];
  reason: string;
}

/** A create or delete not planned because the remote listing was incomplete: the website may be on a page not read. */
export interface WithheldEntry {
  action: "withheld";
  domain: string;
  /** The remote website a withheld delete is about. */
  id?: number;
  /** What would have been planned from a complete listing. */
  instead: "create" | "delete";
  reason: string;
}

export interface NoopEntry {
  action: "noop";
  domain: string;
  id: number;
  /**
   * topsync owns the domain without knowing the website's id (a create whose outcome was unknown): applying the plan
   * records this website as the one it owns, as an update would.
   */
  adopt?: true;
}

export type PlanEntry =
  | CreateEntry
  | UpdateEntry
  | DeleteEntry
  | UnmanagedEntry
  | ConflictEntry
  | WithheldEntry
  | NoopEntry;
export type Action = PlanEntry["action"];

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  unchanged: number;
  unmanaged: number;
  conflicts: number;
  /** Creates and deletes not planned because the listing was incomplete. */
  withheld: number;
}

export interface Plan {
  /** One entry per normalised domain (two remote websites sharing one are one conflict), by domain. */
  entries: PlanEntry[];
  summary: PlanSummary;
  /** How many websites config declares (an empty list never deletes anything). */
  declared: number;
  /**
   * `complete` false: the pages disagreed, or (`vanished`, how many) the listing shows none of the websites topsync
   * owns; `problem` says which. No create or delete is planned from it, and nothing is forgotten.
   */
  remote: { websites: number; complete: boolean; problem?: string; vanished?: number };
  prune: boolean;
  /** Owned domains that are neither declared nor remote any more: their ownership rows are dropped. */
  forget: string[];
}

export function hasChanges(plan: Plan): boolean {
  const { create, update, delete: deletes } = plan.summary;
  return create + update + deletes > 0;
}
