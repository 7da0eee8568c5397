// Every message's words, as snapshots: one per trigger in each rendering (text for email and Telegram, Slack
// blocks, the webhook's JSON). Money in naira, phones masked, no secret, the console link when there is one.
import { describe, expect, it } from "vitest";
import type { NotifyMessage, OutboxEvent } from "../../src/notify/message.js";
import { groupMessage } from "../../src/notify/message.js";
import { TRIGGERS } from "../../src/notify/outbox/triggers.js";
import {
  formatAge,
  formatNaira,
  renderSlack,
  renderText,
  renderWebhook,
} from "../../src/notify/templates.js";

const NOW = new Date("2026-05-04T10:17:00.000Z");
const SECRETS = ["sk-live-reseller-key-0042", "hook-secret-0042", "123456:tg-token-0042"];
const ctx = { now: NOW, secrets: SECRETS, consoleUrl: "https://topsync.example.com/console" };

let nextId = 1;
function event(
  trigger: OutboxEvent["trigger"],
  facts: Record<string, unknown>,
  minutesAgo: number,
  subject?: string,
): OutboxEvent {
  const id = nextId++;
  return {
    id,
    trigger,
    kind: "open",
    subject: subject ?? `purchase:${String(facts.purchase)}`,
    episode: `e${id}`,
    facts,
    created_at: new Date(NOW.getTime() - minutesAgo * 60_000).toISOString(),
  };
}

function purchaseFacts(n: number, extra: Record<string, unknown> = {}) {
  return {
    purchase: 40 + n,
    phone: `0803****${String(560 + n)}`,
    network: "MTN",
    plan: "1GB for 30 Days",
    job: "staff-monthly",
    amount: "305.00",
    state: "in_doubt",
    from: "submitting",
    reason: "HTTP_SERVER_ERROR: reseller POST /public/api/data: HTTP 500",
    reference: null,
    note: null,
    ...extra,
  };
}

