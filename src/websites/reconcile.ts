// One reconcile pass: read every remote page (level-triggered, never a cached picture), plan,
// apply unless only planning or observing, and write the pass to `website_runs`. The daemon calls this.
import type { ListingOptions, ListingProgress, WebsiteListing } from "../analytics/client.js";
import { type Clock, systemClock } from "../clock.js";
import type { Config, WebsitesConfig } from "../config/index.js";
import type { Db } from "../db/client.js";
import { TopsyncError } from "../errors.js";
import { HttpError } from "../http/errors.js";
import type { Logger } from "../log/logger.js";
import { type ApplyProgress, type ApplyResult, applyPlan, type WebsiteWriter } from "./apply.js";
import { deleteRefusal } from "./guards.js";
import { checkMissingOwned, lookupOptions, type WebsiteReader } from "./missing.js";
import { hasChanges, type Plan } from "./model.js";
import { loadOwnership } from "./ownership.js";
import { passNotices } from "./pass-notices.js";
import { type PlanOptions, planWebsites } from "./plan.js";
import type { RetryPolicy } from "./retry.js";
import {
  finishRun,
  type RunCounts,
  type RunMode,
  type RunOutcome,
  type RunStatus,
  startRun,
  type WebsiteError,
} from "./runs.js";
import { deriveSecretKey } from "./secrets.js";

/** The part of the analytics client a pass uses. */
export interface WebsiteApi extends WebsiteWriter, WebsiteReader {
  /** Every page; `complete` false when the pages disagreed (then nothing is created or deleted). */
  readWebsites(options?: ListingOptions): Promise<WebsiteListing>;
}

export interface ReconcileDeps {
  api: WebsiteApi;
  db: Db;
  websites: WebsitesConfig;
  secretKey: string;
  concurrency: number;
  retry: RetryPolicy;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  signal?: AbortSignal;
}

export interface ReconcileOptions {
  /** plan: report only; observe: report drift (the loop's `websites.mode: observe`); apply: act. */
  mode: RunMode;
  allowMassDelete?: boolean;
  /** A person accepts that the websites topsync owns are gone (`--accept-vanished`); never the daemon. */
  acceptVanished?: boolean;
  /** Asked between planning and applying (apply mode, only when there is something to do); false cancels. */
  confirm?: (plan: Plan) => Promise<boolean>;
  /** Told after each page of the listing, then as the apply goes. */
  onProgress?: (progress: PassProgress) => void;
}

/** How far a pass has got: reading the remote listing, then applying the plan. */
export type PassProgress = ({ step: "listing" } & ListingProgress) | ({ step: "apply" } & ApplyProgress);

export interface PassResult {
  runId: number;
  mode: RunMode;
  status: RunStatus;
  plan: Plan;
  pages: number;
  applied?: ApplyResult;
  counts: RunCounts;
  errors: WebsiteError[];
  durationMs: number;
}

/** The dependencies of a pass as config describes them. */
export function reconcileDeps(
  config: Pick<Config, "analytics" | "websites">,
  api: WebsiteApi,
  db: Db,
  extra: Pick<ReconcileDeps, "logger" | "clock" | "random" | "signal"> = {},
): ReconcileDeps {
  return {
    api,
    db,
    websites: config.websites,
    secretKey: deriveSecretKey(config.analytics.api_key),
    concurrency: config.analytics.concurrency,
    retry: config.analytics.retry,
    ...extra,
  };
}

