// A website plan as a value that can be saved: each create, update and delete the reconciler's pure planner decides,
// with the remote record as it was read (the evidence a later apply compares against) and what it will send
// (write-only values only as "(sensitive)"; the planner's entry carries their keyed hashes, never their text).
import type { RemoteWebsite } from "../analytics/schemas.js";
import type { ApprovalsConfig } from "../config/index.js";
import type { Plan, PlanEntry } from "../websites/model.js";
import { SENSITIVE } from "../websites/model.js";
import { type Authorship, approvalsForWebsites, authorFields } from "./approvals.js";
import {
  newPlanId,
  PLAN_FORMAT_VERSION,
  planDigest,
  type WebsiteItem,
  type WebsitePlan,
} from "./document.js";

type Change = Extract<PlanEntry, { action: "create" | "update" | "delete" }>;

export function isChange(entry: PlanEntry): entry is Change {
  return entry.action === "create" || entry.action === "update" || entry.action === "delete";
}

/** The remote record as a plan keeps it: every field the service shows, as text. */
export function remoteSnapshot(website: RemoteWebsite): Record<string, string | null> {
  return {
    id: String(website.id),
    domain: website.domain,
    privacy: String(website.privacy),
    // Not known (the record said null): null, which `wanted` takes as not seen.
    email: website.email === undefined ? null : String(website.email),
    exclude_bots: website.exclude_bots === undefined ? null : String(website.exclude_bots),
    exclude_ips: [...website.exclude_ips].sort().join("\n"),
    password_set: website.password === undefined ? null : String(website.password),
    updated_at: website.updated_at ?? null,
  };
}

function desiredOf(entry: Change): Record<string, string | null> | null {
  if (entry.action === "delete") return null;
  const send = entry.send;
  const desired: Record<string, string | null> = {};
  if (send.privacy !== undefined) desired.privacy = String(send.privacy);
  if (send.email !== undefined) desired.email = String(send.email);
  if (send.exclude_bots !== undefined) desired.exclude_bots = String(send.exclude_bots);
  if (send.exclude_ips !== undefined) desired.exclude_ips = [...send.exclude_ips].sort().join("\n");
  if (send.exclude_params !== undefined) desired.exclude_params = SENSITIVE;
  if (entry.sendPassword) desired.password = SENSITIVE;
  return desired;
}

export interface WebsitePlanMeta {
  now: Date;
  author: Authorship;
  configDigest: string | null;
  approvals: ApprovalsConfig;
  planId?: string;
}

/** The plan file of a planner's Plan and the listing it was made from. */
export function websitePlanFrom(
  plan: Plan,
  remote: readonly RemoteWebsite[],
  meta: WebsitePlanMeta,
): WebsitePlan {
  const byId = new Map(remote.map((w) => [w.id, w]));
  const items: WebsiteItem[] = plan.entries.filter(isChange).map((entry) => {
    const id = entry.action === "create" ? null : entry.id;
    const website = id === null ? undefined : byId.get(id);
    return {
      action: entry.action,
      domain: entry.domain,
      website_id: id === null ? null : String(id),
      remote: website ? remoteSnapshot(website) : null,
      desired: desiredOf(entry),
      entry: JSON.stringify(entry),
    };
  });
  const notes = plan.entries
    .filter((entry) => !isChange(entry) && entry.action !== "noop")
    .map((entry) => `${entry.action} ${entry.domain}: ${"reason" in entry ? entry.reason : ""}`);
  const deletes = items.filter((i) => i.action === "delete").length;
  const planId = meta.planId ?? newPlanId();
  const digest = planDigest({ kind: "websites", items });
  return {
    format_version: PLAN_FORMAT_VERSION,
    kind: "websites",
    plan_id: planId,
    created_at: meta.now.toISOString(),
    expires_at: new Date(meta.now.getTime() + meta.approvals.plan_ttl).toISOString(),
    ...authorFields(planId, digest, approvalsForWebsites(meta.approvals, deletes), meta.author),
    config_digest: meta.configDigest,
    digest,
    total: "0.00",
    approvals: [],
    items,
    notes,
  };
}
