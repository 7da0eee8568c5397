// `topsync purchases plan --save FILE`: the dry run's projection saved as a plan file and recorded in the ledger.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "../errors.js";
import { formatMoney, parseMoney } from "../money.js";
import type { PlanDocument } from "../plans/document.js";
import { savePurchasePlan } from "../plans/save.js";
import { explicitFire } from "../purchases/fire-time.js";
import { findJob } from "../purchases/run-once.js";
import { onDemandFire } from "../time/fires.js";
import { zonedInstant } from "../time/zoned.js";
import { planAuthor } from "./approval-gate.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";

export interface PurchasesPlanFlags {
  job?: string;
  now?: boolean;
  fireTime?: string;
  queued?: boolean;
  save: string;
  as?: string;
  key?: string;
  showPhone?: boolean;
}

export async function purchasesPlanCommand(ctx: CommandContext, flags: PurchasesPlanFlags): Promise<void> {
  const chosen = [flags.now, flags.fireTime, flags.queued].filter(Boolean).length;
  if (chosen > 1) throw new UsageError("give one of --now, --fire-time and --queued");
  if ((flags.now || flags.fireTime) && !flags.job)
    throw new UsageError("--now and --fire-time need --job NAME");
  if (flags.queued && flags.job)
    throw new UsageError("--queued plans the queue of every job; leave out --job");
  const now = new Date();
  const job = flags.job ? findJob(ctx.config, flags.job) : undefined;
  const fireTime =
    job && flags.fireTime
      ? explicitFire(job, ctx.config.timezone, parseTime(flags.fireTime, job.timezone ?? ctx.config.timezone))
      : flags.now
        ? onDemandFire(now)
        : undefined;
  if (job && !fireTime && !job.schedule && !job.at)
    throw new UsageError(`job "${job.name}" has no schedule or at; plan it with --now or --fire-time`);
  const author = await planAuthor(flags.as, flags.key);
  const [database, reseller] = await Promise.all([openLedger(ctx), ctx.reseller()]);
  const deps = { database, reseller, config: ctx.config, logger: ctx.logger };
  const { plan, row } = await savePurchasePlan(
    deps,
    { now, job, fireTime, queued: flags.queued === true, configDir: dirname(ctx.configFile) },
    { file: flags.save, author, configDigest: configDigest(ctx.configFile) },
  );
  if (ctx.globals.json) {
    write(
      renderJson({
        plan_id: plan.plan_id,
        file: flags.save,
        status: row.status,
        items: plan.items.length,
        rejected: plan.rejected.length,
        total: plan.total,
        approvals_required: plan.approvals_required,
        expires_at: plan.expires_at,
        digest: plan.digest,
      }),
    );
    return;
  }
  const codes = new Map<string, number>();
  for (const r of plan.rejected) codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
  write(
    `saved plan ${plan.plan_id} to ${flags.save}: ${plan.items.length} purchases for ${formatMoney(parseMoney(plan.total))}` +
      `${plan.rejected.length ? `; ${plan.rejected.length} not bought (${[...codes].map(([c, n]) => `${n} ${c}`).join(", ")})` : ""}\n`,
  );
  write(approvalsLine(plan, flags.save));
  write("nothing was bought or queued\n");
}

/** The SHA-256 of the config file as read: evidence of what a plan was made against. */
export function configDigest(file: string): string | null {
  try {
    return `sha256:${createHash("sha256").update(readFileSync(file)).digest("hex")}`;
  } catch {
    return null;
  }
}

/** An ISO time; without an offset, read on the job's clock (`timeZone`), never the machine's. */
function parseTime(text: string, timeZone: string): Date {
  const time = zonedInstant(text, timeZone);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || time === undefined)
    throw new UsageError(`--fire-time must be an ISO time like 2026-12-01T08:00:00+01:00, got "${text}"`);
  return time;
}

/** `topsync websites plan --save FILE`: the website plan of now, saved and recorded. */
export async function websitesPlanSaveCommand(
  ctx: CommandContext,
  file: string,
  as?: string,
  key?: string,
): Promise<number> {
  const { saveWebsitePlan } = await import("../plans/save.js");
  const author = await planAuthor(as, key);
  const database = await openLedger(ctx);
  const { plan, row } = await saveWebsitePlan(
    { api: await ctx.analytics(), db: database.db, config: ctx.config },
    { file, author, configDigest: configDigest(ctx.configFile), now: new Date() },
  );
  const counts = { create: 0, update: 0, delete: 0 };
  for (const item of plan.items) counts[item.action]++;
  if (ctx.globals.json) {
    write(
      renderJson({
        plan_id: plan.plan_id,
        file,
        status: row.status,
        ...counts,
        approvals_required: plan.approvals_required,
        expires_at: plan.expires_at,
        digest: plan.digest,
      }),
    );
    return 0;
  }
  write(
    `saved plan ${plan.plan_id} to ${file}: ${counts.create} to create, ${counts.update} to update, ${counts.delete} to delete\n`,
  );
  write(approvalsLine(plan, file));
  write("nothing was changed\n");
  return 0;
}

/** What a saved plan needs next: its approvals (and why one more, for an author only named), or its apply. */
function approvalsLine(plan: PlanDocument, file: string): string {
  if (plan.approvals_required === 0)
    return `no approval needed; apply it before ${plan.expires_at}: topsync apply ${file}\n`;
  const claimed =
    plan.author_proof === "claimed"
      ? ` (one more than the rules ask: its author ${JSON.stringify(plan.author)} is named with --as and not signed; an approver proves their name with --as NAME --key KEYFILE)`
      : "";
  return `needs ${plan.approvals_required} approval${plan.approvals_required > 1 ? "s" : ""}${claimed} before ${plan.expires_at}: topsync approve ${file} --as NAME --key KEYFILE\n`;
}
