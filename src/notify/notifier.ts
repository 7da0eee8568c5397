// The notifier: what turns the outbox into messages people receive. The daemon runs its loop (route what is
// ready, deliver what is due, write repeats and the digest, then wait a moment); `notify flush` runs it once to the
// end; `notify test` sends one message. Every replica may run it: claims and unique keys keep each message to
// one deliverer and each event to one message.
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { expireDuePlans } from "../purchases/plan-rows.js";
import { redactSecretsDeep } from "../text/secrets.js";
import { type Channel, channelSecrets, createChannels, type SendResult } from "./channels/index.js";
import { type DeliveryObserver, deliverDue, ensureChannels, failUnconfigured } from "./deliver.js";
import { writeDueDigest } from "./digest.js";
import { writeExpiringPlanNotices } from "./expiring.js";
import { consoleUrlOf } from "./links.js";
import type { NotifyMessage } from "./message.js";
import { writeRepeats } from "./repeat.js";
import { routeReady } from "./route.js";
import type { RenderContext } from "./templates.js";
import { writeUnmatchedNotices } from "./unmatched.js";

/** How often the loop looks at the outbox when it found nothing to do. */
export const POLL_MS = 250;
/**
 * How often without a rule or a digest: nothing is sent, and the outbox's rows are only marked dropped (so they
 * do not look stuck to the alerting rules).
 */
const UNROUTED_POLL_MS = 5000;
/** Repeats and the digest are looked for this often. */
const HOUSEKEEPING_MS = 15_000;

export interface NotifierDeps {
  database: Database;
  config: Config;
  logger: Logger;
  clock: Clock;
  /** Who claims messages: the replica, or the command. */
  claimer: string;
  observer?: DeliveryObserver;
}

export interface FlushResult {
  sent: number;
  failed: number;
  /** Messages still waiting (a channel's pace or Retry-After beyond the wait, or retries after failures). */
  waiting: number;
}

export class Notifier {
  readonly channels: Map<string, Channel>;
  private readonly render: Omit<RenderContext, "now">;
  /** Each channel's sends still going from an earlier round of the loop (see `round`'s `detach`). */
  private readonly sending = new Map<string, Promise<void>>();
  private ensured = false;
  private lastHousekeeping = 0;

  constructor(private readonly deps: NotifierDeps) {
    this.channels = createChannels(deps.config.notifications);
    const { config } = deps;
    this.render = {
      consoleUrl: consoleUrlOf(config),
      secrets: [
        ...channelSecrets(this.channels),
        config.reseller.api_key,
        config.analytics.api_key,
        ...(config.webhooks.secret ? [config.webhooks.secret] : []),
        ...(config.server.metrics_token ? [config.server.metrics_token] : []),
      ],
    };
  }

  /** Every secret a message, an answer or a log line of the notifier must not carry. */
  get secrets(): readonly string[] {
    return this.render.secrets;
  }

  /** `value` with every form of every secret redacted (what `notify test` prints of a channel's answer). */
  scrub<T>(value: T): T {
    return redactSecretsDeep(value, this.render.secrets) as T;
  }

  /** The daemon's loop, until `signal` aborts; a failing round is logged and the loop goes on. */
  async run(signal: AbortSignal): Promise<void> {
    const { notifications } = this.deps.config;
    const poll = notifications.rules.length > 0 || notifications.digest ? POLL_MS : UNROUTED_POLL_MS;
    while (!signal.aborted) {
      let busy = false;
      try {
        busy = await this.round({ detach: true });
      } catch (error) {
        this.deps.logger.warn({ err: error }, `notifications: ${(error as Error).message}`);
      }
      if (!busy) await this.deps.clock.sleep(poll, signal).catch(() => {});
    }
    await this.settled();
  }

  /**
   * One round: route, deliver, and now and then repeats and the digest. True when it did something. With `detach`
   * (the daemon's loop) a channel's sends are not waited for: the next round claims for the other channels while
   * they go, so a receiver that hangs holds up its own channel only — before, every channel waited for each of its
   * claimed messages' timeouts. A channel is claimed for again once its sends have ended, whatever `detach`.
   */
  async round(options: { flush?: boolean; detach?: boolean } = {}): Promise<boolean> {
    await this.ensure();
    const routed = await routeReady(this.deps.database, this.deps.config.notifications, options);
    const delivered = await deliverDue(this.deliverDeps(), {
      skip: new Set(this.sending.keys()),
      ...(options.detach ? { detach: (channel, sends) => this.keepSending(channel, sends) } : {}),
    });
    const now = this.deps.clock.now();
    if (now - this.lastHousekeeping >= HOUSEKEEPING_MS) {
      this.lastHousekeeping = now;
      await this.housekeeping(new Date(now));
    }
    return routed.length > 0 || delivered > 0;
  }

