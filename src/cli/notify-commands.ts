// `topsync notify …` in the command table; the bodies load when a command runs.
import type { Command } from "commander";
import type { CommandContext } from "./context.js";

type WithContext = <A extends unknown[]>(
  body: (ctx: CommandContext, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

export function registerNotifyCommands(program: Command, withContext: WithContext): void {
  const notify = program.command("notify").description("notifications: the outbox, delivery, a test message");
  notify
    .command("list")
    .description("events waiting for their message, and messages with their delivery, newest first")
    .option(
      "--status <status>",
      "only this status: pending, sending, sent, failed (messages), routed, dropped",
    )
    .option("--limit <n>", "at most this many", "100")
    .action(withContext(async (ctx, flags) => (await import("./notify.js")).notifyListCommand(ctx, flags)));
  notify
    .command("flush")
    .description("deliver what waits in the outbox now (what a command run without the daemon left)")
    .option(
      "--wait <duration>",
      "wait this long for messages a channel's pace or Retry-After holds back",
      "60s",
    )
    .action(withContext(async (ctx, flags) => (await import("./notify.js")).notifyFlushCommand(ctx, flags)));
  notify
    .command("test")
    .description("send a test message to a channel and print its answer")
    .argument("<channel>", "a channel's name under notifications.channels")
    .action(
      withContext(async (ctx, channel: string) =>
        (await import("./notify.js")).notifyTestCommand(ctx, channel),
      ),
    );
}