/** A message of each trigger, as the outbox would hold it. */
function messages(): Record<string, NotifyMessage> {
  nextId = 1;
  const inDoubt = [1, 2, 3, 4].map((n) => event("in_doubt", purchaseFacts(n), 17 - n));
  const byTrigger: Record<string, NotifyMessage> = {
    in_doubt: groupMessage("in_doubt", "open", inDoubt),
    in_doubt_resolved: groupMessage("in_doubt", "resolved", [
      {
        ...event("in_doubt", purchaseFacts(1, { state: "succeeded", from: "in_doubt" }), 2),
        kind: "resolved",
      },
    ]),
    in_doubt_repeat: groupMessage("in_doubt", "repeat", [{ ...inDoubt[0]!, kind: "repeat" }]),
    unverified: groupMessage("unverified", "open", [
      event(
        "unverified",
        purchaseFacts(5, {
          state: "unverified",
          reference: "5PD8L3MX120VWB3WY516",
          reason: "no final status within verification.timeout (last seen: pending)",
        }),
        12,
      ),
    ]),
    verify_mismatch: groupMessage("verify_mismatch", "open", [
      event(
        "verify_mismatch",
        purchaseFacts(6, {
          state: "unverified",
          reference: "REF-6",
          note: "verify_mismatch: the verify answer (success) disagrees with the purchase: amount 500.00 ≠ 305.00",
        }),
        3,
      ),
    ]),
    price_mismatch: groupMessage("price_mismatch", "open", [
      event(
        "price_mismatch",
        purchaseFacts(7, {
          state: "submitted",
          amount: "350.00",
          reference: "REF-7",
          note: "price_mismatch: the provider charged 350.00 for plan 102 listed at 305.00",
        }),
        1,
      ),
    ]),
    run_failed: groupMessage("run_failed", "open", [
      event(
        "run_failed",
        {
          run: "5f2c1d9e-aaaa-bbbb-cccc-000000000000",
          job: "promo",
          reason:
            "HTTP_UNAUTHORIZED: reseller POST /public/api/data: HTTP 401 (key sk-live-reseller-key-0042)",
          claimed: 8,
          submitted: 0,
          failed: 1,
          in_doubt: 0,
          committed: "0.00",
        },
        1,
        "run:5f2c",
      ),
    ]),
    budget: groupMessage("budget", "open", [
      event(
        "budget",
        { day: "2026-05-04", threshold: 75, limit: "100000.00", committed: "75210.00", refused: false },
        0,
        "budget_day:2026-05-04",
      ),
    ]),
    budget_spent: groupMessage("budget", "open", [
      event(
        "budget",
        { day: "2026-05-04", threshold: 100, limit: "100000.00", committed: "99950.00", refused: true },
        0,
        "budget_day:2026-05-04",
      ),
    ]),
    wallet_low: groupMessage("wallet_low", "open", [
      event("wallet_low", { balance: "18500.50", below: "20000.00", clear_above: "25000.00" }, 0, "wallet"),
    ]),
    wallet_low_resolved: groupMessage("wallet_low", "resolved", [
      {
        ...event(
          "wallet_low",
          { balance: "30000.00", below: "20000.00", clear_above: "25000.00" },
          0,
          "wallet",
        ),
        kind: "resolved",
      },
    ]),
    website_drift: groupMessage("website_drift", "open", [
      event(
        "website_drift",
        {
          pass: 12,
          summary: "1 to create, 1 to update",
          details: ["create a.example", "update b.example (privacy, exclude_ips)"],
          digest: "abc",
        },
        0,
        "websites",
      ),
    ]),
    website_apply_failed: groupMessage("website_apply_failed", "open", [
      event(
        "website_apply_failed",
        {
          pass: 13,
          failed: 1,
          summary: "1 failed",
          details: [
            "create a.example: HTTP_SERVER_ERROR (HTTP 500): analytics POST /api/v1/websites: HTTP 500",
          ],
        },
        0,
        "websites",
      ),
    ]),
    mass_delete_refused: groupMessage("mass_delete_refused", "open", [
      event(
        "mass_delete_refused",
        {
          pass: 14,
          reason: "refusing all 7 deletes: more than websites.max_deletes (5)",
          summary: "refusing all 7 deletes: more than websites.max_deletes (5)",
          details: [],
        },
        0,
        "websites",
      ),
    ]),
    notification_unmatched: groupMessage("notification_unmatched", "open", [
      event(
        "notification_unmatched",
        {
          notification: 9,
          reference: "REF-X",
          amount: "305.00",
          phone: "0803****567",
          status: "success",
          reason: "no purchase carries this reference",
          candidate: null,
        },
        11,
        "notification:9",
      ),
    ]),
    missed_fire: groupMessage("missed_fire", "open", [
      event(
        "missed_fire",
        {
          job: "staff-monthly",
          fire_time: "2026-05-01T07:00:00+00:00",
          reason: "missed while topsync was down, more than catch_up (6h) ago",
        },
        5,
        "fire:x",
      ),
    ]),
    digest: groupMessage("digest", "open", [
      event(
        "digest",
        {
          day: "2026-05-04",
          spent_today: "61000.00",
          daily_limit: "100000.00",
          budget_used_percent: 61,
          wallet: "250000.00",
          in_doubt: 2,
          unverified: 1,
          noted: 0,
          notifications_failed: 0,
          alive: "daemon:host:42:abc at 2026-05-04T07:00:00.000Z",
        },
        0,
        "digest",
      ),
    ]),
    approval_needed: groupMessage("approval_needed", "open", [
      event(
        "approval_needed",
        {
          plan: "p-1",
          kind: "purchases",
          amount: "61000.00",
          author: "ada",
          approvals_required: 1,
          expires_at: "2026-05-05T10:00:00Z",
        },
        0,
        "plan:p-1",
      ),
    ]),
    reversed: groupMessage("reversed", "open", [
      event(
        "reversed",
        purchaseFacts(8, {
          state: "succeeded",
          amount: "305.00",
          reference: "REF-8",
          note: "reversed: the provider's verify of REF-8 now says reversed (its notification said failed), after the purchase succeeded",
        }),
        1,
      ),
    ]),
    delivered_after_failure: groupMessage("delivered_after_failure", "open", [
      event(
        "delivered_after_failure",
        purchaseFacts(9, {
          state: "failed",
          amount: "305.00",
          reference: "REF-9",
          note: "delivered_after_failure: the provider's verify of REF-9 now says success (its notification said successful), after the purchase failed: the provider charged for it and says the data was delivered",
        }),
        1,
      ),
    ]),
    earlier_attempt_delivered: groupMessage("earlier_attempt_delivered", "open", [
      event(
        "earlier_attempt_delivered",
        purchaseFacts(10, {
          state: "succeeded",
          from: "succeeded",
          amount: "305.00",
          reference: "REF-10A",
          note: "earlier_attempt_delivered: the provider's verify of REF-10A (this purchase's attempt before a person requeued it, which ended failed) now says success (its notification said successful): the provider charged for that attempt and says its data was delivered",
        }),
        1,
      ),
    ]),
  };
  return byTrigger;
}

