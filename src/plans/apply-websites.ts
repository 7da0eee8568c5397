// `apply` of a website plan: the ledger's plan (same digest), in time, approved as the `deletes` rules ask; each
// change checked against a fresh, complete listing — done already (the remote record is what the change wanted:
// an apply cut short resumes), stale (the remote record changed since the plan), or to apply — then the reconciler's
// own apply carries out exactly those changes, creates and updates before deletes.
import type { RemoteWebsite } from "../analytics/schemas.js";
import { type Clock, systemClock } from "../clock.js";
import type { Config } from "../config/index.js";
import { normaliseDomain } from "../config/index.js";
import type { Db } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { applyPlan, type ApplyResult as WebsitesApplied } from "../websites/apply.js";
import type { Ownership, Plan, PlanEntry, PlanSummary } from "../websites/model.js";
import { loadOwnership } from "../websites/ownership.js";
import { groupRemote } from "../websites/plan.js";
import type { WebsiteApi } from "../websites/reconcile.js";
import { finishRun, startRun } from "../websites/runs.js";
import { deriveSecretKey } from "../websites/secrets.js";
import { admitPlan } from "./approval-state.js";
import { planDigest, type WebsiteItem, type WebsitePlan } from "./document.js";
import { expireOpenPlans } from "./expire.js";
import { fileHeaderProblems, findPlan, markApplied, markApplying, type SavedPlanRow } from "./registry.js";
import { remoteSnapshot } from "./website-plan.js";

export interface WebsiteApplyDeps {
  api: WebsiteApi;
  db: Db;
  config: Config;
  logger: Logger;
  clock?: Clock;
}

export interface StaleChange {
  item: WebsiteItem;
  why: string;
}

export type WebsiteApplyResult =
  | {
      kind: "applied";
      plan: SavedPlanRow;
      applied: WebsitesApplied;
      done: number;
      dropped: StaleChange[];
      finished: boolean;
    }
  | { kind: "already_applied"; plan: SavedPlanRow; at: Date }
  | { kind: "refused"; plan?: SavedPlanRow; reasons: string[]; stale: StaleChange[] };

function refused(reasons: string[], plan?: SavedPlanRow, stale: StaleChange[] = []): WebsiteApplyResult {
  return { kind: "refused", plan, reasons, stale };
}

export async function applyWebsitePlan(
  deps: WebsiteApplyDeps,
  planId: string,
  options: { stale: "refuse" | "drop"; file?: WebsitePlan },
): Promise<WebsiteApplyResult> {
  const { db } = deps;
  const clock = deps.clock ?? systemClock;
  const now = new Date(clock.now());
  const actor = `apply:${process.pid}`;
  await expireOpenPlans(db, now, actor);
  const row = await findPlan(db, planId);
  if (!row) return refused([`this ledger never recorded plan ${planId}: nothing was changed`]);
  if (row.document.kind !== "websites") return refused([`plan ${planId} is a ${row.kind} plan`], row);
  if (options.file && planDigest(options.file) !== row.digest)
    return refused(
      [
        `the file's items do not match the digest the ledger recorded for plan ${planId}; nothing was changed`,
      ],
      row,
    );
  const header = options.file ? fileHeaderProblems(options.file, row) : [];
  if (header.length > 0) return refused([...header, "nothing was changed"], row);
  const admission = await admitPlan(db, row, deps.config.approvals, options.file?.approvals, now);
  if (admission.kind === "already_applied") return { kind: "already_applied", plan: row, at: admission.at };
  if (admission.kind === "refused") return refused([admission.reason], row);

  const listing = await deps.api.readWebsites();
  if (!listing.complete)
    return refused(
      [
        `the remote listing is incomplete now (${listing.problem ?? "the pages disagreed"}); nothing was changed`,
      ],
      row,
    );
  const check = checkChanges(row.document.items, groupRemote(listing.websites), await loadOwnership(db));
  if (check.stale.length > 0 && options.stale === "refuse")
    return refused(
      [
        `${check.stale.length} of ${row.document.items.length} changes are stale; nothing was changed (--stale drop applies the rest)`,
      ],
      row,
      check.stale,
    );
  if (!(await markApplying(db, planId)))
    return refused([`plan ${planId} changed status; nothing was changed`], row);
  const runId = await startRun(db, "apply");
  const plan = planOf(check.toApply, deps.config.websites.items.length);
  const applied = await applyPlan(plan, {
    api: deps.api,
    db,
    desired: deps.config.websites.items,
    secretKey: deriveSecretKey(deps.config.analytics.api_key),
    concurrency: deps.config.analytics.concurrency,
    retry: deps.config.analytics.retry,
    limits: { maxDeletes: deps.config.websites.max_deletes, allowMassDelete: false },
    clock,
    logger: deps.logger,
  });
  await finishRun(db, runId, {
    status: applied.errors.length > 0 ? "partial" : "ok",
    created: applied.created,
    updated: applied.updated,
    deleted: applied.deleted,
    unchanged: check.done,
    unmanaged: 0,
    conflicts: applied.conflicts.length,
    errors: applied.errors,
    summary: { saved_plan: planId },
  });
  const finished = applied.errors.length === 0;
  if (finished) await markApplied(db, planId, new Date(clock.now()));
  return {
    kind: "applied",
    plan: (await findPlan(db, planId)) ?? row,
    applied,
    done: check.done,
    dropped: check.stale,
    finished,
  };
}

