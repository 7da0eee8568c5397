// The `notifications` section as config check reads it: channels of four types, rules naming triggers and
// channels, wallet_low's hysteresis; every problem with its line, and no secret echoed in a message.
import { describe, expect, it } from "vitest";
import { consoleUrlOf } from "../../src/notify/links.js";
import { groupMessage } from "../../src/notify/message.js";
import { renderText } from "../../src/notify/templates.js";
import { issues, load, yaml } from "../config/helpers.js";

describe("the notifications config", () => {
  it("reads channels, rules and the episodes' settings, with defaults", () => {
    const { config } = load(
      yaml(
        "notifications:",
        "  channels:",
        "    ops-slack: { type: slack, url: https://hooks.slack.com/services/T0/B0/XYZ }",
        "    ops-tg: { type: telegram, token: '123:abc', chat_id: -1001234 }",
        "    audit-hook: { type: webhook, url: 'https://example.com/hook?token=q', secret: s3cr3t }",
        "    oncall: { type: email, smtp: 'smtp://u:p@mail.example.com:587', from: topsync@example.com, to: [ops@example.com] }",
        "  rules:",
        "    - { on: [in_doubt, run_failed], to: [ops-slack, audit-hook], send_resolved: true }",
        "    - { on: [wallet_low, budget], to: [ops-tg] }",
        "  wallet_low: { below: '20000.00', clear_above: '25000.00' }",
        "  digest: { schedule: '0 8 * * *', to: [oncall] }",
      ),
    );
    const n = config.notifications;
    expect(Object.keys(n.channels)).toEqual(["ops-slack", "ops-tg", "audit-hook", "oncall"]);
    expect(n.channels["ops-tg"]).toMatchObject({ chat_id: "-1001234", api_url: "https://api.telegram.org" });
    expect(n.channels["audit-hook"]).toMatchObject({ url: "https://example.com/hook?token=q", pace: 0 });
    expect(n.channels["ops-slack"]).toMatchObject({ pace: 1000 });
    expect(n.rules[0]).toMatchObject({ send_resolved: true });
    expect(n.rules[1]).toMatchObject({ send_resolved: false });
    expect(n.group_wait).toBe(30_000);
    expect(n.repeat).toBe(4 * 3_600_000);
    expect(n.give_up_after).toBe(24 * 3_600_000);
    expect(n.budget_thresholds).toEqual([50, 75, 90, 100]);
    expect(n.wallet_low?.below.toFixed(2)).toBe("20000.00");
    expect(n.wallet_low?.clear_above.toFixed(2)).toBe("25000.00");
  });

  it("is empty by default: nothing is routed", () => {
    const { config } = load(yaml());
    expect(config.notifications.channels).toEqual({});
    expect(config.notifications.rules).toEqual([]);
  });

  it("names the line of an unknown trigger, an unknown channel and a clear_above below the floor", () => {
    const found = issues(
      yaml(
        "notifications:",
        "  channels:",
        "    ops-slack: { type: slack, url: https://hooks.slack.com/services/T0/B0/XYZ }",
        "  rules:",
        "    - { on: [in_doubt, stuck], to: [ops-slack, pager] }",
        "  wallet_low: { below: '20000.00', clear_above: '100.00' }",
      ),
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^config\.yaml:11:24: notifications\.rules\[0\]\.on\[1\]: unknown trigger "stuck"/,
      ),
      expect.stringMatching(
        /^config\.yaml:11:48: notifications\.rules\[0\]\.to\[1\]: no channel named "pager" under notifications\.channels/,
      ),
      expect.stringMatching(
        /^config\.yaml:12:.*notifications\.wallet_low\.clear_above: must not be below wallet_low\.below/,
      ),
    ]);
  });

  it("never echoes a channel's URL, token or SMTP password in a message", () => {
    const found = issues(
      yaml(
        "notifications:",
        "  channels:",
        "    a: { type: slack, url: 'ftp://hooks.example/T0/B0/very-secret-path' }",
        "    b: { type: email, smtp: 'http://user:very-secret-password@mail', from: x, to: [y] }",
        "    c: { type: carrier-pigeon }",
      ),
    );
    expect(found).toHaveLength(3);
    expect(found.join("\n")).not.toMatch(/very-secret/);
    expect(found[2]).toMatch(/expected a channel with type slack, telegram, webhook or email/);
  });

  it("links to the console where it is served, when console.public_url names only the site", () => {
    // The link was public_url and the page's path: "https://ops.example.com/plans/p_1", a page the daemon does not
    // serve (the console is under console.path), in every message.
    const users = "users: { ada: { password_hash: 'scrypt$1$1$1$a$b', role: approver } }";
    const link = (publicUrl: string, path = "") => {
      const { config } = load(
        yaml(
          `console: { enabled: true, public_url: "${publicUrl}", ${path ? `path: "${path}", ` : ""}${users} }`,
        ),
      );
      const message = groupMessage("approval_needed", "open", [
        {
          id: 1,
          trigger: "approval_needed",
          kind: "open",
          subject: "plan:p_1",
          episode: "needed",
          facts: { plan: "p_1", kind: "purchases", author: "bola", amount: "915.00", approvals_required: 1 },
          created_at: new Date().toISOString(),
        },
      ]);
      const ctx = { now: new Date(), secrets: [], consoleUrl: consoleUrlOf(config) };
      return renderText(message, ctx).text.split("\n").at(-1);
    };
    expect(link("https://ops.example.com")).toBe("https://ops.example.com/console/plans/p_1");
    expect(link("https://ops.example.com/")).toBe("https://ops.example.com/console/plans/p_1");
    expect(link("https://ops.example.com", "/ops/console/")).toBe(
      "https://ops.example.com/ops/console/plans/p_1",
    );
    expect(link("https://ops.example.com/console")).toBe("https://ops.example.com/console/plans/p_1");
    expect(link("https://ops.example.com/topsync/console/")).toBe(
      "https://ops.example.com/topsync/console/plans/p_1",
    );
  });
});
