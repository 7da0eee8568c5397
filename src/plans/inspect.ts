// A saved plan as `show` and `saved show` present it, without changing anything: where the ledger says it stands
// (an open plan past its time shows as expired), whether the file is the plan the ledger recorded, its approvals
// as `apply` would count them, and which items are stale now and why (reads only: the catalogue and the ledger).
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import type { SavedPlanStatus } from "../db/schema.js";
import type { Logger } from "../log/logger.js";
import { parseMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import { budgetDay } from "../purchases/guards.js";
import { rowsByKey } from "../purchases/plan-rows.js";
import { guardLimits } from "../purchases/projection.js";
import { readReservedAhead } from "../purchases/reservations.js";
import { readGuardStart } from "../purchases/wallet.js";
import type { ResellerClient } from "../reseller/client.js";
import { loadOwnership } from "../websites/ownership.js";
import { groupRemote } from "../websites/plan.js";
import type { WebsiteApi } from "../websites/reconcile.js";
import { checkChanges, type StaleChange } from "./apply-websites.js";
import { type ApprovalState, approvalState } from "./approval-state.js";
import { type PlanDocument, planDigest } from "./document.js";
import { fileHeaderProblems, findPlan, type SavedPlanRow } from "./registry.js";
import { checkPurchaseItems, type ItemCheck } from "./stale.js";

export interface PlanView {
  plan: PlanDocument;
  /** The ledger's record, or undefined when this ledger never recorded the plan. */
  row?: SavedPlanRow;
  /** The status to show: the ledger's, or `expired` for an open plan past its time. */
  status: SavedPlanStatus | "unknown";
  /** Why the file is not the plan the ledger recorded (empty when it is, or when shown from the ledger). */
  mismatch: string[];
  approvals: ApprovalState | undefined;
  /** Purchase plans: each item now. Undefined when it could not be checked (`checkError` says why). */
  check?: ItemCheck;
  /** Website plans: the changes stale now, and how many are done already. */
  websiteCheck?: { stale: StaleChange[]; done: number };
  checkError?: string;
}

/** The plan asked for is neither in the ledger nor given as a file: the one failure that means "no such plan". */
export class PlanNotRecorded extends Error {}

export interface InspectDeps {
  database: Database;
  config: Config;
  logger: Logger;
  reseller: () => Promise<ResellerClient>;
  analytics: () => Promise<WebsiteApi>;
}

export async function inspectPlan(
  deps: InspectDeps,
  target: { id: string; file?: PlanDocument },
  now = new Date(),
): Promise<PlanView> {
  const db = deps.database.db;
  const row = await findPlan(db, target.id);
  const plan = target.file ?? row?.document;
  if (!plan) throw new PlanNotRecorded(`this ledger never recorded plan ${target.id}`);
  const mismatch: string[] = [];
  if (target.file && row && planDigest(target.file) !== row.digest)
    mismatch.push(`the file's items do not match the digest the ledger recorded (${row.digest})`);
  if (target.file && row && target.file.total !== row.total)
    mismatch.push(`the file's total ${target.file.total} is not the recorded ${row.total}`);
  if (target.file && row) mismatch.push(...fileHeaderProblems(target.file, row));
  const status = !row
    ? "unknown"
    : ["pending_approval", "approved", "applying"].includes(row.status) && row.expires_at <= now
      ? "expired"
      : row.status;
  const approvals = row
    ? await approvalState(db, row, deps.config.approvals, target.file?.approvals)
    : undefined;
  const view: PlanView = { plan, row, status, mismatch, approvals };
  if (plan.kind === "websites" && row && ["pending_approval", "approved", "applying"].includes(status)) {
    try {
      const listing = await (await deps.analytics()).readWebsites();
      if (!listing.complete) throw new Error(listing.problem ?? "the remote listing was incomplete");
      const checked = checkChanges(plan.items, groupRemote(listing.websites), await loadOwnership(db));
      view.websiteCheck = { stale: checked.stale, done: checked.done };
    } catch (error) {
      view.checkError = `the changes could not be checked now: ${(error as Error).message}`;
    }
  }
  if (plan.kind === "purchases" && row && ["pending_approval", "approved", "applying"].includes(status)) {
    try {
      const catalogue = await loadCatalogue(await deps.reseller(), deps.logger);
      const today = budgetDay(now, deps.config.timezone);
      const [existing, start, ahead] = await Promise.all([
        rowsByKey(
          db,
          plan.items.map((i) => i.request_key),
        ),
        readGuardStart(db, [today]),
        readReservedAhead(db, now, row.id),
      ]);
      view.check = checkPurchaseItems({
        planId: row.id,
        items: plan.items,
        catalogue,
        existing,
        limits: guardLimits(deps.config.budget),
        committedToday: (start.committedByDay.get(today) ?? parseMoney("0")).plus(ahead),
        ledger: start,
      });
    } catch (error) {
      view.checkError = `the items could not be checked now: ${(error as Error).message}`;
    }
  }
  return view;
}
