// A saved plan for people (`show`, `saved show`): its facts, where it stands with its approvers, each item with
// what is stale about it now, and what the projection would not buy; and its JSON shape. Stale items are marked
// with why; showing never refuses.
import type { AuthorProof } from "../db/schema.js";
import { parseMoney } from "../money.js";
import type { PlanView } from "../plans/inspect.js";
import type { StaleItem } from "../plans/stale.js";
import {
  type Block,
  type DocSection,
  left,
  type ReportDocument,
  right,
  type Tone,
  table,
  text,
} from "./document.js";
import { CURRENCY, counted, formatAmount, formatInstant, type PhoneView } from "./format.js";
import { REPORT_FORMAT_VERSION } from "./render.js";

/** The author as the ledger knows them: signed, claimed with `--as` (one approval more), or the account's name. */
function authorLine(author: string, proof: AuthorProof): string {
  if (proof === "key") return `${author} (signed with their key)`;
  if (proof === "claimed") return `${author} (named with --as, not signed: needs one approval more)`;
  return author;
}

export function planDocument(view: PlanView, timeZone: string, phones: PhoneView): ReportDocument {
  const { plan } = view;
  const when = (iso: string) => formatInstant(new Date(iso), timeZone);
  const approvals = view.approvals;
  const facts: Array<[string, string]> = [
    ["Plan", plan.plan_id],
    ["Kind", plan.kind],
    // The ledger's facts where it recorded the plan (a file's own may have been edited: `mismatch` names how).
    ["Author", authorLine(view.row?.author ?? plan.author, view.row?.author_proof ?? plan.author_proof)],
    ["Status", view.status],
    ["Created", when(view.row?.created_at.toISOString() ?? plan.created_at)],
    [
      view.status === "applied" ? "Applied" : "Expires",
      view.row?.applied_at
        ? when(view.row.applied_at.toISOString())
        : when(view.row?.expires_at.toISOString() ?? plan.expires_at),
    ],
    ["Total", formatAmount(parseMoney(plan.total))],
    ["Items", String(plan.items.length)],
    [
      "Approvals",
      approvals
        ? `${approvals.valid.length} of ${approvals.required}${approvals.valid.length ? ` (${approvals.valid.join(", ")})` : ""}`
        : `${plan.approvals_required} needed`,
    ],
    ["Digest", view.row?.digest ?? plan.digest],
  ];
  const sections: DocSection[] = [];
  if (plan.kind === "purchases") sections.push(purchaseItems(view, phones));
  else sections.push(websiteItems(view));
  if (plan.kind === "purchases" && plan.rejected.length > 0)
    sections.push({
      id: "rejected",
      title: "Not bought",
      blocks: [
        table(
          "plan-rejected",
          [left("Phone"), left("Job"), left("Code"), left("Reason")],
          plan.rejected.map((r) => [phones.phone(r.phone), r.job ?? r.source, r.code, phones.text(r.reason)]),
        ),
      ],
    });
  if (approvals) sections.push(approvalSection(view));
  return { title: `Saved plan ${plan.plan_id}`, facts, status: statusLine(view), sections };
}

function statusLine(view: PlanView): { tone: Tone; text: string } {
  if (!view.row) return { tone: "error", text: "This ledger never recorded this plan: apply refuses it." };
  if (view.mismatch.length > 0)
    return { tone: "error", text: `Tampered: ${view.mismatch.join("; ")}. Apply refuses it.` };
  switch (view.status) {
    case "applied":
      return { tone: "ok", text: "Applied: applying it again buys nothing." };
    case "rejected":
      return { tone: "error", text: `Rejected: ${view.row.reason ?? ""}`.trim() };
    case "expired":
      return { tone: "error", text: `Expired: not applied before ${view.row.expires_at.toISOString()}.` };
    case "cancelled":
      return {
        tone: "error",
        text: `Cancelled: ${view.row.reason ?? "every purchase it held was cancelled"}.`,
      };
  }
  const approvals = view.approvals;
  const short = approvals && approvals.valid.length < approvals.required;
  const stale = view.check?.stale.length ?? view.websiteCheck?.stale.length ?? 0;
  if (short)
    return {
      tone: "warning",
      text: `Waiting for approval: ${approvals.valid.length} of ${approvals.required} distinct approvals.${stale ? ` ${counted(stale, "item")} stale now.` : ""}`,
    };
  if (stale)
    return {
      tone: "warning",
      text: `${counted(stale, "item")} stale now: apply refuses unless --stale drop.`,
    };
  if (view.checkError) return { tone: "note", text: `Approved. ${view.checkError}.` };
  return { tone: "ok", text: "Approved and current: ready to apply." };
}

