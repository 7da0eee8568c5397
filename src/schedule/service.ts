// `topsync run` from start to stop: the HTTP endpoints first (a port in use fails at once), then the
// database (retried while unreachable), then the daemon; on `stop` it stops claiming, gives the work in
// progress `server.shutdown_grace` to finish, and closes everything.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { createAnalyticsClient, createResellerClient } from "../clients.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import { databaseReason } from "../db/sql-state.js";
import { formatDuration } from "../duration.js";
import type { Logger } from "../log/logger.js";
import { readOutboxStats } from "../notify/read.js";
import { NotificationBacklog } from "../purchases/notification-backlog.js";
import { notificationDeps } from "../purchases/notifications.js";
import { SettleTimes, settleBounds } from "../purchases/settle-times.js";
import { SettleWatch } from "../purchases/settle-watch.js";
import { VerifyReadTally } from "../purchases/verifier.js";
import { startHealthServer } from "../server/health.js";
import { readLedgerStats } from "../server/ledger-stats.js";
import { DaemonMetrics } from "../server/metrics.js";
import { Readiness } from "../server/readiness.js";
import { withTimeout } from "../server/timeout.js";
import { createWebhookReceiver, type WebhookReceiver } from "../server/webhook.js";
import { connectWithRetry } from "./connect.js";
import { startConsole } from "./console-mount.js";
import type { DaemonContext } from "./context.js";
import { startDaemon } from "./daemon.js";
import { NotificationPasses } from "./notification-passes.js";
import { WorkTracker } from "./work-tracker.js";

const SCRAPE_TIMEOUT_MS = 5000;

export interface ServiceOptions {
  config: Config;
  configDir: string;
  /** DATABASE_URL, used when config has no database.url. */
  databaseUrl?: string;
  logger: Logger;
  clock: Clock;
}

export interface ServiceOutcome {
  /** False when work was still in progress after shutdown_grace. */
  clean: boolean;
}

/** Runs until `stop` aborts; throws when it cannot start (port in use, database locked, migration failed). */
export async function runService(options: ServiceOptions, stop: AbortSignal): Promise<ServiceOutcome> {
  const { config, logger } = options;
  const metrics = new DaemonMetrics(config);
  const readiness = new Readiness();
  const clients = {
    reseller: createResellerClient(config.reseller, { logger, observer: metrics.observer }),
    analytics: createAnalyticsClient(config.analytics, { logger, observer: metrics.observer }),
  };
  let database: Database | undefined;
  const closeAll = async () => {
    await Promise.allSettled([clients.reseller.close(), clients.analytics.close()]);
    await database?.close().catch(() => {});
  };
  // Shared by the verifications of every run and of the notifications of this replica.
  const verifying: NonNullable<DaemonContext["verifying"]> = {
    settleTimes: new SettleTimes(settleBounds(config.verification)),
    tally: new VerifyReadTally((reads) => metrics.verified(reads)),
  };
  let backlog: NotificationBacklog | undefined;
  const notifications = () => {
    if (!backlog && database)
      backlog = new NotificationBacklog(
        notificationDeps({
          db: database.db,
          reseller: clients.reseller,
          config,
          logger,
          clock: options.clock,
          tally: verifying.tally,
        }),
        (result) => {
          metrics.notification(result.outcome);
          verifying.watch?.poke();
        },
      );
    return backlog;
  };
  const webhook = config.webhooks.enabled
    ? receiver(options, metrics, () => database, notifications)
    : undefined;
  const mounted = config.console.enabled
    ? startConsole(options, {
        database: () => database,
        reseller: async () => clients.reseller,
        analytics: async () => clients.analytics,
        onAction: (action, outcome) => metrics.consoleAction(action, outcome),
      })
    : undefined;
  let passes: NotificationPasses | undefined;
  try {
    const server = await startHealthServer({
      mounted,
      host: config.server.host,
      port: config.server.port,
      readiness,
      logger,
      webhook,
      limits: {
        maxConnections: config.server.max_connections,
        maxConnectionsPerSource: config.server.max_connections_per_source,
        headersTimeout: config.server.headers_timeout,
        // Past the webhook's own body deadline, so that a slow delivery gets the receiver's 408.
        requestTimeout: config.server.headers_timeout + config.webhooks.body_timeout + 1000,
      },
      onRefused: (reason) => metrics.refused(reason),
      metricsToken: config.server.metrics_token,
      metrics: async () => {
        const [ledger, outbox] = await Promise.all([ledgerStats(database, options), outboxStats(database)]);
        metrics.setLedger(ledger, config);
        metrics.setOutbox(ledger ? outbox : undefined);
        return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
      },
    });
    try {
      database = await connectWithRetry({
        url: config.database.url || options.databaseUrl,
        pgliteDir: config.database.pglite_dir,
        logger,
        clock: options.clock,
        signal: stop,
        onFailure: (message) => readiness.connectFailed(message),
      });
      if (!database) return { clean: true };
      readiness.connected(database);
      // Where notifications are received, a purchase's first read waits for one (it may reach another replica).
      if (webhook) verifying.watch = new SettleWatch(database.db, options.clock);
      const processing = notifications();
      if (webhook && processing) {
        passes = new NotificationPasses({ backlog: processing, logger, clock: options.clock });
        passes.start();
      }
      return await runConnected(options, { ...clients, database, metrics, verifying }, readiness, stop);
    } finally {
      await server.close();
    }
  } finally {
    await passes?.stop();
    await closeAll();
  }
}