interface ChangeCheck {
  toApply: PlanEntry[];
  stale: StaleChange[];
  done: number;
}

/**
 * Each change against the remote record now: done when the record already is what the change wanted (an earlier
 * apply of this plan did it; for the write-only values it sends, which no record shows, when `ownership` says
 * topsync applied them to this website), stale when it is not what the plan saw, else still to apply.
 */
export function checkChanges(
  items: readonly WebsiteItem[],
  remote: ReadonlyMap<string, readonly RemoteWebsite[]>,
  ownership: Ownership = new Map(),
): ChangeCheck {
  const result: ChangeCheck = { toApply: [], stale: [], done: 0 };
  for (const item of items) {
    const found = remote.get(normaliseDomain(item.domain)) ?? [];
    const entry = JSON.parse(item.entry) as PlanEntry;
    if (found.length > 1) {
      result.stale.push({ item, why: `${found.length} remote websites have this domain now` });
      continue;
    }
    const now = found[0] ? remoteSnapshot(found[0]) : null;
    if (item.action === "delete") {
      if (!now) result.done++;
      else if (!sameRecord(item.remote, now))
        result.stale.push({
          item,
          why: `the remote record changed since the plan: ${differences(item.remote, now)}`,
        });
      else result.toApply.push(entry);
      continue;
    }
    if (item.action === "create") {
      if (!now) result.toApply.push(entry);
      else if (wanted(item.desired, now)) result.done++;
      else
        result.stale.push({
          item,
          why: `the remote record changed since the plan: it exists now as id ${now.id}`,
        });
      continue;
    }
    if (!now || now.id !== item.website_id)
      result.stale.push({
        item,
        why: `the remote record changed since the plan: website ${item.website_id} is gone`,
      });
    else if (sameRecord(item.remote, now)) result.toApply.push(entry);
    else if (wanted(item.desired, now) && secretsApplied(entry, ownership)) result.done++;
    else
      result.stale.push({
        item,
        why: `the remote record changed since the plan: ${differences(item.remote, now)}`,
      });
  }
  return result;
}

/** The write-only values the update sends are the ones topsync last applied to this very website. */
function secretsApplied(entry: PlanEntry, ownership: Ownership): boolean {
  if (entry.action !== "update") return false;
  const sent = Object.entries(entry.secrets).filter(([, hash]) => hash !== undefined);
  if (sent.length === 0) return true;
  const record = ownership.get(entry.domain);
  const applied = record?.website_id === entry.id ? record.applied_secrets : null;
  return sent.every(([field, hash]) => applied?.[field as keyof typeof applied] === hash);
}

function sameRecord(was: Record<string, string | null> | null, now: Record<string, string | null>): boolean {
  return was !== null && Object.keys(now).every((key) => was[key] === now[key]);
}

/**
 * The visible fields the change sends are what the remote record shows (write-only ones cannot be seen, nor can a
 * yes/no the record gives as null).
 */
function wanted(desired: Record<string, string | null> | null, now: Record<string, string | null>): boolean {
  if (!desired) return false;
  return ["privacy", "email", "exclude_bots", "exclude_ips"].every(
    (key) =>
      desired[key] === undefined ||
      desired[key] === now[key] ||
      (now[key] === null && (key === "email" || key === "exclude_bots")),
  );
}

function differences(was: Record<string, string | null> | null, now: Record<string, string | null>): string {
  if (!was) return "it did not exist";
  return Object.keys(now)
    .filter((key) => was[key] !== now[key])
    .map((key) => `${key} ${JSON.stringify(was[key] ?? null)} → ${JSON.stringify(now[key])}`)
    .join(", ");
}

function planOf(entries: PlanEntry[], declared: number): Plan {
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    delete: 0,
    unchanged: 0,
    unmanaged: 0,
    conflicts: 0,
    withheld: 0,
  };
  for (const entry of entries)
    if (entry.action === "create" || entry.action === "update" || entry.action === "delete")
      summary[entry.action]++;
  return {
    entries,
    summary,
    declared,
    remote: { websites: 0, complete: true },
    prune: true,
    forget: [],
  };
}
