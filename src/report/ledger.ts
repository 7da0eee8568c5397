// `topsync report` as one call: read the ledger's history (SELECTs only), then build the report (pure).
import type { Executor } from "../db/client.js";
import { buildLedgerReport } from "./ledger-build.js";
import type { LedgerReport } from "./ledger-model.js";
import { readLedger } from "./ledger-read.js";

export async function makeLedgerReport(
  db: Executor,
  period: { now: Date; since: Date; timeZone: string },
): Promise<LedgerReport> {
  return buildLedgerReport(await readLedger(db, period.since, period.timeZone), period);
}