async function runConnected(
  options: ServiceOptions,
  parts: Pick<DaemonContext, "database" | "reseller" | "analytics" | "metrics" | "verifying">,
  readiness: Readiness,
  stop: AbortSignal,
): Promise<ServiceOutcome> {
  const { config, logger, clock } = options;
  const stopping = new AbortController();
  const ctx: DaemonContext = {
    ...parts,
    config,
    configDir: options.configDir,
    logger,
    clock,
    replica: `daemon:${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`,
    signal: stopping.signal,
    work: new WorkTracker(),
  };
  const daemon = await startDaemon(ctx);
  if (!stop.aborted) await new Promise((resolve) => stop.addEventListener("abort", resolve, { once: true }));

  readiness.shuttingDown();
  const grace = config.server.shutdown_grace;
  logger.info(`stopping: no new claims; calls in flight have ${formatDuration(grace)} to finish`);
  stopping.abort();
  const graceOver = new AbortController();
  const stopped = daemon.stop().then(() => true);
  const timedOut = clock.sleep(grace, graceOver.signal).then(
    () => false,
    () => true,
  );
  const clean = await Promise.race([stopped, timedOut]);
  graceOver.abort();
  if (clean) logger.info("stopped cleanly: nothing left in submitting by this replica");
  else
    logger.error(
      `server.shutdown_grace (${formatDuration(grace)}) passed with ${ctx.work.size} tasks still running; ` +
        "their purchases still in submitting become in_doubt at the next sweep of any replica",
    );
  return { clean };
}

/** The webhook receiver: stores deliveries, then processes each one that is new or still waiting. */
function receiver(
  options: ServiceOptions,
  metrics: DaemonMetrics,
  database: () => Database | undefined,
  notifications: () => NotificationBacklog | undefined,
): WebhookReceiver {
  const { config, logger } = options;
  const process = (id: number, again: boolean) => {
    notifications()
      ?.process(id, again)
      .catch((error: unknown) =>
        logger.warn({ notification: id, err: error }, `notification ${id}: ${(error as Error).message}`),
      );
  };
  return createWebhookReceiver({
    config: config.webhooks,
    database: () => database()?.db,
    secrets: [
      config.webhooks.secret,
      config.reseller.api_key,
      config.analytics.api_key,
      config.server.metrics_token,
    ].filter((s): s is string => typeof s === "string"),
    logger,
    now: () => options.clock.now(),
    onRejected: (reason) => {
      metrics.refused(reason);
      // Not yet connected is "try again", not a refusal of the delivery.
      if (reason !== "not_ready") metrics.notification("rejected");
    },
    onStored: (id) => process(id, false),
    onRedelivered: (id) => process(id, true),
  });
}

async function ledgerStats(database: Database | undefined, options: ServiceOptions) {
  if (!database) return undefined;
  try {
    const read = readLedgerStats(database.db, new Date(options.clock.now()), options.config.timezone);
    return await withTimeout(read, SCRAPE_TIMEOUT_MS, "the ledger did not answer");
  } catch (error) {
    options.logger.warn(`metrics: cannot read the ledger: ${databaseReason(error)}`);
    return undefined;
  }
}

async function outboxStats(database: Database | undefined) {
  if (!database) return undefined;
  return withTimeout(readOutboxStats(database.db), SCRAPE_TIMEOUT_MS, "the outbox did not answer").catch(
    () => undefined,
  );
}
