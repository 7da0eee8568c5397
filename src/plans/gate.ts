// The approval gate every run passes when approval rules are configured (the executor refuses to run without it):
// plans past their time expire; approved held plans whose signatures the config's keys verify are released into the
// queue, capped at their planned prices; and the run's new rows are weighed together — at or below the first
// threshold they are let through for this run, above it they are held as one saved plan awaiting approval.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Config } from "../config/index.js";
import { type Database, type Queryable, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { formatMoney, ZERO } from "../money.js";
import type { GateReport, GateRun, HeldRun, RunGate } from "../purchases/gate.js";
import {
  addGated,
  clearGated,
  createGatedTable,
  type GatedRow,
  gatedItemsByKey,
  gatedItemsJsonSql,
  holdGated,
  planRowStates,
  releaseHeldPlan,
} from "../purchases/plan-rows.js";
import { resolveRow } from "../purchases/projection.js";
import { approvalShortfall, approvalState } from "./approval-state.js";
import { approvalsForTotal, authorFields, firstThreshold } from "./approvals.js";
import {
  newPlanId,
  PLAN_FORMAT_VERSION,
  type PurchaseItem,
  type PurchasePlan,
  planDigest,
} from "./document.js";
import { expireOpenPlans } from "./expire.js";
import {
  applyingHeldPlans,
  approvedHeldPlans,
  markApplied,
  markApplying,
  registerPlanBuilt,
} from "./registry.js";

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
    if (plan.kind !== "purchases" || !(await markApplying(db, plan.id))) continue;
    // Each row was held at its planned price (its max_price), so the release needs nothing of the plan's document.
    const moved = await releaseHeldPlan(db, plan.id, {
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
  /** Where the next page starts: `not_before` as the database writes it. */
  after: string;
}

/** Rows weighed at a time: memory holds one page, whatever the run's size. */
export const GATE_PAGE = 5000;

/**
 * The run's due rows no gate has looked at, locked page by page so no other run weighs them at once, and kept with
 * their prices in the transaction's own table: their total at live prices at or below the first threshold lets
 * them through; above it holds them all as one plan, whose digest and document are made from that table a page at
 * a time (the document by the database itself).
 */
async function gateNewRows(options: GateOptions, run: GateRun): Promise<HeldRun[]> {
  const threshold = firstThreshold(options.config.approvals);
  if (!threshold) return [];
  return options.database.transaction(async (tx) => {
    await createGatedTable(tx);
    let total = ZERO;
    let found = 0;
    let priced = 0;
    let ord = 0;
    const prices = new Map<unknown, string>();
    for (let after: { at: string; id: string } | null = null; ; ) {
      const page: NewRow[] = await lockNewRows(tx, run, after, GATE_PAGE);
      const gated: GatedRow[] = [];
      for (const row of page) {
        const resolution = resolveRow(row, run.catalogue);
        const id = Number(row.id);
        if (resolution.outcome === "buy") {
          // A plan's price is the same for many rows: its text is made once.
          let price = prices.get(resolution.resolved.amount);
          if (price === undefined) {
            price = resolution.resolved.amount.toFixed(2);
            prices.set(resolution.resolved.amount, price);
          }
          const item = itemOf(row, resolution.resolved, price);
          gated.push({ id, ord: ord++, request_key: row.request_key, price, item: JSON.stringify(item) });
          total = total.plus(resolution.resolved.amount);
          priced++;
        } else if (resolution.outcome === "reject")
          gated.push({ id, ord: ord++, request_key: row.request_key, price: null, item: null });
        // Unknown (plans unread): left for a run that can price it.
      }
      await addGated(tx, gated);
      found += page.length;
      if (page.length < GATE_PAGE) break;
      const last = page[page.length - 1]!;
      after = { at: last.after, id: String(last.id) };
    }
    if (found === 0) return [];
    if (total.lte(threshold)) {
      await clearGated(tx, "all", run.runId);
      return [];
    }
    // Refused rows cost nothing: the claim rejects them with their reasons, as without a gate.
    await clearGated(tx, "refused", run.runId);
    const totalText = formatMoney(total);
    const created = run.now;
    const planId = newPlanId();
    const digest = await gatedDigest(tx);
    // The held run's author is the operating system's account that ran it (the daemon's, or the command's).
    const author = { name: options.author, proof: "account" } as const;
    const plan: Omit<PurchasePlan, "items" | "rejected" | "approvals"> = {
      format_version: PLAN_FORMAT_VERSION,
      kind: "purchases",
      plan_id: planId,
      created_at: created.toISOString(),
      expires_at: new Date(created.getTime() + options.config.approvals.plan_ttl).toISOString(),
      ...authorFields(planId, digest, approvalsForTotal(options.config.approvals, total), author),
      config_digest: null,
      digest,
      total: total.toFixed(2),
      request: { job: run.jobName ?? null, fire_time: null, queued: !run.jobName },
    };
    // The document is the plan's fields with its items and no rejected ones, as a saved plan's file has them.
    const head = JSON.stringify(plan);
    const document = sql`${`${head.slice(0, -1)},"items":`} || ${gatedItemsJsonSql()} || ${`,"rejected":[]}`}`;
    await registerPlanBuilt(tx, plan, priced, "held", document);
    const reason = `held for approval: saved plan ${plan.plan_id}, ${priced} purchases for ${totalText}, above ${formatMoney(threshold)}`;
    await holdGated(tx, plan.plan_id, { actor: run.actor, reason });
    options.logger.warn(
      { plan: plan.plan_id, purchases: priced, total: plan.total },
      `${reason}; approve with \`topsync approve ${plan.plan_id} --as NAME --key FILE\``,
    );
    return [
      {
        plan: plan.plan_id,
        purchases: priced,
        total: plan.total,
        approvalsRequired: plan.approvals_required,
        expiresAt: plan.expires_at,
      },
    ];
  });
}

/**
 * The digest of the gate's priced items (as planDigest computes it for a plan of them), read a page at a time in
 * request key order. The database orders keys byte by byte (UTF-8) and the digest by UTF-16 code units: they agree
 * but for keys mixing characters above U+FFFF with ones from U+E000, for which the items are read whole and sorted
 * here instead.
 */
async function gatedDigest(tx: Queryable): Promise<string> {
  const hash = createHash("sha256");
  hash.update("[");
  let previous: string | null = null;
  for (;;) {
    const page = await gatedItemsByKey(tx, previous, GATE_PAGE);
    for (const { request_key, item } of page) {
      if (previous !== null && !(previous < request_key)) return gatedDigestInMemory(tx);
      hash.update(previous === null ? item : `,${item}`);
      previous = request_key;
    }
    if (page.length < GATE_PAGE) break;
  }
  hash.update("]");
  return `sha256:${hash.digest("hex")}`;
}

async function gatedDigestInMemory(tx: Queryable): Promise<string> {
  const items: PurchaseItem[] = [];
  for (let after: string | null = null; ; ) {
    const page = await gatedItemsByKey(tx, after, GATE_PAGE);
    for (const { item } of page) items.push(JSON.parse(item) as PurchaseItem);
    if (page.length < GATE_PAGE) break;
    after = page[page.length - 1]!.request_key;
  }
  return planDigest({ kind: "purchases", items });
}

async function lockNewRows(
  tx: Queryable,
  run: GateRun,
  after: { at: string; id: string } | null,
  limit: number,
): Promise<NewRow[]> {
  return rows<NewRow>(
    tx,
    sql`select id, request_key, source, job_name, fire_time, network, plan_id, plan_selector, phone, ported,
          max_price::text as max_price, not_before::text as after
        from purchases
        where state = 'queued' and approval is null and not_before <= ${run.now.toISOString()}::timestamptz
          ${run.jobName ? sql`and job_name = ${run.jobName}` : sql``}
          ${run.requestKey ? sql`and request_key = ${run.requestKey}` : sql``}
          ${after ? sql`and (not_before, id) > (${after.at}::timestamptz, ${after.id}::bigint)` : sql``}
        order by not_before, id
        limit ${limit}
        for update skip locked`,
  );
}

/** A plan item with its keys in canonical order (canonical.ts): its JSON text is its canonical text. */
function itemOf(
  row: NewRow,
  resolved: Extract<ReturnType<typeof resolveRow>, { outcome: "buy" }>["resolved"],
  price: string,
): PurchaseItem {
  return {
    fire_time: row.fire_time === null ? null : new Date(row.fire_time).toISOString(),
    job: row.job_name,
    network: resolved.network.name,
    network_id: resolved.network.id,
    phone: resolved.phone,
    plan_id: resolved.plan.id,
    plan_name: resolved.plan.name,
    ported: row.ported,
    price,
    request_key: row.request_key,
    source: row.source,
  };
}

/**
 * Released held plans with nothing left queued, held or being sent are applied. A row still in submitting after
 * this run is another run's, its call in flight: that run marks the plan applied once it is answered.
 */
async function settleHeldPlans(options: GateOptions, now: Date): Promise<void> {
  const db = options.database.db;
  for (const id of await applyingHeldPlans(db)) {
    const states = await planRowStates(db, id);
    const left = (states.get("queued") ?? 0) + (states.get("held") ?? 0) + (states.get("submitting") ?? 0);
    if (left === 0) await markApplied(db, id, now);
  }
}
