// What every part of the daemon is given: config, the database, the two clients, metrics, a logger, a
// clock, who this replica is, and the signal that says it is stopping.
import type { AnalyticsClient } from "../analytics/client.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import type { PurchaseDeps } from "../purchases/executor.js";
import type { ResellerClient } from "../reseller/client.js";
import type { DaemonMetrics } from "../server/metrics.js";
import type { WorkTracker } from "./work-tracker.js";

export interface DaemonContext {
  config: Config;
  /** Folder of the config file: recipients files are relative to it. */
  configDir: string;
  database: Database;
  reseller: ResellerClient;
  analytics: AnalyticsClient;
  metrics: DaemonMetrics;
  logger: Logger;
  clock: Clock;
  /** This replica: `daemon:<host>:<pid>:<random>`; the actor of its ledger events and the claimer of its fires. */
  replica: string;
  /** Aborted when the daemon stops: no new claims, no new passes. */
  signal: AbortSignal;
  /** Work in progress, awaited by a graceful stop. */
  work: WorkTracker;
  /** What the verifications of every run share (learned settle times, the wait for notifications, read counts). */
  verifying?: PurchaseDeps["verifying"];
}
