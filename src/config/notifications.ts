// The `notifications` section: the channels an operator is told through, the rules that route triggers to them,
// and the episodes' settings (group_wait, repeat, wallet_low's hysteresis, budget thresholds, the digest).
// A channel's URL, token, secret and SMTP password are secrets: no message here echoes them.
import * as z from "zod";
import { TRIGGERS } from "../notify/outbox/triggers.js";
import {
  apiKey,
  boolean,
  cronExpression,
  duration,
  evenWithFieldIssues,
  integer,
  MAX_SPAN_MS,
  money,
  show,
  text,
} from "./fields.js";

const CHANNEL_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** An http(s) URL kept exactly as written (a webhook's path or query may be its secret); never echoed. */
function targetUrl(what: string) {
  return text()
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
        } catch {
          return false;
        }
      },
      { error: `expected the ${what} as an http(s) URL (not shown here: it may hold a secret)` },
    )
    .meta({ description: `The ${what}: an http(s) URL. Treated as a secret (never logged).` });
}

/**
 * The `notifications` section's schema. Built only when a config has the section (`optionalSection`, fields.ts):
 * most configs leave it out, and building zod schemas is much of a command's start.
 */
export function buildNotificationsSchema() {
  const pace = (byDefault: string, about: string) =>
    duration()
      .prefault(byDefault)
      .meta({ description: `Least time between two messages to this channel, across replicas (${about}).` });

  const slackChannel = z.strictObject({
    type: z.literal("slack"),
    url: targetUrl("Slack incoming webhook URL"),
    pace: pace("1s", "Slack allows about 1 a second per webhook"),
  });

  const telegramChannel = z.strictObject({
    type: z.literal("telegram"),
    token: apiKey().meta({ description: "The bot's token (from @BotFather). Never logged." }),
    chat_id: z
      .union([text(), z.int()])
      .transform(String)
      .meta({ description: 'The chat, e.g. "-1001234567890" for a group or channel.' }),
    api_url: targetUrl("Bot API base URL").prefault("https://api.telegram.org"),
    pace: duration()
      .optional()
      .meta({
        description:
          "Least time between two messages to this chat, across replicas; by default 1s for a private chat and 3s " +
          "for a group or channel (a chat_id starting with -), which Telegram limits to 20 a minute.",
      }),
  });

  const webhookChannel = z.strictObject({
    type: z.literal("webhook"),
    url: targetUrl("receiver's URL"),
    secret: apiKey().meta({
      description:
        'Key of the HMAC-SHA256 signature: X-Topsync-Signature: t=<unix seconds>,v1=<hex HMAC of "t.body">.',
    }),
    pace: pace("0s", "none by default"),
  });

  const emailChannel = z.strictObject({
    type: z.literal("email"),
    smtp: text()
      .refine((value) => /^smtps?:\/\/[^\s/]+/i.test(value), {
        error:
          'expected an SMTP URL like "smtp://user:password@smtp.example.com:587" (STARTTLS) or "smtps://…:465" (TLS); not shown here: it may hold a password',
      })
      .meta({ description: "SMTP submission URL with its credentials. Never logged." }),
    from: text(),
    to: z.array(text()).min(1),
    pace: pace("1s", "mail providers limit per sender"),
  });

  const channelSchema = z.discriminatedUnion(
    "type",
    [slackChannel, telegramChannel, webhookChannel, emailChannel],
    {
      error: (iss) =>
        iss.input === undefined
          ? undefined
          : "expected a channel with type slack, telegram, webhook or email",
    },
  );

  const triggerSchema = z.enum(TRIGGERS, {
    error: (iss) =>
      iss.input === undefined
        ? undefined
        : `unknown trigger ${show(iss.input)} (one of ${TRIGGERS.join(", ")})`,
  });

  const ruleSchema = z.strictObject({
    on: z.array(triggerSchema).min(1),
    to: z.array(text()).min(1),
    send_resolved: boolean().prefault(false).meta({
      description: "Also send a message when an episode of these triggers ends (an in_doubt resolved).",
    }),
  });

  const walletLowSchema = z
    .strictObject({
      below: money().meta({ description: "A reported balance below this opens a wallet_low episode." }),
      clear_above: money()
        .optional()
        .meta({ description: "The episode ends only above this (hysteresis); `below` when absent." }),
    })
    .superRefine((wallet, ctx) => {
      if (wallet.clear_above?.lt(wallet.below))
        ctx.addIssue({
          code: "custom",
          path: ["clear_above"],
          message: "must not be below wallet_low.below",
        });
    }, evenWithFieldIssues)
    .transform((wallet) => ({ below: wallet.below, clear_above: wallet.clear_above ?? wallet.below }));

  const digestSchema = z.strictObject({
    schedule: cronExpression(),
    to: z.array(text()).min(1),
  });

  return z
    .strictObject({
      channels: z
        .record(
          z.string().regex(CHANNEL_NAME, {
            error:
              "a channel name is lower case letters, digits, '.', '_' or '-', starting with a letter or digit",
          }),
          channelSchema,
        )
        .prefault({}),
      rules: z.array(ruleSchema).prefault([]),
      group_wait: duration()
        .prefault("30s")
        .meta({ description: "Events of one trigger within this time become one message." }),
      repeat: duration({ max: MAX_SPAN_MS })
        .prefault("4h")
        .meta({ description: 'An episode still open is told again at most this often ("0s": never).' }),
      give_up_after: duration({ min: 1, max: MAX_SPAN_MS })
        .prefault("24h")
        .meta({ description: "A message not delivered by then is marked failed." }),
      timeout: duration({ min: 1 }).prefault("10s").meta({ description: "How long one send may take." }),
      wallet_low: walletLowSchema.optional(),
      budget_thresholds: z
        .array(integer(1, 100))
        .prefault([50, 75, 90, 100])
        .meta({ description: "Percentages of budget.daily_limit told once each per budget day." }),
      digest: digestSchema.optional(),
    })
    .superRefine((notifications, ctx) => {
      const names = new Set(Object.keys(notifications.channels ?? {}));
      const check = (list: unknown, path: PropertyKey[]) => {
        if (!Array.isArray(list)) return;
        list.forEach((name, index) => {
          if (typeof name === "string" && !names.has(name))
            ctx.addIssue({
              code: "custom",
              path: [...path, index],
              message: `no channel named ${show(name)} under notifications.channels`,
            });
        });
      };
      for (const [index, rule] of (notifications.rules ?? []).entries())
        check(rule?.to, ["rules", index, "to"]);
      check(notifications.digest?.to, ["digest", "to"]);
    }, evenWithFieldIssues);
}

/** A config without the section: what `buildNotificationsSchema()` makes of `{}` (test/config/sections.test.ts checks). */
export function notificationsDefaults(): NotificationsConfig {
  return {
    channels: {},
    rules: [],
    group_wait: 30_000,
    repeat: 4 * 3_600_000,
    give_up_after: 24 * 3_600_000,
    timeout: 10_000,
    budget_thresholds: [50, 75, 90, 100],
  };
}

export type NotificationsConfig = z.output<ReturnType<typeof buildNotificationsSchema>>;
export type ChannelConfig = NotificationsConfig["channels"][string];
export type NotificationRule = NotificationsConfig["rules"][number];
