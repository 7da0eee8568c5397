// An owned website the listing does not show is looked up by its id before topsync believes it gone. A listing
// can be complete by every count and still miss a website: a person deletes one on a page already read and adds
// another while the pages are read, and the next page starts one record later (total and last_page unchanged). From
// that absence alone a pass would forget an owned website (so it is never pruned) or create a declared one again
// (refused: "the domain has already been taken"). The record's own answer settles it: a 404 is gone.
import { normaliseDomain } from "../config/index.js";
import { ClientError } from "../http/errors.js";
import type { Ownership, Plan } from "./model.js";
import type { PlanOptions } from "./plan.js";

/** The part of the analytics client the look-up uses. */
export interface WebsiteReader {
  getWebsite(id: number): Promise<{ id: number; domain: string }>;
}

/** At most this many owned websites are looked up in one pass; the rest wait for the next passes. */
export const MAX_LOOKUPS = 20;

export interface MissingCheck {
  /** Owned websites the listing did not show but the service still holds: the listing was not whole. */
  hidden: Array<{ domain: string; id: number }>;
  /** Owned domains whose absence is not confirmed (the look-up failed, or waits for a later pass). */
  unconfirmed: string[];
  /** Why a look-up failed, for the pass to say. */
  failures: string[];
}

/**
 * The owned domains a complete listing does not show and the plan would act on (re-create or forget), each
 * looked up by its recorded id. A domain whose create's outcome was unknown (no id) is not looked up.
 */
export async function checkMissingOwned(
  api: WebsiteReader,
  plan: Plan,
  ownership: Ownership,
  signal?: AbortSignal,
): Promise<MissingCheck> {
  const check: MissingCheck = { hidden: [], unconfirmed: [], failures: [] };
  if (!plan.remote.complete) return check;
  const recreated = plan.entries.filter((e) => e.action === "create" && e.reason).map((e) => e.domain);
  const missing = [...new Set([...recreated, ...plan.forget])]
    .filter((domain) => ownership.get(domain)?.website_id != null)
    .sort();
  for (const [index, domain] of missing.entries()) {
    if (index >= MAX_LOOKUPS || signal?.aborted) {
      check.unconfirmed.push(domain);
      continue;
    }
    const id = ownership.get(domain)!.website_id!;
    try {
      const found = await api.getWebsite(id);
      if (normaliseDomain(found.domain) === domain) check.hidden.push({ domain, id });
    } catch (error) {
      if (error instanceof ClientError && error.status === 404) continue;
      check.unconfirmed.push(domain);
      check.failures.push(
        `${domain} (id ${id}) could not be looked up: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return check;
}

/** Why the listing is not trusted, when the look-up found owned websites it did not show. */
export function hiddenProblem(hidden: MissingCheck["hidden"]): string {
  const shown = hidden
    .slice(0, 5)
    .map((h) => `${h.domain} (id ${h.id})`)
    .join(", ");
  const more = hidden.length > 5 ? `, and ${hidden.length - 5} more` : "";
  return `the listing did not show ${shown}${more}, which the service still holds when asked by id: the list changed while it was read`;
}

/**
 * What the look-ups change in a plan made again from the same listing: one that hid an owned website the service
 * still holds was not whole (nothing is created, deleted or forgotten from it), and an absence not confirmed is not
 * acted on yet. Nothing when every absence was confirmed.
 */
export function lookupOptions(check: MissingCheck): Partial<PlanOptions> | null {
  if (check.hidden.length > 0) return { complete: false, problem: hiddenProblem(check.hidden) };
  if (check.unconfirmed.length > 0) return { unconfirmed: new Set(check.unconfirmed) };
  return null;
}
