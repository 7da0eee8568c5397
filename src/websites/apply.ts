// Carrying out a website Plan: creates and updates first (bounded concurrency, per-website retries), deletes
// last and only when the delete guards allow; every website on its own, ownership recorded as changes land.
import type { WebsiteInput } from "../analytics/client.js";
import { domainTakenMessage } from "../analytics/refusals.js";
import type { RemoteWebsite } from "../analytics/schemas.js";
import { type Clock, systemClock } from "../clock.js";
import { normaliseDomain, type WebsiteItem } from "../config/index.js";
import type { Db } from "../db/client.js";
import { AuthError, ClientError, HttpError } from "../http/errors.js";
import type { Logger } from "../log/logger.js";
import { Semaphore } from "../semaphore.js";
import { redactSecretForms } from "../text/secrets.js";
import { type DeleteLimits, type DeleteRefusal, deleteRefusal } from "./guards.js";
import type { CreateEntry, DeleteEntry, NoopEntry, OwnershipRecord, Plan, UpdateEntry } from "./model.js";
import { forgetOwnership } from "./ownership.js";
import { OwnershipWriter } from "./ownership-writer.js";
import { type RetryPolicy, type WriteAction, withRetries } from "./retry.js";
import type { WebsiteError } from "./runs.js";
import { passwordHash } from "./secrets.js";
import { NotAttempted, StalePlanError, type WriteEntry, writeError } from "./write-errors.js";

/** The part of the analytics client that changes websites. */
export interface WebsiteWriter {
  createWebsite(input: WebsiteInput & { domain: string }): Promise<RemoteWebsite>;
  updateWebsite(id: number, input: Omit<WebsiteInput, "domain">): Promise<RemoteWebsite>;
  deleteWebsite(id: number): Promise<void>;
}

export interface ApplyDeps {
  api: WebsiteWriter;
  db: Db;
  /** The declared websites the plan was made from: the only source of passwords. */
  desired: readonly WebsiteItem[];
  secretKey: string;
  concurrency: number;
  retry: RetryPolicy;
  limits: DeleteLimits;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  signal?: AbortSignal;
  /** Told when the apply starts and after every change it finishes, however it ended. */
  onProgress?: (progress: ApplyProgress) => void;
}

/** How far an apply has got: changes finished (done, failed or refused as a conflict) of those it will try. */
export interface ApplyProgress {
  finished: number;
  total: number;
  failed: number;
}

export interface Applied {
  action: WriteAction;
  domain: string;
  id: number;
}

/** A create the service refused because another account on the installation holds the domain. */
export interface AppliedConflict {
  domain: string;
  reason: string;
}

export interface ApplyResult {
  created: number;
  updated: number;
  deleted: number;
  /** What was done, in completion order. */
  applied: Applied[];
  errors: WebsiteError[];
  /** Not errors: reported like the plan's conflicts, never retried within the pass. */
  conflicts: AppliedConflict[];
  deletesRefused?: DeleteRefusal;
}

/** What one applyPlan call shares between its workers; never module-level. */
interface Pass {
  deps: ApplyDeps;
  clock: Clock;
  passwords: Map<string, string | undefined>;
  owners: OwnershipWriter;
  /** `analytics.concurrency` requests in flight at most. */
  slots: Semaphore;
  result: ApplyResult;
  progress: ApplyProgress;
  /** Set when the service refused the API key: nothing more is sent. */
  stopped?: AuthError;
}