  private async housekeeping(now: Date): Promise<void> {
    const { database, config, claimer } = this.deps;
    await writeRepeats(database.db, config.notifications.repeat);
    await writeUnmatchedNotices(database.db, config.verification.timeout);
    // Plans past their time end here too (status `expired`, `plan_expired`, what they left unsent cancelled), not
    // only when a purchase run, an apply or an approval comes: a quiet daemon tells an expiry within a look.
    await expireDuePlans(database.db, now, `notifier:${claimer}`);
    await writeExpiringPlanNotices(database.db, config.approvals.plan_ttl);
    await writeDueDigest(database.db, config, now, claimer);
    const orphans = await failUnconfigured(
      database,
      [...this.channels.keys()],
      config.notifications.give_up_after,
    );
    for (const orphan of orphans) {
      this.deps.observer?.failed(orphan.channel, orphan.trigger);
      this.deps.logger.error(
        { delivery: orphan.id, channel: orphan.channel, trigger: orphan.trigger },
        `notification ${orphan.id} (${orphan.trigger}) to ${orphan.channel} failed: no channel of that name in the config`,
      );
    }
  }

  /**
   * Routes every pending event now and delivers until nothing is due, waiting up to `waitMs` for messages a
   * channel's pace or Retry-After holds back (`notify flush`).
   */
  async flush(waitMs: number): Promise<FlushResult> {
    await this.ensure();
    await this.housekeeping(new Date(this.deps.clock.now()));
    await routeReady(this.deps.database, this.deps.config.notifications, { flush: true });
    const counted = { sent: 0, failed: 0 };
    const deps = this.deliverDeps({
      sent: (channel, trigger, latency) => {
        counted.sent++;
        this.deps.observer?.sent(channel, trigger, latency);
      },
      failed: (channel, trigger) => {
        counted.failed++;
        this.deps.observer?.failed(channel, trigger);
      },
    });
    const deadline = this.deps.clock.now() + waitMs;
    for (;;) {
      const delivered = await deliverDue(deps, { skip: new Set(this.sending.keys()) });
      const waiting = await this.waiting(Math.max(0, deadline - this.deps.clock.now()));
      if (waiting.soon === 0) return { ...counted, waiting: waiting.all };
      if (delivered === 0) await this.deps.clock.sleep(100);
    }
  }

  /** Messages not delivered yet, and those of them due within `withinMs`. */
  private async waiting(withinMs: number): Promise<{ all: number; soon: number }> {
    const [row] = await this.deps.database.all<{ all: number | string; soon: number | string }>(
      sql`select count(*) as all, count(*) filter (where next_attempt_at <= now() + ${withinMs} * interval '1 millisecond') as soon
          from notification_deliveries where status in ('pending', 'sending')
            and channel = any(${`{${[...this.channels.keys()].map((n) => `"${n}"`).join(",")}}`}::text[])`,
    );
    return { all: Number(row?.all ?? 0), soon: Number(row?.soon ?? 0) };
  }

  /** Sends a test message to one channel now (not through the outbox) and returns the channel's answer. */
  async test(name: string): Promise<SendResult> {
    const channel = this.channels.get(name);
    if (!channel) throw new Error(`no channel named "${name}"`);
    const now = new Date(this.deps.clock.now()).toISOString();
    const message: NotifyMessage = {
      trigger: "digest",
      kind: "open",
      count: 1,
      events: [],
      total: null,
      oldest: now,
      newest: now,
      test: { channel: name },
    };
    return channel.send(message, { ...this.render, now: new Date(this.deps.clock.now()) });
  }

  async close(): Promise<void> {
    await this.settled();
    await Promise.allSettled([...this.channels.values()].map((channel) => channel.close()));
  }

  private keepSending(channel: string, sends: Promise<void>): void {
    const going: Promise<void> = sends
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, channel },
          `notifications to ${channel}: ${(error as Error).message}`,
        ),
      )
      .finally(() => {
        if (this.sending.get(channel) === going) this.sending.delete(channel);
      });
    this.sending.set(channel, going);
  }

  /** Waits for every channel's sends still going. */
  private async settled(): Promise<void> {
    while (this.sending.size > 0) await Promise.allSettled([...this.sending.values()]);
  }

  private async ensure(): Promise<void> {
    if (this.ensured) return;
    await ensureChannels(this.deps.database, [...this.channels.keys()]);
    this.ensured = true;
  }

  private deliverDeps(observer = this.deps.observer) {
    return {
      database: this.deps.database,
      channels: this.channels,
      logger: this.deps.logger,
      claimer: this.deps.claimer,
      giveUpAfterMs: this.deps.config.notifications.give_up_after,
      sendTimeoutMs: this.deps.config.notifications.timeout,
      render: this.render,
      observer,
      now: () => this.deps.clock.now(),
    };
  }
}
