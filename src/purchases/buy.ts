// One purchase through the ledger (`topsync buy`): resolved by the projection's `resolveRow`, decided (dry run)
// by the same projection as a bulk run, then inserted under its request key and executed with the same claim,
// guards, classification and verification as any run.
import { eq } from "drizzle-orm";
import { purchases } from "../db/schema.js";
import { DataError } from "../errors.js";
import { resolveNetwork } from "../reseller/catalogue.js";
import { loadCatalogue } from "./catalogue-cache.js";
import type { PurchaseDeps, RunSummary } from "./executor.js";
import { insertPurchases, type NewPurchase, type PurchaseRow } from "./ledger.js";
import { type ProjectedItem, type ProjectedRun, resolveRow } from "./projection.js";
import { projectSources } from "./projection-read.js";
import { findPruned, type PrunedPurchase } from "./prune.js";
import type { Resolved } from "./resolve.js";
import { executeAndRecord } from "./run-once.js";

export type BuyResult =
  | { kind: "dry_run"; resolved: Resolved | null; item: ProjectedItem; runs: ProjectedRun[] }
  | { kind: "declined"; resolved: Resolved }
  | { kind: "exists"; row: PurchaseRow | undefined; pruned?: PrunedPurchase }
  | { kind: "bought"; row: PurchaseRow | undefined; summary: RunSummary };

export interface BuyOptions {
  dryRun: boolean;
  /** Asked after the purchase is resolved and before anything is written; false declines. */
  confirm: (resolved: Resolved) => Promise<boolean>;
  /** Stops the run as a signal does: a call in flight finishes and is recorded, an unsent purchase stays queued. */
  signal?: AbortSignal;
}

export async function buyOne(
  deps: PurchaseDeps,
  purchase: NewPurchase,
  options: BuyOptions,
): Promise<BuyResult> {
  const catalogue = await loadCatalogue(deps.reseller, deps.logger);
  resolveNetwork(catalogue.networks, purchase.network); // an unknown network is a usage error, before anything else
  const resolution = resolveRow(purchase, catalogue);
  const db = deps.database.db;
  if (options.dryRun) {
    // Refusals included: the dry run shows the projection's outcome and code, as `purchases run --dry-run` does.
    const now = new Date();
    const projection = await projectSources(db, deps.config, catalogue, {
      now,
      to: now,
      fires: [],
      queued: false,
      intake: false,
      extra: [{ kind: "buy", time: now, job: null, fireTime: null, rows: [purchase] }],
    });
    const item = projection.items[0]!;
    return {
      kind: "dry_run",
      resolved: resolution.outcome === "buy" ? resolution.resolved : null,
      item,
      runs: projection.runs,
    };
  }
  if (resolution.outcome !== "buy")
    throw new DataError(`cannot buy: ${resolution.reason}`, resolution.code.toUpperCase());
  const { resolved } = resolution;
  if (!(await options.confirm(resolved))) return { kind: "declined", resolved };
  const find = async () =>
    (await db.select().from(purchases).where(eq(purchases.request_key, purchase.request_key)))[0];
  const inserted = await insertPurchases(db, [purchase], deps.actor ?? `cli:${process.pid}`);
  if (inserted === 0) {
    const row = await find();
    return row
      ? { kind: "exists", row }
      : { kind: "exists", row, pruned: await findPruned(db, { requestKey: purchase.request_key }) };
  }
  const summary = await executeAndRecord(deps, {
    requestKey: purchase.request_key,
    catalogue,
    concurrency: 1,
    signal: options.signal,
  });
  return { kind: "bought", row: await find(), summary };
}