export async function applyPlan(plan: Plan, deps: ApplyDeps): Promise<ApplyResult> {
  const writes = plan.entries.filter(
    (e): e is CreateEntry | UpdateEntry => e.action === "create" || e.action === "update",
  );
  const deletes = plan.entries.filter((e): e is DeleteEntry => e.action === "delete");
  const refusal = deleteRefusal(plan, deps.limits);
  const total = writes.length + (refusal ? 0 : deletes.length);
  const pass: Pass = {
    deps,
    clock: deps.clock ?? systemClock,
    passwords: new Map(deps.desired.map((item) => [normaliseDomain(item.domain), item.password])),
    owners: new OwnershipWriter(deps.db),
    slots: new Semaphore(Math.max(1, deps.concurrency)),
    result: { created: 0, updated: 0, deleted: 0, applied: [], errors: [], conflicts: [] },
    progress: { finished: 0, total, failed: 0 },
  };
  deps.onProgress?.({ ...pass.progress });
  await runAll(pass, writes);
  await adopt(pass, plan);
  if (refusal) {
    pass.result.deletesRefused = refusal;
    pass.result.errors.push({ domain: "*", action: "guard", code: refusal.code, message: refusal.message });
    deps.logger?.warn({ code: refusal.code }, refusal.message);
  } else {
    await runAll(pass, deletes);
  }
  if (plan.remote.complete && plan.forget.length > 0) await forgetOwnership(deps.db, plan.forget);
  return pass.result;
}

/**
 * The websites found under domains topsync owns without an id (a create whose outcome was unknown), with nothing to
 * change: they are recorded as the ones it owns, so that a website someone makes later under the domain is not.
 */
async function adopt(pass: Pass, plan: Plan): Promise<void> {
  const found = plan.entries.filter((e): e is NoopEntry => e.action === "noop" && e.adopt === true);
  await Promise.all(
    found.map((entry) =>
      pass.owners
        .record({ kind: "updated", domain: entry.domain, websiteId: entry.id, secrets: {} })
        .catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          pass.result.errors.push({
            domain: entry.domain,
            action: "update",
            code: "OWNERSHIP_NOT_RECORDED",
            message: `website ${entry.id} was found under a domain topsync owns, but recording it failed: ${reason}`,
          });
        }),
    ),
  );
}

async function runAll(pass: Pass, entries: readonly WriteEntry[]): Promise<void> {
  await Promise.all(entries.map((entry) => runOne(pass, entry)));
}

/**
 * One write with its retries, holding one of `analytics.concurrency` slots. Ownership is recorded outside
 * the slot, so the next requests go out while the database stores a batch of finished ones.
 */
function send<T>(pass: Pass, action: WriteAction, call: () => Promise<T>, around: Around = {}): Promise<T> {
  const { retry, random, signal } = pass.deps;
  return pass.slots.run(async () => {
    if (pass.stopped) throw new NotAttempted(pass.stopped);
    await around.before?.();
    try {
      return await withRetries(action, call, { retry, clock: pass.clock, random, signal });
    } catch (error) {
      // Before the slot is free again, so the next write in line already sees it.
      if (error instanceof AuthError) pass.stopped = error;
      await around.failed?.(error);
      throw error;
    }
  });
}

/** What a write does in its slot: just before it is sent, and when it failed (before the next write goes). */
interface Around {
  before?: () => Promise<void>;
  failed?: (error: unknown) => Promise<void>;
}

async function runOne(pass: Pass, entry: WriteEntry): Promise<void> {
  try {
    if (entry.action === "create") await create(pass, entry);
    else if (entry.action === "update") await update(pass, entry);
    else await remove(pass, entry);
  } catch (error) {
    record(pass, entry, error);
    pass.progress.failed += 1;
  }
  pass.progress.finished += 1;
  pass.deps.onProgress?.({ ...pass.progress });
}