/** Runs one pass; a failed listing is recorded as a failed pass and thrown (nothing was changed). */
export async function reconcile(deps: ReconcileDeps, options: ReconcileOptions): Promise<PassResult> {
  const clock = deps.clock ?? systemClock;
  const started = clock.now();
  const onProgress = options.onProgress;
  const runId = await startRun(deps.db, options.mode);
  // Read while the pages come in; used only once the listing is complete enough to plan from.
  const ownership = loadOwnership(deps.db);
  ownership.catch(() => {});
  let listing: WebsiteListing;
  try {
    listing = await deps.api.readWebsites({
      signal: deps.signal,
      onPage: onProgress && ((read: ListingProgress) => onProgress({ step: "listing", ...read })),
    });
  } catch (error) {
    await finishRun(deps.db, runId, failedOutcome(error, "list"));
    throw error;
  }
  const owned = await ownership;
  const planFrom = (extra: Partial<PlanOptions>) =>
    planWebsites(deps.websites.items, listing.websites, owned, {
      prune: deps.websites.prune,
      secretKey: deps.secretKey,
      complete: listing.complete,
      ...(listing.problem ? { problem: listing.problem } : {}),
      acceptVanished: options.acceptVanished ?? false,
      ...extra,
    });
  let plan = planFrom({});
  // An owned website the listing does not show is looked up by id before it is created again or forgotten.
  const missing = await checkMissingOwned(deps.api, plan, owned, deps.signal);
  const lookedUp = lookupOptions(missing);
  if (lookedUp) plan = planFrom(lookedUp);
  const base = { runId, mode: options.mode, plan, pages: listing.pages };
  const limits = { maxDeletes: deps.websites.max_deletes, allowMassDelete: options.allowMassDelete ?? false };
  let applied: ApplyResult | undefined;
  let status: RunStatus = "ok";
  if (options.mode === "apply") {
    try {
      const wanted = !options.confirm || !hasChanges(plan) || (await options.confirm(plan));
      if (wanted)
        applied = await applyPlan(plan, {
          ...deps,
          desired: deps.websites.items,
          limits,
          onProgress: onProgress && ((done: ApplyProgress) => onProgress({ step: "apply", ...done })),
        });
      else status = "cancelled";
    } catch (error) {
      // Per-website failures are results; only the database or a broken prompt end up here.
      const failed = failedOutcome(error, "apply");
      await finishRun(deps.db, runId, failed, passNotices(runId, "apply", plan, failed.errors)).catch(
        () => {},
      );
      throw error;
    }
  }
  const errors = [...incompleteness(plan), ...lookupErrors(missing.failures), ...(applied?.errors ?? [])];
  if (errors.length > 0 && status === "ok") status = "partial";
  const counts = passCounts(plan, applied);
  const durationMs = clock.now() - started;
  const refusal = options.mode === "apply" ? undefined : deleteRefusal(plan, limits);
  await finishRun(
    deps.db,
    runId,
    { status, ...counts, errors, summary: summaryOf(plan, listing.pages, durationMs, refusal?.message) },
    passNotices(runId, options.mode, plan, errors, refusal?.message),
  );
  return { ...base, status, applied, counts, errors, durationMs };
}

/** A listing not trusted (incomplete, or showing none of the owned websites): one error naming why. */
function incompleteness(plan: Plan): WebsiteError[] {
  if (plan.remote.complete) return [];
  if (plan.remote.vanished)
    return [{ domain: "*", action: "list", code: "OWNED_VANISHED", message: plan.remote.problem ?? "" }];
  const message = `the remote listing was incomplete, so no website was created or deleted: ${plan.remote.problem ?? "the pages disagreed"}`;
  return [{ domain: "*", action: "list", code: "LISTING_INCOMPLETE", message }];
}

/** Owned websites missing from the listing that could not be looked up: not created again, not forgotten. */
function lookupErrors(failures: readonly string[]): WebsiteError[] {
  return failures.map((message) => ({ domain: "*", action: "list", code: "LOOKUP_FAILED", message }));
}

/** Counts of what was done (apply) — or, for plan and observe, what would be: 0 done, as planned below. */
function passCounts(plan: Plan, applied: ApplyResult | undefined): RunCounts {
  return {
    created: applied?.created ?? 0,
    updated: applied?.updated ?? 0,
    deleted: applied?.deleted ?? 0,
    unchanged: plan.summary.unchanged,
    unmanaged: plan.summary.unmanaged,
    conflicts: plan.summary.conflicts + (applied?.conflicts.length ?? 0),
  };
}

const DRIFT_SHOWN = 100;

function summaryOf(plan: Plan, pages: number, durationMs: number, deletesRefused?: string) {
  const changes = plan.entries
    .filter((entry) => entry.action !== "noop")
    .slice(0, DRIFT_SHOWN)
    .map((entry) => ({
      action: entry.action,
      domain: entry.domain,
      ...("diff" in entry ? { fields: Object.keys(entry.diff) } : {}),
    }));
  return {
    planned: plan.summary,
    declared: plan.declared,
    remote: plan.remote.websites,
    pages,
    duration_ms: durationMs,
    changes,
    ...(deletesRefused ? { deletes_refused: deletesRefused } : {}),
  };
}

function failedOutcome(error: unknown, step: "list" | "apply"): RunOutcome {
  const message = error instanceof Error ? error.message : String(error);
  const failure: WebsiteError = {
    domain: "*",
    action: step,
    code: error instanceof HttpError || error instanceof TopsyncError ? error.code : "FAILED",
    message:
      step === "list"
        ? `listing the remote websites failed, so nothing was changed: ${message}`
        : `the pass stopped: ${message}`,
  };
  if (error instanceof HttpError && error.status !== undefined) failure.status = error.status;
  return {
    status: "failed",
    created: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    unmanaged: 0,
    conflicts: 0,
    errors: [failure],
    summary: {},
  };
}
