// The approval gate every run passes when approval rules are configured (the executor refuses to run without it):
// plans past their time expire; approved held plans whose signatures the config's keys verify are released into the
// queue, capped at their planned prices; and the run's new rows are weighed together — at or below the first
// threshold they are let through for this run, above it they are held as one saved plan awaiting approval.
import { sql } from "drizzle-orm";
import type { Config } from "../config/index.js";
import { type Database, type Queryable, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { formatMoney, parseMoney, sumMoney } from "../money.js";
import type { GateReport, GateRun, HeldRun, RunGate } from "../purchases/gate.js";
import { clearRows, holdRows, planRowStates, releaseHeld } from "../purchases/plan-rows.js";
import { resolveRow } from "../purchases/projection.js";
import { approvalShortfall, approvalState } from "./approval-state.js";
import { firstThreshold } from "./approvals.js";
import type { PurchaseItem } from "./document.js";
import { expireOpenPlans } from "./expire.js";
import { planOf } from "./purchase-plan.js";
import { applyingHeldPlans, approvedHeldPlans, markApplied, markApplying, registerPlan } from "./registry.js";

export interface GateOptions {
  database: Database;
  config: Config;
  logger: Logger;
  /** Who a held plan is registered as written by: `daemon`, or the operator running the command. */
  author: string;
}

export function approvalGate(options: GateOptions): RunGate {
  return {
    async before(run) {
      const db = options.database.db;
      await expireOpenPlans(db, run.now, run.actor);
      if (run.savedPlan) return { held: [], released: [] };
      const released = await releaseApproved(options, run);
      const held = await gateNewRows(options, run);
      return { held, released } satisfies GateReport;
    },
    async after(run) {
      await settleHeldPlans(options, run.now);
    },
  };
}

/** Approved held plans go back to the queue for this and every run; one replica releases each. */
async function releaseApproved(options: GateOptions, run: GateRun): Promise<string[]> {
  const db = options.database.db;
  const released: string[] = [];
  for (const plan of await approvedHeldPlans(db, run.now)) {
    const state = await approvalState(db, plan, options.config.approvals);
    const short = approvalShortfall(state);
    if (short) {
      options.logger.warn(
        { plan: plan.id },
        `held plan ${plan.id} is marked approved but ${short}; not released`,
      );
      continue;
    }
    if (plan.document.kind !== "purchases" || !(await markApplying(db, plan.id))) continue;
    const caps = plan.document.items.map((i) => ({ request_key: i.request_key, price: i.price }));
    const moved = await releaseHeld(db, plan.id, caps, {
      actor: run.actor,
      reason: `approved by ${state.valid.join(", ")}: saved plan ${plan.id}, at most its planned price`,
    });
    options.logger.info(
      { plan: plan.id, released: moved },
      `held plan ${plan.id} approved: ${moved} purchases queued`,
    );
    released.push(plan.id);
  }
  return released;
}

/** A due row no gate has looked at yet. */
interface NewRow {
  id: string | number;
  request_key: string;
  source: string;
  job_name: string | null;
  fire_time: Date | string | null;
  network: string;
  plan_id: string | null;
  plan_selector: unknown;
  phone: string;
  ported: boolean;
  max_price: string | null;
}

/**
 * The run's due rows no gate has looked at, locked so no other run weighs them at once: their total at live prices
 * at or below the first threshold lets them through; above it holds them all as one plan.
 */
async function gateNewRows(options: GateOptions, run: GateRun): Promise<HeldRun[]> {
  const threshold = firstThreshold(options.config.approvals);
  if (!threshold) return [];
  return options.database.transaction(async (tx) => {
    const found = await lockNewRows(tx, run);
    if (found.length === 0) return [];
    const priced: Array<{ row: NewRow; item: PurchaseItem }> = [];
    const refused: number[] = [];
    for (const row of found) {
      const resolution = resolveRow(row, run.catalogue);
      if (resolution.outcome === "buy") priced.push({ row, item: itemOf(row, resolution.resolved) });
      else if (resolution.outcome === "reject") refused.push(Number(row.id));
      // Unknown (plans unread): left for a run that can price it.
    }
    const total = sumMoney(priced.map((p) => parseMoney(p.item.price)));
    if (total.lte(threshold)) {
      await clearRows(tx, [...refused, ...priced.map((p) => Number(p.row.id))], run.runId);
      return [];
    }
    // Refused rows cost nothing: the claim rejects them with their reasons, as without a gate.
    await clearRows(tx, refused, run.runId);
    const plan = planOf(
      priced.map((p) => p.item),
      [],
      {
        now: run.now,
        author: options.author,
        configDigest: null,
        approvals: options.config.approvals,
        request: { now: run.now, queued: !run.jobName, configDir: "" },
      },
    );
    await registerPlan(tx, plan, "held");
    const reason = `held for approval: saved plan ${plan.plan_id}, ${priced.length} purchases for ${formatMoney(total)}, above ${formatMoney(threshold)}`;
    await holdRows(
      tx,
      priced.map((p) => Number(p.row.id)),
      plan.plan_id,
      { actor: run.actor, reason },
    );
    options.logger.warn(
      { plan: plan.plan_id, purchases: priced.length, total: plan.total },
      `${reason}; approve with \`topsync approve ${plan.plan_id} --as NAME --key FILE\``,
    );
    return [
      {
        plan: plan.plan_id,
        purchases: priced.length,
        total: plan.total,
        approvalsRequired: plan.approvals_required,
        expiresAt: plan.expires_at,
      },
    ];
  });
}

async function lockNewRows(tx: Queryable, run: GateRun): Promise<NewRow[]> {
  return rows<NewRow>(
    tx,
    sql`select id, request_key, source, job_name, fire_time, network, plan_id, plan_selector, phone, ported,
          max_price::text as max_price
        from purchases
        where state = 'queued' and approval is null and not_before <= ${run.now.toISOString()}::timestamptz
          ${run.jobName ? sql`and job_name = ${run.jobName}` : sql``}
          ${run.requestKey ? sql`and request_key = ${run.requestKey}` : sql``}
        order by not_before, id
        for update skip locked`,
  );
}

function itemOf(
  row: NewRow,
  resolved: Extract<ReturnType<typeof resolveRow>, { outcome: "buy" }>["resolved"],
): PurchaseItem {
  return {
    request_key: row.request_key,
    source: row.source,
    job: row.job_name,
    fire_time: row.fire_time === null ? null : new Date(row.fire_time).toISOString(),
    phone: resolved.phone,
    ported: row.ported,
    network_id: resolved.network.id,
    network: resolved.network.name,
    plan_id: resolved.plan.id,
    plan_name: resolved.plan.name,
    price: resolved.amount.toFixed(2),
  };
}

/** Released held plans with nothing left queued or held are applied. */
async function settleHeldPlans(options: GateOptions, now: Date): Promise<void> {
  const db = options.database.db;
  for (const id of await applyingHeldPlans(db)) {
    const states = await planRowStates(db, id);
    if ((states.get("queued") ?? 0) + (states.get("held") ?? 0) === 0) await markApplied(db, id, now);
  }
}
