// The daemon's Prometheus metrics (prom-client, one registry per daemon): ledger gauges read from the
// database at scrape time (so every replica reports the shared truth), and this replica's counters and
// call-latency histograms, fed by the clients' CallObserver and by the schedules.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Config } from "../config/index.js";
import { JOB_STATES } from "../db/schema.js";
import type { CallObserver } from "../http/service-client.js";
import type { DeliveryObserver } from "../notify/deliver.js";
import type { OutboxStats } from "../notify/read.js";
import type { PlanSummary } from "../websites/model.js";
import type { LedgerStats } from "./ledger-stats.js";

/** What became of a fire on this replica. */
export type FireResult =
  | "run"
  | "failed"
  | "skipped"
  | "overlap"
  | "not_elected"
  | "coordinator_error"
  | "missed";

/** prom-client's default gauges whose names end in _total, which promtool reads as counters. */
const NAMED_LIKE_COUNTERS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/** A fire's status in the ledger as the fires counter names it. */
function fireOutcomeLabel(status: string): string {
  return status === "done" ? "run" : status;
}

const PLAN_ACTIONS = ["create", "update", "delete", "unchanged", "unmanaged", "conflicts"] as const;

export class DaemonMetrics {
  readonly registry = new Registry();
  private readonly purchases = this.gauge("topsync_purchases", "Purchases in the ledger by state.", [
    "state",
  ]);
  private readonly inDoubt = this.gauge(
    "topsync_purchases_in_doubt",
    "Purchases in_doubt: a person must settle them.",
  );
  private readonly unverified = this.gauge(
    "topsync_purchases_unverified",
    "Purchases bought without a final status yet.",
  );
  private readonly noted = this.gauge(
    "topsync_purchases_noted",
    "Purchases an operator should look at, by note: price_mismatch (charged above the listed price), verify_mismatch (a verify answer that disagrees with the purchase), reference_clash (two purchases claim one provider reference), reversed (succeeded, then reversed by the provider), delivered_after_failure (failed, then delivered and charged for by the provider), earlier_attempt_delivered (an attempt before a person requeued the purchase delivered and charged for by the provider since).",
    ["note"],
  );
  private readonly spendToday = this.gauge(
    "topsync_spend_today_naira",
    "Money committed today (budget day in the configured timezone).",
  );
  private readonly inDoubtOldest = this.gauge(
    "topsync_purchases_in_doubt_oldest_seconds",
    "Since the oldest in_doubt purchase last changed (0 when none is in_doubt).",
  );
  private readonly queuedToday = this.gauge(
    "topsync_purchases_queued_today",
    "Queued purchases due before today's budget day ends (in the configured timezone).",
  );
  private readonly queuedMaxSpend = this.gauge(
    "topsync_queued_max_spend_today_naira",
    "The most the queued purchases due today may spend: the sum of their max_price (those without one are in topsync_purchases_queued_today_without_max_price).",
  );
  private readonly queuedUnpriced = this.gauge(
    "topsync_purchases_queued_today_without_max_price",
    "Queued purchases due today with no max_price, so not in topsync_queued_max_spend_today_naira.",
  );
  /** Only with a budget.daily_limit. */
  private readonly budgetLeft: Gauge | undefined;
  private readonly scheduleFires = this.gauge(
    "topsync_schedule_fires",
    "Fires recorded in schedule_fires by job and status (all replicas).",
    ["job", "status"],
  );
  private readonly jobState = this.gauge(
    "topsync_job_state",
    "1 for the state each job is in (active, suspended, paused), 0 for the others (all replicas).",
    ["job", "state"],
  );
  private readonly jobLastFire = this.gauge(
    "topsync_job_last_fire_timestamp_seconds",
    "When each job last fired (its newest fire that was not skipped; all replicas).",
    ["job"],
  );
  /** Counts from the ledger (all replicas), set at each scrape: counters, as they only grow. */
  private ledgerFires: LedgerStats["fires"] = [];
  private readonly jobFires = new Counter({
    name: "topsync_job_fires_total",
    help: "Fires of each job recorded in the ledger by outcome: run, failed, skipped (missed) (all replicas).",
    labelNames: ["job", "outcome"],
    registers: [this.registry],
    collect: () => {
      this.jobFires.reset();
      // A running fire is not a count: it goes back to 0 when the fire ends (or is given back), and a counter that
      // goes down reads as a restart to rate() and increase(). topsync_schedule_fires{status="running"} has them.
      for (const f of this.ledgerFires)
        if (f.status !== "running")
          this.jobFires.inc({ job: f.job, outcome: fireOutcomeLabel(f.status) }, f.count);
    },
  });
  private readonly jobMissed = new Counter({
    name: "topsync_job_missed_fires_total",
    help: "Fires of each job skipped, never run: missed beyond catch_up, or while the job was suspended or paused (all replicas).",
    labelNames: ["job"],
    registers: [this.registry],
    collect: () => {
      this.jobMissed.reset();
      for (const f of this.ledgerFires)
        if (f.status === "skipped") this.jobMissed.inc({ job: f.job }, f.count);
    },
  });
  private readonly websitePlan = this.gauge(
    "topsync_website_plan",
    "Plan counts of the latest finished website pass (all replicas).",
    ["action"],
  );
  private readonly websiteLastSuccess = this.gauge(
    "topsync_website_last_success_timestamp_seconds",
    "When the last website pass with status ok finished (all replicas).",
  );
  private readonly databaseUp = this.gauge(
    "topsync_database_up",
    "1 when the ledger could be read for this scrape.",
  );
  private readonly calls = new Histogram({
    name: "topsync_http_request_duration_seconds",
    help: "Calls to the reseller and analytics services by endpoint and outcome (ok or the error code).",
    labelNames: ["service", "endpoint", "outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly verifyReads = new Histogram({
    name: "topsync_verify_reads_per_purchase",
    help: "Verify reads each purchase took from its answer to its settlement, counted by the replica that settled it.",
    buckets: [0, 1, 2, 3, 4, 6, 10, 20],
    registers: [this.registry],
  });
  private readonly fires = new Counter({
    name: "topsync_fires_total",
    help: "Fires seen by this replica: run, failed, skipped (catch-up), overlap, not_elected, coordinator_error, missed.",
    labelNames: ["job", "result"],
    registers: [this.registry],
  });
  private readonly consoleActions = new Counter({
    name: "topsync_console_actions_total",
    help: "Actions taken in the console (resolve, requeue, cancel, approve, reject) by outcome: done or refused.",
    labelNames: ["action", "outcome"],
    registers: [this.registry],
  });
  private readonly websitePasses = new Counter({
    name: "topsync_website_passes_total",
    help: "Website passes run by this replica, by status.",
    labelNames: ["status"],
    registers: [this.registry],
  });
  private readonly websitePassPlan = new Counter({
    name: "topsync_website_pass_plan_total",
    help: "Plan counts summed over the website passes of this replica.",
    labelNames: ["action"],
    registers: [this.registry],
  });
  private readonly notifications = new Counter({
    name: "topsync_notifications_total",
    help: "Provider notifications seen by this replica's receiver, by outcome: matched, settled, unmatched, rejected.",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: "topsync_http_refusals_total",
    help:
      "Requests and connections this replica's HTTP server refused, by reason: max_connections, source_connections, " +
      "request_timeout, bad_request, headers_too_large, bad_url, method, and for webhook deliveries forbidden_source, source_limit, " +
      "unauthenticated, too_large, body_timeout, incomplete, not_a_notification, not_ready.",
    labelNames: ["reason"],
    registers: [this.registry],
  });

  private readonly notificationsSent = new Counter({
    name: "topsync_notifications_sent_total",
    help: "Notification messages this replica delivered, by channel and trigger.",
    labelNames: ["channel", "trigger"],
    registers: [this.registry],
  });
  private readonly notificationsFailed = new Counter({
    name: "topsync_notifications_failed_total",
    help: "Notification messages this replica gave up on (not delivered within notifications.give_up_after).",
    labelNames: ["channel", "trigger"],
    registers: [this.registry],
  });
  private readonly notificationLatency = new Histogram({
    name: "topsync_notification_delivery_seconds",
    help: "From the ledger change that caused a notification to its channel's answer, on this replica.",
    labelNames: ["channel"],
    buckets: [0.25, 0.5, 1, 2, 5, 15, 30, 60, 300, 3600],
    registers: [this.registry],
  });
  private readonly outboxOldest = this.gauge(
    "topsync_notification_outbox_oldest_seconds",
    "Age of the oldest notification not yet delivered (an event waiting for its message or a message not sent), 0 when none (all replicas).",
  );
  private readonly outboxPending = this.gauge(
    "topsync_notification_outbox_pending",
    "Notifications not yet delivered: events waiting for their message, messages waiting to be sent (all replicas).",
    ["what"],
  );
  private readonly walletBalance = this.gauge(
    "topsync_wallet_balance_naira",
    "The wallet balance the reseller last reported (absent until one has been).",
  );
  private readonly lastRunFailed = this.gauge(
    "topsync_purchase_run_last_failed_timestamp_seconds",
    "When a purchase run last stopped (a 401/403, the provider or the database gone), any replica; 0 when none has.",
  );
  private readonly outboxFailed = this.gauge(
    "topsync_notification_outbox_failed",
    "Notification messages marked failed in the outbox (all replicas; notify list shows them).",
  );

  /** Feeds the notification counters; give it to the notifier. */
  readonly notifyObserver: DeliveryObserver = {
    sent: (channel, trigger, latencyMs) => {
      this.notificationsSent.inc({ channel, trigger });
      this.notificationLatency.observe({ channel }, Math.max(0, latencyMs) / 1000);
    },
    failed: (channel, trigger) => this.notificationsFailed.inc({ channel, trigger }),
  };

  /** The gauges read from the ledger: absent from /metrics while the ledger cannot be read. */
  private readonly ledgerGauges: Array<Gauge | Counter>;
  private ledgerShown = true;

  constructor(config: Pick<Config, "budget"> & Partial<Pick<Config, "notifications">>) {
    collectDefaultMetrics({ register: this.registry, prefix: "topsync_" });
    // Gauges named like counters (promtool warns): the per-type gauges beside them carry the same counts.
    for (const name of NAMED_LIKE_COUNTERS) this.registry.removeSingleMetric(`topsync_${name}`);
    const limit = config.budget.daily_limit;
    if (limit !== undefined) {
      this.gauge("topsync_budget_daily_limit_naira", "budget.daily_limit.").set(Number(limit.toFixed(2)));
      this.budgetLeft = this.gauge("topsync_budget_remaining_today_naira", "What today's budget has left.");
    }
    this.ledgerGauges = [
      this.purchases,
      this.inDoubt,
      this.inDoubtOldest,
      this.queuedToday,
      this.queuedMaxSpend,
      this.queuedUnpriced,
      this.unverified,
      this.noted,
      this.spendToday,
      ...(this.budgetLeft ? [this.budgetLeft] : []),
      this.scheduleFires,
      this.jobState,
      this.jobLastFire,
      this.jobFires,
      this.jobMissed,
      this.websitePlan,
      this.outboxOldest,
      this.outboxPending,
      this.outboxFailed,
      this.walletBalance,
      this.lastRunFailed,
    ];
    const floor = config.budget.min_wallet_balance;
    if (floor !== undefined)
      this.gauge(
        "topsync_budget_min_wallet_balance_naira",
        "budget.min_wallet_balance: purchases never take the wallet below it.",
      ).set(Number(floor.toFixed(2)));
    const walletLow = config.notifications?.wallet_low;
    if (walletLow)
      this.gauge(
        "topsync_wallet_low_below_naira",
        "notifications.wallet_low.below: a balance under it opens a wallet_low episode.",
      ).set(Number(walletLow.below.toFixed(2)));
  }

  /** Sets the outbox gauges from a fresh read (read with the ledger's; unreadable, they leave with them). */
  setOutbox(stats: OutboxStats | undefined): void {
    if (!stats) return;
    this.outboxOldest.set(stats.oldestSeconds);
    this.outboxPending.set({ what: "events" }, stats.pendingEvents);
    this.outboxPending.set({ what: "messages" }, stats.pendingMessages);
    this.outboxFailed.set(stats.failedMessages);
    this.lastRunFailed.set(stats.lastRunFailed ?? 0);
    if (stats.walletBalance !== null) this.walletBalance.set(Number(stats.walletBalance));
    else this.walletBalance.reset();
  }

  /** Feeds the latency histograms; give it to both service clients. */
  readonly observer: CallObserver = (call, result, durationMs) => {
    this.calls.observe(
      { service: call.service, endpoint: call.endpoint, outcome: result },
      durationMs / 1000,
    );
  };

  fire(job: string, result: FireResult, count = 1): void {
    this.fires.inc({ job, result }, count);
  }

  /** A purchase settled (or given up on) here after `reads` verify reads. */
  verified(reads: number): void {
    this.verifyReads.observe(reads);
  }

  notification(outcome: "matched" | "settled" | "unmatched" | "rejected"): void {
    this.notifications.inc({ outcome });
  }

  consoleAction(action: string, outcome: "done" | "refused"): void {
    this.consoleActions.inc({ action, outcome });
  }

  refused(reason: string): void {
    this.refusals.inc({ reason });
  }

  websitePass(status: string, plan?: PlanSummary, at?: Date): void {
    this.websitePasses.inc({ status });
    if (plan) for (const action of PLAN_ACTIONS) this.websitePassPlan.inc({ action }, plan[action]);
    if (status === "ok" && at) this.websiteLastSuccess.set(at.getTime() / 1000);
  }

  /**
   * Sets the ledger gauges from a fresh read; undefined (database unreadable) takes them out of /metrics, so
   * an alert on `topsync_purchases_in_doubt > 0` sees no value ("unknown"), never a 0 ("all clear").
   */
  setLedger(stats: LedgerStats | undefined, config: Pick<Config, "budget">): void {
    this.databaseUp.set(stats ? 1 : 0);
    for (const gauge of [
      this.purchases,
      this.scheduleFires,
      this.websitePlan,
      this.noted,
      this.jobState,
      this.jobLastFire,
    ])
      gauge.reset();
    this.ledgerFires = stats?.fires ?? [];
    this.showLedger(stats !== undefined);
    if (!stats) return;
    for (const [state, count] of Object.entries(stats.byState)) this.purchases.set({ state }, count);
    this.inDoubt.set(stats.byState.in_doubt ?? 0);
    this.unverified.set(stats.byState.unverified ?? 0);
    this.inDoubtOldest.set(stats.inDoubtOldestSeconds);
    this.queuedToday.set(stats.queuedToday.purchases);
    this.queuedMaxSpend.set(Number(stats.queuedToday.maxSpend));
    this.queuedUnpriced.set(stats.queuedToday.withoutMaxPrice);
    for (const [note, count] of Object.entries(stats.noted)) this.noted.set({ note }, count);
    this.spendToday.set(Number(stats.spentToday));
    const limit = config.budget.daily_limit;
    if (limit !== undefined)
      this.budgetLeft?.set(Math.max(0, Number(limit.minus(stats.spentToday).toFixed(2))));
    for (const f of stats.fires) this.scheduleFires.set({ job: f.job, status: f.status }, f.count);
    for (const j of stats.jobs) {
      for (const state of JOB_STATES) this.jobState.set({ job: j.job, state }, j.state === state ? 1 : 0);
      if (j.lastFire) this.jobLastFire.set({ job: j.job }, j.lastFire.getTime() / 1000);
    }
    if (stats.lastWebsitePlan)
      for (const action of PLAN_ACTIONS) this.websitePlan.set({ action }, stats.lastWebsitePlan[action] ?? 0);
    if (stats.lastWebsiteSuccess) this.websiteLastSuccess.set(stats.lastWebsiteSuccess.getTime() / 1000);
  }

  private showLedger(show: boolean): void {
    if (show === this.ledgerShown) return;
    this.ledgerShown = show;
    for (const gauge of this.ledgerGauges) {
      const name = (gauge as unknown as { name: string }).name;
      if (show) this.registry.registerMetric(gauge);
      else this.registry.removeSingleMetric(name);
    }
  }

  private gauge<L extends string>(name: string, help: string, labelNames: L[] = []): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }
}
