// `topsync report` as one call: read the ledger's history (SELECTs only, through the purchases' and the website
// passes' own reads), then build the report (pure).
import type { Executor } from "../db/client.js";
import { failedMessages } from "../notify/read.js";
import { readSpendHistory } from "../purchases/history-read.js";
import { readMissedFires } from "../purchases/job-list.js";
import { readJobEvents } from "../purchases/job-states.js";
import { readPassHistory } from "../websites/runs-read.js";
import { readOpenPlans } from "./approvals-view.js";
import { buildLedgerReport } from "./ledger-build.js";
import type { LedgerReport } from "./ledger-model.js";

export async function makeLedgerReport(
  db: Executor,
  period: { now: Date; since: Date; timeZone: string },
): Promise<LedgerReport> {
  // Independent reads, side by side where the database has connections to spare (PGlite answers them in turn).
  const [{ anyPurchases, ...spend }, { anyRuns, ...passes }, failed, openPlans, missed, events] =
    await Promise.all([
      readSpendHistory(db, period.since, period.timeZone),
      readPassHistory(db, period.since),
      failedMessages(db, period.since),
      readOpenPlans(db, period.now),
      readMissedFires(db, period.since),
      readJobEvents(db, { since: period.since, limit: 500 }),
    ]);
  const anything = { purchases: anyPurchases, websiteRuns: anyRuns };
  const stateChanges = events.filter((e) => e.from !== e.to);
  return {
    ...buildLedgerReport({ ...spend, ...passes, anything }, period),
    openPlans,
    schedules: { missed: missed.fires, missedByJob: missed.byJob, stateChanges },
    notificationsFailed: failed.map((m) => ({
      id: m.id,
      channel: m.channel ?? "",
      trigger: m.trigger,
      events: m.events,
      attempts: m.attempts,
      createdAt: new Date(m.created_at),
      lastError: m.last_error,
    })),
  };
}
