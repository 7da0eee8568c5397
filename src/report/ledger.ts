// `topsync report` as one call: read the ledger's history (SELECTs only, through the purchases' and the website
// passes' own reads), then build the report (pure).
import type { Executor } from "../db/client.js";
import { failedMessages } from "../notify/read.js";
import { readSpendHistory } from "../purchases/history-read.js";
import { readPassHistory } from "../websites/runs-read.js";
import { readOpenPlans } from "./approvals-view.js";
import { buildLedgerReport } from "./ledger-build.js";
import type { LedgerReport } from "./ledger-model.js";

export async function makeLedgerReport(
  db: Executor,
  period: { now: Date; since: Date; timeZone: string },
): Promise<LedgerReport> {
  const { anyPurchases, ...spend } = await readSpendHistory(db, period.since, period.timeZone);
  const { anyRuns, ...passes } = await readPassHistory(db, period.since);
  const anything = { purchases: anyPurchases, websiteRuns: anyRuns };
  const failed = await failedMessages(db, period.since);
  const openPlans = await readOpenPlans(db, period.now);
  return {
    ...buildLedgerReport({ ...spend, ...passes, anything }, period),
    openPlans,
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
