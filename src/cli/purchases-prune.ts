// `topsync purchases prune --before WHEN [--archive FILE] [--dry-run]`: settled purchases older than WHEN leave the
// ledger with their events, appended first to FILE (JSON lines) when given. The core is src/purchases/prune.ts.
import { resolve } from "node:path";
import { TopsyncError, UsageError } from "../errors.js";
import { countPrunable, PRUNING_LOCK, type PruneCount, prunePurchases } from "../purchases/prune.js";
import { openPruneArchive } from "../purchases/prune-archive.js";
import { withTryLock } from "../schedule/advisory-lock.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";
import { countLine, number, progressReporter } from "./progress.js";
import { parseSince } from "./purchases-ledger.js";

export interface PruneFlags {
  before: string;
  archive?: string;
  dryRun?: boolean;
}

export async function purchasesPruneCommand(ctx: CommandContext, flags: PruneFlags): Promise<void> {
  const cutoff = parseBefore(flags.before, ctx.config.timezone);
  const database = await openLedger(ctx);
  if (flags.dryRun) {
    const count = await countPrunable(database.db, cutoff);
    if (ctx.globals.json) return write(renderJson({ dry_run: true, before: cutoff.toISOString(), ...count }));
    return write(
      `dry run: would prune ${count.purchases} purchases (${count.events} events) settled before ${cutoff.toISOString()}\n`,
    );
  }
  const outcome = await withTryLock(database, PRUNING_LOCK, async () => {
    const archive = flags.archive ? await openPruneArchive(flags.archive) : undefined;
    // How many a prune takes is not counted first (that is a read as long as the prune's own); the rate is shown.
    const progress = progressReporter<PruneCount>(
      (p, elapsed) =>
        countLine(
          { done: p.purchases, unit: "purchases pruned", note: `${number(p.events)} events` },
          elapsed,
        ),
      ctx.logger,
    );
    progress.update({ purchases: 0, events: 0 });
    try {
      return await prunePurchases(database, cutoff, archive && ((lines) => archive.append(lines)), {
        onProgress: progress.update,
      });
    } finally {
      progress.done();
      await archive?.close();
    }
  });
  if (!outcome.locked)
    throw new TopsyncError(
      "PRUNE_RUNNING",
      "another purchases prune is running on this ledger; nothing was pruned (run it again once that one has finished)",
    );
  if (outcome.lostLock)
    ctx.logger.warn(
      `the session holding the prune's lock ended before the prune did (${outcome.lostLock}); what it pruned stands`,
    );
  const pruned = outcome.value;
  if (ctx.globals.json)
    return write(
      renderJson({
        before: cutoff.toISOString(),
        archive: flags.archive ? resolve(flags.archive) : null,
        ...pruned,
      }),
    );
  write(
    `pruned ${pruned.purchases} purchases (${pruned.events} events) settled before ${cutoff.toISOString()}` +
      `${flags.archive ? `, archived to ${resolve(flags.archive)}` : ""}\n`,
  );
}

/** --before: a duration ago (90d) or a date; never in the future, where it would take purchases settled a moment ago. */
function parseBefore(text: string, timeZone: string): Date {
  let cutoff: Date;
  try {
    cutoff = parseSince(text, timeZone);
  } catch {
    throw new UsageError(
      `--before must be a duration like 90d (purchases settled before 90 days ago) or a date like 2026-01-01; got "${text}"`,
    );
  }
  if (cutoff.getTime() > Date.now())
    throw new UsageError(
      `--before ${text} is in the future; prune takes purchases settled before a time gone by`,
    );
  return cutoff;
}