describe("notification templates", () => {
  it("has a message for every trigger", () => {
    const covered = new Set(Object.values(messages()).map((m) => m.trigger));
    for (const trigger of TRIGGERS.filter((t) => !["approval_expiring", "plan_expired"].includes(t)))
      expect(covered).toContain(trigger);
  });

  it("formats naira and ages as a person reads them", () => {
    expect(formatNaira("1220.00")).toBe("₦1,220");
    expect(formatNaira("1220.5")).toBe("₦1,220.50");
    expect(formatNaira("999999999999.99")).toBe("₦999,999,999,999.99");
    expect(formatNaira(null)).toBe("₦?");
    expect(formatAge("2026-05-04T10:00:00.000Z", NOW)).toBe("17 min");
    expect(formatAge("2026-05-02T06:00:00.000Z", NOW)).toBe("2 d 4 h");
  });

  for (const [name, message] of Object.entries(messages())) {
    it(`renders ${name}`, () => {
      const text = renderText(message, ctx);
      const slack = renderSlack(message, ctx);
      const hook = renderWebhook(message, ctx);
      expect(text.subject).toMatchSnapshot("subject");
      expect(text.text).toMatchSnapshot("text");
      expect(slack).toMatchSnapshot("slack");
      expect(hook).toMatchSnapshot("webhook");
      const all = JSON.stringify([text, slack, hook]);
      expect(all).not.toMatch(/0803\d{7}/);
      for (const secret of SECRETS) expect(all).not.toContain(secret);
    });
  }

  it("shows a provider's control characters and line breaks as escapes, never as lines of their own", () => {
    const message = groupMessage("in_doubt", "open", [
      event("in_doubt", purchaseFacts(9, { reason: "HTTP 500\n- #1 fake line\u202Eevil\u001b[31m" }), 1),
    ]);
    const text = renderText(message, { now: NOW, secrets: SECRETS }).text;
    expect(text).toContain("HTTP 500\\n- #1 fake line\\u202Eevil\\x1B[31m");
    expect(text.split("\n").filter((line) => line.startsWith("- #"))).toHaveLength(1);
  });

  it("masks a phone and redacts a secret that reached the facts", () => {
    const [leaky] = [
      event(
        "run_failed",
        { run: "r", reason: "08031234567 said no to sk-live-reseller-key-0042 (aGVsbG8=)" },
        0,
        "run:r",
      ),
    ];
    const message = groupMessage("run_failed", "open", [leaky!]);
    const text = renderText(message, { now: NOW, secrets: SECRETS }).text;
    expect(text).toContain("0803****567 said no to [redacted]");
    expect(text).not.toContain("08031234567");
  });

  it("redacts a secret that holds a phone-shaped run of digits before masking phones", () => {
    // Masked first, the secret became "hook-0803****567-x" and was no longer found: all but four digits went out.
    const secret = "hook-08031234567-x";
    const message = groupMessage("run_failed", "open", [
      event("run_failed", { run: "r", reason: `the receiver refused ${secret}` }, 0, "run:r"),
    ]);
    const rendered = [
      renderText(message, { now: NOW, secrets: [secret] }).text,
      JSON.stringify(renderSlack(message, { now: NOW, secrets: [secret] })),
      JSON.stringify(renderWebhook(message, { now: NOW, secrets: [secret] })),
    ];
    for (const text of rendered) {
      expect(text).toContain("the receiver refused [redacted]");
      expect(text).not.toContain("hook-0803");
    }
  });

  it("escapes a fact's Slack markup in the notification text as in the blocks: no mention, no disguised link", () => {
    // The blocks were escaped, but Slack's top-level text (what the phone's notification shows, read as mrkdwn
    // too) carried the headline as written: a provider's error naming <!channel> pinged the whole channel.
    const message = groupMessage("run_failed", "open", [
      event(
        "run_failed",
        { run: "r", reason: "<!channel> read <https://evil.example|the fix> & retry" },
        0,
        "run:r",
      ),
    ]);
    const slack = renderSlack(message, { now: NOW, secrets: SECRETS });
    expect(slack.text).toBe(
      "A purchase run stopped: &lt;!channel&gt; read &lt;https://evil.example|the fix&gt; &amp; retry",
    );
    expect(JSON.stringify(slack)).not.toMatch(/<!channel>|<https:\/\/evil/);
  });

  it("tells a repeat how long its episode has been open, not how old the repeat is", () => {
    // A repeat is a new outbox row with the episode's start in facts.open_since (as repeat.ts writes it, the
    // ledger's timestamp): the ages were the repeat row's, so purchases in_doubt for 4 hours read "oldest 0 s" and
    // "(0 s ago)".
    const openSince = "2026-05-04T06:17:00.123456+00:00";
    const repeats = [1, 2].map((n) => ({
      ...event("in_doubt", { ...purchaseFacts(n), open_since: openSince }, 0),
      kind: "repeat" as const,
    }));
    const message = groupMessage("in_doubt", "repeat", repeats);
    const text = renderText(message, { now: NOW, secrets: SECRETS }).text;
    expect(text.split("\n")[0]).toBe("Still open: 2 purchases in_doubt, ₦610 at risk, oldest 4 h");
    expect(text).toContain("job staff-monthly (4 h ago)");
    expect(text).not.toContain("(0 s ago)");
  });
});