async function create(pass: Pass, entry: CreateEntry): Promise<void> {
  const { api } = pass.deps;
  const input = { domain: entry.domain, ...entry.send, ...passwordFor(pass, entry) };
  // The domain is topsync's once the create's turn has come, so that whatever happens to this process meanwhile,
  // the next pass adopts the website the service may have made instead of leaving it unowned for ever. When the
  // service certainly did not make it (the request never went, or was refused), the domain's row is put back as it
  // was; otherwise it may exist now, the domain stays owned, and the next pass adopts what it finds.
  let previous: OwnershipRecord | null = null;
  const around: Around = {
    before: async () => {
      previous = await pass.owners.pending(entry.domain, entry.secrets);
    },
    failed: async (error) => {
      if (error instanceof HttpError && error.outcome !== "unknown")
        await pass.owners.record({ kind: "restored", domain: entry.domain, previous });
    },
  };
  let website: RemoteWebsite;
  try {
    website = await send(pass, "create", () => api.createWebsite(input), around);
  } catch (error) {
    const taken = domainTakenMessage(error);
    if (taken !== undefined) return conflict(pass, entry.domain, taken);
    throw error;
  }
  const owned = {
    kind: "created",
    domain: entry.domain,
    websiteId: website.id,
    secrets: entry.secrets,
  } as const;
  await pass.owners.record(owned).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `it was created as id ${website.id}, but recording topsync's ownership failed: ${reason}`,
    );
  });
  done(pass, "create", entry.domain, website.id);
}

async function update(pass: Pass, entry: UpdateEntry): Promise<void> {
  const input = { ...entry.send, ...passwordFor(pass, entry) };
  await send(pass, "update", () => pass.deps.api.updateWebsite(entry.id, input));
  await pass.owners.record({
    kind: "updated",
    domain: entry.domain,
    websiteId: entry.id,
    secrets: entry.secrets,
  });
  done(pass, "update", entry.domain, entry.id);
}

async function remove(pass: Pass, entry: DeleteEntry): Promise<void> {
  try {
    await send(pass, "delete", () => pass.deps.api.deleteWebsite(entry.id));
  } catch (error) {
    // Already gone (someone else, or an earlier try whose answer was lost): the wish is met.
    if (!(error instanceof ClientError && error.status === 404)) throw error;
  }
  await pass.owners.record({ kind: "removed", domain: entry.domain, websiteId: entry.id });
  done(pass, "delete", entry.domain, entry.id);
}

/** The declared password, checked against the hash the plan was made with. */
function passwordFor(pass: Pass, entry: CreateEntry | UpdateEntry): { password?: string } {
  if (!entry.sendPassword) return {};
  const password = pass.passwords.get(entry.domain);
  const expected = entry.secrets.password;
  if (
    password === undefined ||
    expected === undefined ||
    passwordHash(pass.deps.secretKey, password) !== expected
  ) {
    throw new StalePlanError("the declared password changed since this plan was made; plan again");
  }
  return { password };
}

function done(pass: Pass, action: WriteAction, domain: string, id: number): void {
  const { result, deps } = pass;
  result.applied.push({ action, domain, id });
  if (action === "create") result.created += 1;
  else if (action === "update") result.updated += 1;
  else result.deleted += 1;
  deps.logger?.debug({ domain, id, action }, `${action}d website ${domain}`);
}

/** The domain is not in our listing yet the service says it is taken: someone else's website holds it. */
function conflict(pass: Pass, domain: string, said: string): void {
  const reason = `held by another account on this installation (the service refused the create: ${JSON.stringify(said)}); topsync leaves it alone`;
  pass.result.conflicts.push({ domain, reason });
  pass.deps.logger?.warn({ domain, action: "create", code: "DOMAIN_TAKEN" }, `conflict ${domain}: ${reason}`);
}

function record(pass: Pass, entry: WriteEntry, error: unknown): void {
  const failure = writeError(error, entry);
  // The service's message may echo what was sent: the website's password is a secret (the API key is kept out of
  // answers as they are read).
  const password = entry.action === "delete" ? undefined : pass.passwords.get(entry.domain);
  if (password !== undefined) failure.message = redactSecretForms(failure.message, password);
  pass.result.errors.push(failure);
  pass.deps.logger?.warn({ domain: entry.domain, action: entry.action, code: failure.code }, failure.message);
}
