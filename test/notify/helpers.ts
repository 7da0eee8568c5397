// Shared pieces of the notification tests: purchases to buy, a config whose channels point at the sandbox's
// receivers, budget notices in the outbox, and reading the outbox.
import { sql } from "drizzle-orm";
import { type Database, rows } from "../../src/db/client.js";
import { writeNotices } from "../../src/notify/outbox/write.js";
import type { NewPurchase } from "../../src/purchases/ledger.js";
import type { Sandbox } from "../../src/sandbox/index.js";

export const SLACK_PATH = "/slack/T000/B000/slacksecretpath0001";
export const TG_TOKEN = "123456:telegram-secret-token";
export const HOOK_SECRET = "whsec_notify_test_secret_value";

export function mtnPhones(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `0803${String(2_000_000 + start + i).padStart(7, "0")}`);
}

export function purchase(phone: string, extra: Partial<NewPurchase> = {}): NewPurchase {
  return {
    request_key: `t:${phone}`,
    source: "buy",
    network: "MTN",
    plan_id: "102",
    phone,
    ported: false,
    ...extra,
  };
}

/** `notifications` pointing at the sandbox's receivers: Slack, Telegram (a group), a webhook. */
export function notificationsTo(
  sandbox: Sandbox,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const base = sandbox.receivers.url;
  return {
    channels: {
      "ops-slack": { type: "slack", url: `${base}${SLACK_PATH}`, pace: "100ms" },
      "ops-tg": { type: "telegram", token: TG_TOKEN, chat_id: "-1001234", api_url: base, pace: "100ms" },
      "audit-hook": { type: "webhook", url: `${base}/hooks/audit`, secret: HOOK_SECRET },
    },
    rules: [
      {
        on: ["in_doubt", "verify_mismatch", "price_mismatch", "run_failed"],
        to: ["ops-slack", "audit-hook"],
      },
      { on: ["wallet_low", "budget"], to: ["ops-tg"] },
    ],
    group_wait: "1s",
    ...extra,
  };
}

export interface OutboxRow {
  trigger: string;
  subject: string;
  episode: string;
  kind: string;
  status: string;
  facts: Record<string, unknown>;
}

export async function outbox(database: Database, trigger?: string): Promise<OutboxRow[]> {
  const found = await rows<OutboxRow & { facts: Record<string, unknown> | string }>(
    database.db,
    sql`select trigger, subject, episode, kind, status, facts from notification_outbox
        where ${trigger ?? null}::text is null or trigger = ${trigger ?? null} order by id`,
  );
  return found.map((row) => ({
    ...row,
    facts: typeof row.facts === "string" ? (JSON.parse(row.facts) as Record<string, unknown>) : row.facts,
  }));
}

/** The outbox's notices that each of `days` reached 50% of its budget. */
export function budgetHalfSpent(database: Database, ...days: string[]) {
  return writeNotices(
    database.db,
    days.map((day) => ({
      trigger: "budget" as const,
      subject: `budget_day:${day}`,
      episode: "50%",
      facts: { day, threshold: 50, limit: "1000.00", committed: "500.00", refused: false },
    })),
  );
}
