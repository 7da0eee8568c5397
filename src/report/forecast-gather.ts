// Reads what a forecast is decided from, with SELECTs and GETs only: the purchase projection's inputs
// (src/purchases/projection-read.ts), the live catalogue, the remote websites and their ownership, and the owned
// websites the listing did not show, looked up by id. A service that cannot be read becomes an unknown part of the
// forecast, never a silent gap.
import type { ListingOptions, ListingProgress, WebsiteListing } from "../analytics/client.js";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import { readJobStates } from "../purchases/job-states.js";
import { dueFiresMissed } from "../purchases/pass-fires.js";
import { readPlanPrices } from "../purchases/prices.js";
import { type ProjectionProgress, projectSources, readFirstSeen } from "../purchases/projection-read.js";
import type { Catalogue } from "../purchases/resolve.js";
import type { ResellerClient } from "../reseller/client.js";
import { checkMissingOwned, type WebsiteReader } from "../websites/missing.js";
import type { Ownership } from "../websites/model.js";
import { loadOwnership } from "../websites/ownership.js";
import { readOpenPlans } from "./approvals-view.js";
import { forecastWebsitePlan } from "./forecast-build.js";
import { jobFires } from "./forecast-fires.js";
import type { ForecastInputs, JobFires, UnknownPart, WebsiteInputs } from "./forecast-model.js";

export interface ForecastSources {
  db: Db;
  reseller: ResellerClient;
  /** Lists the websites, and looks up by id an owned one the listing does not show (GETs only). */
  analytics: WebsiteReader & { listWebsites(options?: ListingOptions): Promise<WebsiteListing> };
  config: Config;
  logger: Logger;
  /** The catalogue being read already (`loadCatalogue`), by a caller that started it before the ledger was open. */
  catalogue?: Promise<Catalogue>;
  /** Told as the websites' pages are read and as the purchases are projected (the two go on side by side). */
  onProgress?: (progress: ForecastProgress) => void;
}

export type ForecastProgress =
  | ({ part: "websites" } & ListingProgress)
  | ({ part: "purchases" } & ProjectionProgress);

export async function readForecastInputs(
  sources: ForecastSources,
  window: { now: Date; to: Date; keepItems?: number },
): Promise<ForecastInputs> {
  const { db, config, onProgress } = sources;
  const { now, to } = window;
  // The listing (paced by the analytics service, a page at a time) goes on while the purchases are projected, and
  // the catalogue (paced by the reseller's rate limit) while the ledger is read: only the projection needs it.
  const listing = readWebsites(sources);
  const cataloguing = readCatalogue(sources);
  const fires = jobFires(config, now, to, await readFirstSeen(db));
  const states = await readJobStates(db);
  // The owned websites the listing does not show are looked up by id (as a pass does) once it is read.
  const ownership = await loadOwnership(db);
  const websites = listing.then((read) => read.value && lookUpMissing(sources, read.value, ownership));
  websites.catch(() => undefined); // awaited below, after the projection
  const catalogue = await cataloguing;
  for (const line of fires.jobs) {
    const status = states.get(line.job.name);
    if (status && status.state !== "active") line.stopped = { state: status.state, note: status.note };
  }
  // A due fire `purchases run` would not buy now — missed (recorded skipped), or come while the job was stopped —
  // is not due in the plan either.
  const missed = await dueFiresMissed(
    db,
    fires.jobs.flatMap((line) =>
      line.dueNow && !line.stopped ? [{ job: line.job.name, fireTime: line.dueNow }] : [],
    ),
  );
  for (const line of fires.jobs) if (missed.has(line.job.name)) line.dueNow = null;
  const purchases = await projectSources(
    db,
    config,
    catalogue.value,
    {
      now,
      to,
      fires: fires.jobs.flatMap(projectedFires(now)),
      queued: true,
      intake: true,
      onProgress: onProgress && ((p) => onProgress({ part: "purchases", ...p })),
    },
    window.keepItems,
  );
  const read = await listing;
  return {
    now,
    to,
    config,
    jobs: fires.jobs,
    purchases,
    catalogue: catalogue.value,
    recordedPrices: await readPlanPrices(db),
    websites: await websites,
    unknown: [catalogue.unknown, read.unknown, ...fires.unknown].filter((u) => u !== undefined),
    openPlans: await readOpenPlans(db, now),
  };
}

/** The fire due now is taken by a run now; later fires at their own time. */
function projectedFires(now: Date) {
  return ({ job, dueNow, fires, stopped }: JobFires) =>
    stopped
      ? []
      : [
          ...(dueNow ? [{ job, fireTime: dueNow, time: now }] : []),
          ...fires.map((fireTime) => ({ job, fireTime, time: fireTime })),
        ];
}

/** A value read from a service, or the part of the forecast that stays unknown without it. */
interface Read<T> {
  value: T | null;
  unknown?: UnknownPart;
}

async function readCatalogue(sources: ForecastSources): Promise<Read<Catalogue>> {
  try {
    return { value: await (sources.catalogue ?? loadCatalogue(sources.reseller, sources.logger)) };
  } catch (error) {
    const reason = `the reseller's networks could not be read: ${message(error)}`;
    return { value: null, unknown: { part: "purchases", reason } };
  }
}

async function readWebsites(sources: ForecastSources): Promise<Read<WebsiteListing>> {
  try {
    const onProgress = sources.onProgress;
    const onPage = onProgress && ((p: ListingProgress) => onProgress({ part: "websites", ...p }));
    return { value: await sources.analytics.listWebsites({ onPage }) };
  } catch (error) {
    const reason = `the analytics service's websites could not be listed: ${message(error)}`;
    return { value: null, unknown: { part: "websites", reason } };
  }
}

/**
 * The listing with the look-ups of the owned websites it did not show, as the pass makes them (missing.ts): each
 * a GET, and one that fails leaves that website's absence unconfirmed, never the plan unread.
 */
async function lookUpMissing(
  sources: ForecastSources,
  listing: WebsiteListing,
  ownership: Ownership,
): Promise<WebsiteInputs> {
  const websites = { remote: listing.websites, ownership };
  const plan = forecastWebsitePlan(sources.config, websites);
  return { ...websites, missing: await checkMissingOwned(sources.analytics, plan, ownership) };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