function purchaseItems(view: PlanView, phones: PhoneView): DocSection {
  const { plan } = view;
  if (plan.kind !== "purchases") return { id: "items", title: "Items", blocks: [] };
  const stale = new Map<string, StaleItem>((view.check?.stale ?? []).map((s) => [s.item.request_key, s]));
  const done = new Set((view.check?.done ?? []).map((d) => d.item.request_key));
  const blocks: Block[] = [];
  if (view.checkError) blocks.push(text(view.checkError, "note"));
  blocks.push(
    table(
      "plan-items",
      [left("Phone"), left("Job"), left("Network"), left("Plan"), right("Price"), left("Now")],
      plan.items.map((item) => {
        const s = stale.get(item.request_key);
        const now = s
          ? `STALE ${s.code}: ${phones.text(s.why)}`
          : done.has(item.request_key)
            ? "bought"
            : view.check
              ? "ok"
              : "";
        return [
          phones.phone(item.phone),
          item.job ?? item.source,
          item.network,
          `${item.plan_id} ${item.plan_name}`,
          formatAmount(parseMoney(item.price)),
          now,
        ];
      }),
    ),
  );
  return {
    id: "items",
    title: `Items (${plan.items.length}, ${formatAmount(parseMoney(plan.total))})`,
    blocks,
  };
}

function websiteItems(view: PlanView): DocSection {
  const { plan } = view;
  if (plan.kind !== "websites") return { id: "items", title: "Items", blocks: [] };
  return {
    id: "items",
    title: `Changes (${plan.items.length})`,
    blocks: [
      table(
        "plan-changes",
        [left("Action"), left("Domain"), left("Website"), left("Planned against"), left("Now")],
        plan.items.map((item) => {
          const stale = view.websiteCheck?.stale.find(
            (s) => s.item.domain === item.domain && s.item.action === item.action,
          );
          return [
            item.action,
            item.domain,
            item.website_id ?? "",
            item.remote
              ? Object.entries(item.remote)
                  .map(([k, v]) => `${k}=${v ?? ""}`)
                  .join(" ")
              : "(not there)",
            stale ? `STALE: ${stale.why}` : view.websiteCheck ? "ok" : "",
          ];
        }),
      ),
    ],
  };
}

function approvalSection(view: PlanView): DocSection {
  const approvals = view.approvals!;
  const voided = new Map(approvals.void.map((v) => [v.approver, v.why]));
  return {
    id: "approvals",
    title: `Approvals (${approvals.valid.length} of ${approvals.required})`,
    blocks:
      approvals.decisions.length === 0
        ? [text("No approval yet.")]
        : [
            table(
              "plan-approvals",
              [left("Approver"), left("Decision"), left("At"), left("Counts"), left("Reason")],
              approvals.decisions.map((a) => [
                a.approver,
                a.decision,
                a.at,
                a.decision === "reject"
                  ? approvals.rejections.includes(a.approver)
                    ? "ends the plan"
                    : "void: not signed by this approver's key over this plan"
                  : voided.has(a.approver)
                    ? `void: ${voided.get(a.approver)}`
                    : "yes",
                a.reason ?? "",
              ]),
            ),
          ],
  };
}

/** The JSON of `show --format json`: the plan (phones masked unless asked), and what stands now. */
export function planJson(view: PlanView, phones: PhoneView) {
  const { plan } = view;
  const items =
    plan.kind === "purchases"
      ? plan.items.map((i) => ({
          ...i,
          request_key: phones.text(i.request_key),
          phone: phones.phone(i.phone),
        }))
      : plan.items;
  return {
    format_version: REPORT_FORMAT_VERSION,
    kind: "saved_plan",
    currency: CURRENCY,
    plan: {
      ...plan,
      items,
      ...(plan.kind === "purchases"
        ? {
            rejected: plan.rejected.map((r) => ({
              ...r,
              request_key: phones.text(r.request_key),
              phone: phones.phone(r.phone),
              reason: phones.text(r.reason),
            })),
          }
        : {}),
    },
    recorded: view.row !== undefined,
    status: view.status,
    mismatch: view.mismatch,
    approvals: view.approvals
      ? {
          required: view.approvals.required,
          valid: view.approvals.valid,
          void: view.approvals.void,
          rejected_by: view.approvals.rejectedBy ?? null,
        }
      : null,
    stale: view.check
      ? view.check.stale.map((s) => ({
          request_key: phones.text(s.item.request_key),
          code: s.code,
          why: phones.text(s.why),
        }))
      : view.websiteCheck
        ? view.websiteCheck.stale.map((s) => ({ action: s.item.action, domain: s.item.domain, why: s.why }))
        : null,
    bought: view.check ? view.check.done.length : null,
    check_error: view.checkError ?? null,
  };
}
