// `topsync notify list | flush | test`: the outbox on the command line. `list` shows events waiting for their
// message and the messages with their delivery; `flush` delivers what a command run without the daemon left;
// `test` sends one message to a channel and prints its answer.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { systemClock } from "../clock.js";
import { parseDuration } from "../duration.js";
import { ExitCode, UsageError } from "../errors.js";
import { Notifier } from "../notify/notifier.js";
import { listOutbox } from "../notify/read.js";
import { ownEntry } from "../own-entry.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { parseLimit } from "./limit.js";
import { renderJson, renderTable, write } from "./output.js";

const STATUSES = ["pending", "sending", "sent", "failed", "routed", "dropped"];

export interface ListFlags {
  status?: string;
  limit: string;
}

export async function notifyListCommand(ctx: CommandContext, flags: ListFlags): Promise<void> {
  const limit = parseLimit(flags.limit);
  if (flags.status !== undefined && !STATUSES.includes(flags.status))
    throw new UsageError(`--status must be one of ${STATUSES.join(", ")}, got "${flags.status}"`);
  const database = await openLedger(ctx);
  const entries = await listOutbox(database.db, { limit, status: flags.status });
  if (ctx.globals.json) return write(renderJson(entries));
  write(
    renderTable(entries, [
      { header: "WHAT", value: (e) => e.what },
      { header: "ID", value: (e) => String(e.id), align: "right" },
      { header: "TRIGGER", value: (e) => (e.kind === "open" ? e.trigger : `${e.trigger} (${e.kind})`) },
      { header: "TO", value: (e) => e.channel ?? e.subject ?? "-" },
      { header: "STATUS", value: (e) => e.status },
      { header: "EVENTS", value: (e) => String(e.events), align: "right" },
      { header: "TRIES", value: (e) => String(e.attempts), align: "right" },
      { header: "CREATED", value: (e) => e.created_at },
      {
        header: "LAST",
        value: (e) => e.last_error ?? e.answer ?? (e.status === "pending" ? "waiting" : "-"),
      },
    ]),
  );
  write(
    `${entries.length} entries${entries.length === limit ? ` (the newest ${limit}; --limit for more)` : ""}\n`,
  );
}

/** A notifier over this command's ledger, closed when the command ends; `command` names it as the claimer. */
async function openNotifier(ctx: CommandContext, command: string): Promise<Notifier> {
  const database = await openLedger(ctx);
  const notifier = new Notifier({
    database,
    config: ctx.config,
    logger: ctx.logger,
    clock: systemClock,
    // The host and a random part besides the pid: in containers every process may be pid 1, and two deliverers
    // of one name would each take the other's lease for its own.
    claimer: `${command}:${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`,
  });
  ctx.defer(() => notifier.close());
  return notifier;
}

export async function notifyFlushCommand(ctx: CommandContext, flags: { wait: string }): Promise<void> {
  let waitMs: number;
  try {
    waitMs = parseDuration(flags.wait);
  } catch {
    throw new UsageError(`--wait must be a duration like 60s or 5m, got "${flags.wait}"`);
  }
  const notifier = await openNotifier(ctx, "notify-flush");
  const result = await notifier.flush(waitMs);
  if (ctx.globals.json) write(renderJson(result));
  else
    write(
      `sent ${result.sent}, failed ${result.failed}` +
        (result.waiting > 0
          ? `, ${result.waiting} still waiting (a channel's pace, Retry-After or a retry)`
          : "") +
        "\n",
    );
  if (result.failed > 0 || result.waiting > 0) process.exitCode = ExitCode.failure;
}

export async function notifyTestCommand(ctx: CommandContext, channel: string): Promise<void> {
  const channels = ctx.config.notifications.channels;
  const found = ownEntry(channels, channel);
  if (!found) {
    const names = Object.keys(channels);
    throw new UsageError(
      `no channel named "${channel}" under notifications.channels${names.length > 0 ? ` (there are: ${names.join(", ")})` : ""}`,
    );
  }
  const notifier = await openNotifier(ctx, "notify-test");
  const result = await notifier.test(channel);
  const shown = {
    channel,
    type: found.type,
    delivered: result.ok,
    answer: result.answer,
    ...(result.ok ? {} : { error: result.error }),
  };
  if (ctx.globals.json) write(renderJson(notifier.scrub(shown)));
  else
    write(
      notifier.scrub(
        result.ok
          ? `${channel} (${found.type}): delivered — ${result.answer}\n`
          : `${channel} (${found.type}): not delivered — ${result.error}${result.answer ? ` — ${result.answer}` : ""}\n`,
      ),
    );
  if (!result.ok) process.exitCode = ExitCode.failure;
}
