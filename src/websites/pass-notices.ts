// What a pass tells the operator, written with the pass's record: drift an observing pass found
// (`website_drift`), websites an applying pass failed to change (`website_apply_failed`), deletes the guards
// refused (`mass_delete_refused`). One of each per pass that finds it.
import { createHash } from "node:crypto";
import type { Notice } from "../notify/outbox/write.js";
import type { Plan } from "./model.js";
import type { RunMode, WebsiteError } from "./runs.js";

/** Changes or errors a message lists; the rest are counted. */
const LISTED = 10;

export function passNotices(
  runId: number,
  mode: RunMode,
  plan: Plan,
  errors: readonly WebsiteError[],
  deletesRefused?: string,
): Notice[] {
  const notices: Notice[] = [];
  const subject = "websites";
  const episode = `pass:${runId}`;
  const drift = plan.entries.filter(
    (e) => e.action === "create" || e.action === "update" || e.action === "delete",
  );
  if (mode === "observe" && drift.length > 0) {
    const details = drift.map((e) =>
      "diff" in e ? `${e.action} ${e.domain} (${Object.keys(e.diff).join(", ")})` : `${e.action} ${e.domain}`,
    );
    notices.push({
      trigger: "website_drift",
      subject,
      episode,
      facts: {
        pass: runId,
        summary: countsOf(drift.map((e) => e.action)),
        details: listed(details),
        digest: createHash("sha256").update(details.sort().join("\n")).digest("hex").slice(0, 16),
      },
    });
  }
  const failed = errors.filter((e) => ["create", "update", "delete", "apply"].includes(e.action));
  if (mode === "apply" && failed.length > 0) {
    const details = failed.map(
      (e) => `${e.action} ${e.domain}: ${e.code}${e.status ? ` (HTTP ${e.status})` : ""}: ${e.message}`,
    );
    notices.push({
      trigger: "website_apply_failed",
      subject,
      episode,
      facts: {
        pass: runId,
        failed: failed.length,
        summary: `${failed.length} failed`,
        details: listed(details),
      },
    });
  }
  const refused = errors.find((e) => e.action === "guard")?.message ?? deletesRefused;
  if (refused !== undefined) {
    notices.push({
      trigger: "mass_delete_refused",
      subject,
      episode,
      facts: { pass: runId, reason: refused.slice(0, 300), summary: refused.slice(0, 300), details: [] },
    });
  }
  return notices;
}

function countsOf(actions: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const action of actions) counts.set(action, (counts.get(action) ?? 0) + 1);
  return [...counts].map(([action, n]) => `${n} to ${action}`).join(", ");
}

function listed(lines: string[]): string[] {
  return lines.length <= LISTED ? lines : [...lines.slice(0, LISTED), `… and ${lines.length - LISTED} more`];
}
