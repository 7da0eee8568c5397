// Saving a plan: decided by the projection a dry run prints, recorded in the ledger with its digest, written to a
// file readable by its owner only. Nothing is bought, queued or sent: only GET requests and the plan's own row.
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import { DataError, TopsyncError } from "../errors.js";
import type { PurchaseDeps } from "../purchases/executor.js";
import type { PurchaseProjection } from "../purchases/projection.js";
import { checkMissingOwned, hiddenProblem } from "../websites/missing.js";
import type { Plan } from "../websites/model.js";
import { loadOwnership } from "../websites/ownership.js";
import { planWebsites } from "../websites/plan.js";
import type { WebsiteApi } from "../websites/reconcile.js";
import { deriveSecretKey } from "../websites/secrets.js";
import { type Authorship, checkAuthorKey } from "./approvals.js";
import type { PurchasePlan, WebsitePlan } from "./document.js";
import { planText, reservePlanFile } from "./document.js";
import { type PurchasePlanRequest, projectPlan, purchasePlanFrom } from "./purchase-plan.js";
import { registerPlan, type SavedPlanRow } from "./registry.js";
import { websitePlanFrom } from "./website-plan.js";

export interface SaveOptions {
  file: string;
  author: Authorship;
  configDigest: string | null;
}

export interface SavedPurchasePlan {
  plan: PurchasePlan;
  row: SavedPlanRow;
  projection: PurchaseProjection;
}

export async function savePurchasePlan(
  deps: Pick<PurchaseDeps, "database" | "reseller" | "config" | "logger">,
  request: PurchasePlanRequest,
  options: SaveOptions,
): Promise<SavedPurchasePlan> {
  checkAuthorKey(deps.config.approvals.approvers, options.author);
  const projection = await projectPlan(deps, request);
  const failed = projection.runs.find((run) => run.error);
  if (failed) throw new DataError(`job ${failed.job}: ${failed.error}`, "RECIPIENTS_FILE");
  // A candidate whose plans could not be read cannot be priced: a plan of the rest would not be what a run buys.
  if (projection.totals.unknown > 0)
    throw new TopsyncError(
      "PLAN_INCOMPLETE",
      `cannot save the plan: ${projection.totals.unknown} purchases are unknown (the reseller's plans of ${[...projection.unavailable].join(", ") || "some networks"} could not be read); nothing was saved`,
    );
  const plan = purchasePlanFrom(projection, {
    now: request.now,
    author: options.author,
    configDigest: options.configDigest,
    approvals: deps.config.approvals,
    request,
  });
  const text = planText(plan);
  // The file's place is taken before the plan is recorded, and filled while the ledger records it.
  const file = reservePlanFile(options.file);
  const registering = registerPlan(deps.database.db, plan, "saved", text);
  registering.catch(() => undefined);
  try {
    file.fill(text);
  } catch (error) {
    await registering.catch(() => undefined);
    throw error;
  }
  const row = await registering.catch((error: unknown) => {
    file.abandon();
    throw error;
  });
  file.commit();
  return { plan, row, projection };
}

export interface WebsiteSaveDeps {
  api: WebsiteApi;
  db: Db;
  config: Config;
}

/**
 * Saves the website plan of now: the same pure planner as `websites plan` over a full listing (an incomplete one
 * is refused: a partial picture is no evidence to apply against), recorded and written like a purchase plan.
 */
export async function saveWebsitePlan(
  deps: WebsiteSaveDeps,
  options: SaveOptions & { now: Date },
): Promise<{ plan: WebsitePlan; row: SavedPlanRow; planned: Plan }> {
  checkAuthorKey(deps.config.approvals.approvers, options.author);
  const ownership = loadOwnership(deps.db);
  ownership.catch(() => {});
  const listing = await deps.api.readWebsites();
  if (!listing.complete)
    throw new TopsyncError(
      "PLAN_INCOMPLETE",
      `cannot save the plan: the remote listing was incomplete (${listing.problem ?? "the pages disagreed"}); nothing was saved`,
    );
  const owned = await ownership;
  const planFrom = (unconfirmed?: Set<string>) =>
    planWebsites(deps.config.websites.items, listing.websites, owned, {
      prune: deps.config.websites.prune,
      secretKey: deriveSecretKey(deps.config.analytics.api_key),
      ...(unconfirmed ? { unconfirmed } : {}),
    });
  let planned = planFrom();
  // An owned website the listing does not show is looked up by id first, as a pass does (missing.ts): one the
  // service still holds means the listing was not whole, and a plan to create it again is no plan to approve.
  const missing = await checkMissingOwned(deps.api, planned, owned);
  if (missing.hidden.length > 0)
    throw new TopsyncError(
      "PLAN_INCOMPLETE",
      `cannot save the plan: ${hiddenProblem(missing.hidden)}; nothing was saved`,
    );
  if (missing.unconfirmed.length > 0) planned = planFrom(new Set(missing.unconfirmed));
  // A listing that shows none of the websites topsync owns is not one to approve creates from.
  if (!planned.remote.complete)
    throw new TopsyncError(
      "PLAN_INCOMPLETE",
      `cannot save the plan: ${planned.remote.problem ?? "the remote listing is not trusted"}; nothing was saved`,
    );
  const plan = websitePlanFrom(planned, listing.websites, {
    now: options.now,
    author: options.author,
    configDigest: options.configDigest,
    approvals: deps.config.approvals,
  });
  const file = reservePlanFile(options.file);
  const row = await registerPlan(deps.db, plan, "saved").catch((error: unknown) => {
    file.abandon();
    throw error;
  });
  file.write(planText(plan));
  return { plan, row, planned };
}
