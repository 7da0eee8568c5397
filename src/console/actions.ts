// The console's actions, each a ledger change through the same core function the CLI calls, with the actor
// `console:<user>` and the person's reason. A purchase that changed since its page was drawn is not touched: the
// answer says what changed. Every outcome is logged (who, what, on what, what came of it).

import { cancelPurchase } from "../plans/cancel.js";
import { DecisionRefused, decide } from "../plans/decide.js";
import { type PersonOutcome, requeueAsPerson, resolveAsPerson } from "../purchases/by-person.js";
import { readJobState, resumeJob, suspendJob } from "../purchases/job-states.js";
import { CANCELLABLE_STATES, type PurchaseRow } from "../purchases/ledger.js";
import { signingProblem } from "./page-plans.js";
import { purchaseVersion } from "./page-purchases.js";
import { purchaseEvents } from "./reads.js";
import type { ConsoleView } from "./view.js";

export interface ActionResult {
  ok: boolean;
  /** Said to the person, and recorded as the form's outcome. */
  message: string;
}

export const MAX_REASON = 500;

export function actorOf(view: ConsoleView): string {
  return `console:${view.user.name}`;
}

/** What changed on a purchase since the page that carried `version` was drawn, or undefined when nothing did. */
export async function purchaseChange(
  view: ConsoleView,
  row: PurchaseRow,
  version: string,
): Promise<string | undefined> {
  const now = purchaseVersion(row);
  if (now === version) return undefined;
  const [drawnState] = version.split("@");
  const events = await purchaseEvents(view.database.db, row.id, 1000);
  const last = events[events.length - 1];
  const what =
    drawnState !== row.state
      ? `its state went from ${drawnState} to ${row.state}`
      : `it was updated (still ${row.state})`;
  return `purchase ${row.id} changed since this page was drawn: ${what}${last ? `, last by ${last.actor}: ${last.reason ?? `${last.from_state ?? "-"} -> ${last.to_state}`}` : ""}. Nothing was done; look at it again.`;
}

export async function purchaseAction(
  view: ConsoleView,
  row: PurchaseRow,
  action: "resolve" | "requeue" | "cancel",
  form: URLSearchParams,
  reason: string,
): Promise<ActionResult> {
  const db = view.database.db;
  const act = { actor: actorOf(view), reason: "" };
  let outcome: PersonOutcome;
  let to: string;
  if (action === "resolve") {
    const as = form.get("as");
    if (as !== "succeeded" && as !== "failed")
      return { ok: false, message: "choose the provider's outcome: succeeded or failed" };
    const reference = form.get("reference")?.trim() || undefined;
    if (reference && reference.length > 200) return { ok: false, message: "the reference is too long" };
    to = as;
    outcome = await resolveAsPerson(db, row, as, reference, {
      ...act,
      reason: `resolved in the console as ${as}: ${reason}`,
    });
  } else if (action === "requeue") {
    to = "queued";
    outcome = await requeueAsPerson(db, row, { ...act, reason: `requeued in the console: ${reason}` });
  } else {
    // Queued or held for an approval: the saved plan holding it stays true (plans/cancel.ts), as with the CLI.
    const result = await cancelPurchase(
      view.database,
      row.id,
      { actor: act.actor, reason: `cancelled in the console: ${reason}` },
      view.now,
    );
    if (!result.moved)
      return {
        ok: false,
        message: `cannot cancel purchase ${row.id}: it is ${result.from}, and only ${CANCELLABLE_STATES.join(" or ")} purchases can be`,
      };
    const plan = result.plan;
    return {
      ok: true,
      message: `purchase ${row.id}: ${result.from} -> cancelled${plan ? (plan.status === "cancelled" ? `; saved plan ${plan.id} is cancelled: none of its purchases is left` : `; saved plan ${plan.id} keeps ${plan.left}`) : ""}`,
    };
  }
  if (outcome.ok) return { ok: true, message: `purchase ${row.id}: ${outcome.moved.from_state} -> ${to}` };
  if (outcome.code === "REFERENCE_TAKEN")
    return {
      ok: false,
      message: `reference ${outcome.reference} is already on purchase ${outcome.holder.id} (${outcome.holder.state}); one provider reference is one purchase: nothing was settled, and both purchases are flagged reference_clash`,
    };
  return {
    ok: false,
    message: `cannot ${action} purchase ${row.id}: it is ${row.state}, and only ${outcome.allowed.join(" or ")} purchases can be`,
  };
}

export async function planDecision(
  view: ConsoleView,
  id: string,
  decision: "approve" | "reject",
  reason: string,
): Promise<ActionResult> {
  const problem = signingProblem(view);
  if (problem || !view.signingKey) return { ok: false, message: problem ?? "no signing key" };
  try {
    const result = await decide(
      view.database.db,
      view.config,
      { id },
      {
        approver: view.user.name,
        key: view.signingKey,
        decision,
        reason,
        now: view.now,
        actor: actorOf(view),
      },
    );
    if (decision === "reject")
      return {
        ok: true,
        message: `plan ${id} rejected by ${view.user.name}${result.cancelled ? `; ${result.cancelled} held purchases cancelled` : ""}`,
      };
    return {
      ok: true,
      message: `plan ${id} approved by ${view.user.name}: ${result.state.valid.length} of ${result.state.required} distinct approvals${result.row.status === "approved" ? "; it is approved and can be applied" : ""}`,
    };
  } catch (error) {
    if (error instanceof DecisionRefused) return { ok: false, message: error.message };
    throw error;
  }
}

/**
 * Suspends or resumes a configured job, as `topsync jobs suspend/resume` does: fleet-wide at once, an event in the
 * job's history with the actor and the reason. A job that config suspends (`suspended: true`) is resumed only by
 * taking that out of the config. Doing it twice changes nothing the second time, and says so.
 */
export async function jobAction(
  view: ConsoleView,
  name: string,
  action: "suspend" | "resume",
  reason: string,
): Promise<ActionResult> {
  const job = view.config.purchases.find((candidate) => candidate.name === name);
  // A job renamed or taken out of the config while stopped is still held by the ledger with its queue: it may be
  // resumed (its queued purchases are then bought), never suspended.
  const stopped = job || action !== "resume" ? undefined : await readJobState(view.database.db, name);
  if (!job && (!stopped || stopped.state === "active"))
    return { ok: false, message: `no job named "${name}" in the config` };
  if (action === "resume" && job?.suspended)
    return {
      ok: false,
      message: `job ${name} has suspended: true in the config; take that out of the config to resume it`,
    };
  const change = { actor: actorOf(view), reason };
  const result =
    action === "suspend"
      ? await suspendJob(view.database.db, name, change)
      : await resumeJob(view.database.db, name, change);
  if (!result.changed)
    return { ok: true, message: `job ${name} is ${result.status.state} already; nothing changed` };
  return {
    ok: true,
    message:
      action === "suspend"
        ? `job ${name} suspended on every replica by ${view.user.name}: its fires are skipped and counted as missed, its queued purchases stay queued`
        : `job ${name} resumed by ${view.user.name} (was ${result.from}): it fires again, and its queued purchases are bought`,
  };
}
