// The demo's notifications: what the run above told the operator — the in_doubt purchase (and its resolution)
// to a Slack-compatible endpoint, the wallet crossing its floor to a Telegram-compatible one — delivered from
// the outbox to the sandbox's receivers (no daemon in the demo: as `topsync notify flush` does) and printed as
// they arrived.
import { systemClock } from "../clock.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import { parseMoney } from "../money.js";
import { Notifier } from "../notify/notifier.js";
import type { Sandbox } from "../sandbox/index.js";
import type { CommandContext } from "./context.js";
import { write } from "./output.js";

/** The demo's notifications section: Slack and Telegram at the sandbox, in_doubt and wallet_low routed there. */
export function demoNotifications(sandbox: Sandbox): Config["notifications"] {
  const base = sandbox.receivers.url;
  return {
    channels: {
      "ops-slack": { type: "slack", url: `${base}/slack/T0DEMO/B0DEMO/demoslackwebhooktoken`, pace: 200 },
      "ops-tg": {
        type: "telegram",
        token: "4242:demo-telegram-token",
        chat_id: "4242",
        api_url: base,
        pace: 200,
      },
    },
    rules: [
      { on: ["in_doubt", "run_failed"], to: ["ops-slack"], send_resolved: true },
      { on: ["wallet_low", "budget"], to: ["ops-tg"], send_resolved: false },
    ],
    group_wait: 0,
    repeat: 4 * 3_600_000,
    give_up_after: 60_000,
    timeout: 5000,
    // The sandbox's wallet starts at ₦1,000,000: the demo's purchases take it below ₦995,000 once.
    wallet_low: { below: parseMoney("995000.00"), clear_above: parseMoney("998000.00") },
    budget_thresholds: [50, 75, 90, 100],
  };
}

export async function demoNotify(ctx: CommandContext, sandbox: Sandbox, database: Database): Promise<void> {
  write("\n== notifications: the outbox delivered to the sandbox's Slack and Telegram ==\n");
  const notifier = new Notifier({
    database,
    config: ctx.config,
    logger: ctx.logger,
    clock: systemClock,
    claimer: "demo",
  });
  try {
    const result = await notifier.flush(15_000);
    write(`sent ${result.sent}, failed ${result.failed}\n`);
  } finally {
    await notifier.close();
  }
  for (const request of sandbox.receivers.received()) {
    const body = JSON.parse(request.body) as { text?: string; blocks?: Array<{ text?: { text?: string } }> };
    const shown =
      request.kind === "slack"
        ? [body.text ?? "", ...(body.blocks ?? []).slice(1, 2).map((b) => b.text?.text ?? "")].join("\n")
        : (body.text ?? "");
    write(`\n-- ${request.kind} received:\n${shown}\n`);
  }
}
