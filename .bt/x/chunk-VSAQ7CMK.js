import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  Semaphore
} from "./chunk-INE77FG5.js";
import {
  backoffDelay,
  systemClock
} from "./chunk-Q5CGDVWJ.js";
import {
  AuthError,
  ClientError,
  HttpError,
  RateLimitedError
} from "./chunk-JUEWK5GU.js";
import {
  deriveSecretKey,
  forgetOwnership,
  loadOwnership,
  passwordHash,
  planWebsites,
  recordCreated,
  recordUpdated,
  removeOwnership
} from "./chunk-LO6SG345.js";
import {
  normaliseDomain
} from "./chunk-GJL2AOOX.js";
import {
  rows
} from "./chunk-BH4POYA2.js";
import {
  TopsyncError
} from "./chunk-3SYTADOT.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";
import {
  deleteRefusal
} from "./chunk-SZJK6VY7.js";
import {
  hasChanges
} from "./chunk-R5RR2GLU.js";

// dist/analytics/refusals.js
function fieldMessages(error, field) {
  if (!(error instanceof ClientError) || error.status !== 422)
    return [];
  const body = error.body;
  if (typeof body !== "object" || body === null)
    return [];
  const { message, errors } = body;
  const fields = [message, errors].filter((value) => typeof value === "object" && value !== null);
  return fields.flatMap((map) => {
    const value = map[field];
    const list = Array.isArray(value) ? value : [value];
    return list.filter((item) => typeof item === "string");
  });
}
function domainTakenMessage(error) {
  return fieldMessages(error, "domain").find((message) => /already (been )?taken/i.test(message));
}

// dist/websites/ownership-writer.js
import { setTimeout as delay } from "node:timers/promises";
var BATCH = 500;
var OwnershipWriter = class {
  db;
  lingerMs;
  queue = [];
  flushing = false;
  /**
   * `lingerMs`: how long the first change waits for company. Cheap, as requests go on meanwhile, and it
   * matters: one row costs the embedded database about as much as a batch of twenty.
   */
  constructor(db, lingerMs = 5) {
    this.db = db;
    this.lingerMs = lingerMs;
  }
  /** Resolves once the change is stored; one domain must not have two changes waiting at once. */
  record(change) {
    const stored = new Promise((resolve, reject) => this.queue.push({ change, resolve, reject }));
    if (!this.flushing)
      void this.flush();
    return stored;
  }
  async flush() {
    this.flushing = true;
    if (this.lingerMs > 0)
      await delay(this.lingerMs);
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.write(batch.map((waiting) => waiting.change));
        for (const waiting of batch)
          waiting.resolve();
      } catch (error) {
        for (const waiting of batch)
          waiting.reject(error);
      }
    }
    this.flushing = false;
  }
  async write(changes) {
    const of = (kind) => changes.filter((c) => c.kind === kind);
    await recordCreated(this.db, of("created"));
    await recordUpdated(this.db, of("updated"));
    await removeOwnership(this.db, of("removed"));
  }
};

// dist/websites/retry.js
function isRetryable(error, action) {
  if (!(error instanceof HttpError))
    return false;
  if (error instanceof RateLimitedError || error.outcome === "not_sent")
    return true;
  return action !== "create" && error.outcome === "unknown" && error.code !== "HTTP_ABORTED";
}
async function withRetries(action, call, context) {
  const policy = { baseDelayMs: context.retry.base_delay, maxDelayMs: context.retry.max_delay };
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt + 1 >= context.retry.max_attempts || !isRetryable(error, action))
        throw error;
      const delay2 = error instanceof RateLimitedError && error.retryAfterMs !== void 0 ? error.retryAfterMs : backoffDelay(attempt, policy, context.random);
      await context.clock.sleep(delay2, context.signal);
    }
  }
}

// dist/websites/write-errors.js
var StalePlanError = class extends Error {
  code = "STALE_PLAN";
};
var NotAttempted = class extends Error {
  refusal;
  code = "NOT_ATTEMPTED";
  constructor(refusal) {
    super(`not attempted: ${refusal.message}`);
    this.refusal = refusal;
  }
};
function writeError(error, entry) {
  const coded = error instanceof HttpError || error instanceof StalePlanError || error instanceof NotAttempted;
  const id = entry.action === "create" ? void 0 : entry.id;
  const failure = {
    domain: entry.domain,
    action: entry.action,
    code: coded ? error.code : "FAILED",
    message: `${entry.action} ${entry.domain}${id === void 0 ? "" : ` (id ${id})`} failed: ${reason(error, entry)}`
  };
  if (id !== void 0)
    failure.id = id;
  if (error instanceof HttpError && error.status !== void 0)
    failure.status = error.status;
  return failure;
}
function reason(error, entry) {
  if (error instanceof ClientError && error.status === 404) {
    return "HTTP 404: the website no longer exists remotely; the next pass creates it again if it is declared";
  }
  if (error instanceof ClientError)
    return `HTTP ${error.status}: ${error.providerMessage}`;
  if (error instanceof AuthError)
    return `${error.message}; nothing more is sent in this pass`;
  if (error instanceof NotAttempted)
    return "not sent: the service refused the API key earlier in this pass";
  if (error instanceof HttpError && error.outcome === "unknown" && entry.action === "create") {
    return `${error.message} (the outcome is unknown; the next pass adopts the website if it was created)`;
  }
  return error instanceof Error ? error.message : String(error);
}

// dist/websites/apply.js
async function applyPlan(plan, deps) {
  const pass = {
    deps,
    clock: deps.clock ?? systemClock,
    passwords: new Map(deps.desired.map((item) => [normaliseDomain(item.domain), item.password])),
    owners: new OwnershipWriter(deps.db),
    slots: new Semaphore(Math.max(1, deps.concurrency)),
    result: { created: 0, updated: 0, deleted: 0, applied: [], errors: [], conflicts: [] }
  };
  const writes = plan.entries.filter((e) => e.action === "create" || e.action === "update");
  await runAll(pass, writes);
  const deletes = plan.entries.filter((e) => e.action === "delete");
  const refusal = deleteRefusal(plan, deps.limits);
  if (refusal) {
    pass.result.deletesRefused = refusal;
    pass.result.errors.push({ domain: "*", action: "guard", code: refusal.code, message: refusal.message });
    deps.logger?.warn({ code: refusal.code }, refusal.message);
  } else {
    await runAll(pass, deletes);
  }
  if (plan.remote.complete && plan.forget.length > 0)
    await forgetOwnership(deps.db, plan.forget);
  return pass.result;
}
async function runAll(pass, entries) {
  await Promise.all(entries.map((entry) => runOne(pass, entry)));
}
function send(pass, action, call) {
  const { retry, random, signal } = pass.deps;
  return pass.slots.run(async () => {
    if (pass.stopped)
      throw new NotAttempted(pass.stopped);
    try {
      return await withRetries(action, call, { retry, clock: pass.clock, random, signal });
    } catch (error) {
      if (error instanceof AuthError)
        pass.stopped = error;
      throw error;
    }
  });
}
async function runOne(pass, entry) {
  try {
    if (entry.action === "create")
      await create(pass, entry);
    else if (entry.action === "update")
      await update(pass, entry);
    else
      await remove(pass, entry);
  } catch (error) {
    record(pass, entry, error);
  }
}
async function create(pass, entry) {
  const { api } = pass.deps;
  const input = { domain: entry.domain, ...entry.send, ...passwordFor(pass, entry) };
  let website;
  try {
    website = await send(pass, "create", () => api.createWebsite(input));
  } catch (error) {
    const taken = domainTakenMessage(error);
    if (taken !== void 0)
      return conflict(pass, entry.domain, taken);
    if (error instanceof HttpError && error.outcome === "unknown") {
      await pass.owners.record({
        kind: "created",
        domain: entry.domain,
        websiteId: null,
        secrets: entry.secrets
      });
    }
    throw error;
  }
  const owned = {
    kind: "created",
    domain: entry.domain,
    websiteId: website.id,
    secrets: entry.secrets
  };
  await pass.owners.record(owned).catch((error) => {
    const reason2 = error instanceof Error ? error.message : String(error);
    throw new Error(`it was created as id ${website.id}, but recording topsync's ownership failed: ${reason2}`);
  });
  done(pass, "create", entry.domain, website.id);
}
async function update(pass, entry) {
  const input = { ...entry.send, ...passwordFor(pass, entry) };
  await send(pass, "update", () => pass.deps.api.updateWebsite(entry.id, input));
  await pass.owners.record({
    kind: "updated",
    domain: entry.domain,
    websiteId: entry.id,
    secrets: entry.secrets
  });
  done(pass, "update", entry.domain, entry.id);
}
async function remove(pass, entry) {
  try {
    await send(pass, "delete", () => pass.deps.api.deleteWebsite(entry.id));
  } catch (error) {
    if (!(error instanceof ClientError && error.status === 404))
      throw error;
  }
  await pass.owners.record({ kind: "removed", domain: entry.domain, websiteId: entry.id });
  done(pass, "delete", entry.domain, entry.id);
}
function passwordFor(pass, entry) {
  if (!entry.sendPassword)
    return {};
  const password = pass.passwords.get(entry.domain);
  const expected = entry.secrets.password;
  if (password === void 0 || expected === void 0 || passwordHash(pass.deps.secretKey, password) !== expected) {
    throw new StalePlanError("the declared password changed since this plan was made; plan again");
  }
  return { password };
}
function done(pass, action, domain, id) {
  const { result, deps } = pass;
  result.applied.push({ action, domain, id });
  if (action === "create")
    result.created += 1;
  else if (action === "update")
    result.updated += 1;
  else
    result.deleted += 1;
  deps.logger?.debug({ domain, id, action }, `${action}d website ${domain}`);
}
function conflict(pass, domain, said) {
  const reason2 = `held by another account on this installation (the service refused the create: ${JSON.stringify(said)}); topsync leaves it alone`;
  pass.result.conflicts.push({ domain, reason: reason2 });
  pass.deps.logger?.warn({ domain, action: "create", code: "DOMAIN_TAKEN" }, `conflict ${domain}: ${reason2}`);
}
function record(pass, entry, error) {
  const failure = writeError(error, entry);
  pass.result.errors.push(failure);
  pass.deps.logger?.warn({ domain: entry.domain, action: entry.action, code: failure.code }, failure.message);
}

// dist/websites/runs.js
async function startRun(db, mode) {
  const [row] = await rows(db, sql`insert into website_runs (mode, status) values (${mode}, 'running') returning id`);
  return Number(row.id);
}
async function finishRun(db, id, outcome) {
  await db.execute(sql`update website_runs set
          finished_at = now(), status = ${outcome.status},
          created = ${outcome.created}, updated = ${outcome.updated}, deleted = ${outcome.deleted},
          unchanged = ${outcome.unchanged}, unmanaged = ${outcome.unmanaged}, conflicts = ${outcome.conflicts},
          errors = ${JSON.stringify(outcome.errors)}::jsonb, summary = ${JSON.stringify(outcome.summary)}::jsonb
        where id = ${id}`);
}

// dist/websites/reconcile.js
function reconcileDeps(config, api, db, extra = {}) {
  return {
    api,
    db,
    websites: config.websites,
    secretKey: deriveSecretKey(config.analytics.api_key),
    concurrency: config.analytics.concurrency,
    retry: config.analytics.retry,
    ...extra
  };
}
async function reconcile(deps, options) {
  const clock = deps.clock ?? systemClock;
  const started = clock.now();
  const runId = await startRun(deps.db, options.mode);
  const ownership = loadOwnership(deps.db);
  ownership.catch(() => {
  });
  let listing;
  try {
    listing = await deps.api.readWebsites({ signal: deps.signal });
  } catch (error) {
    await finishRun(deps.db, runId, failedOutcome(error, "list"));
    throw error;
  }
  const plan = planWebsites(deps.websites.items, listing.websites, await ownership, {
    prune: deps.websites.prune,
    secretKey: deps.secretKey,
    complete: listing.complete,
    ...listing.problem ? { problem: listing.problem } : {}
  });
  const base = { runId, mode: options.mode, plan, pages: listing.pages };
  const limits = { maxDeletes: deps.websites.max_deletes, allowMassDelete: options.allowMassDelete ?? false };
  let applied;
  let status = "ok";
  if (options.mode === "apply") {
    try {
      const wanted = !options.confirm || !hasChanges(plan) || await options.confirm(plan);
      if (wanted)
        applied = await applyPlan(plan, { ...deps, desired: deps.websites.items, limits });
      else
        status = "cancelled";
    } catch (error) {
      await finishRun(deps.db, runId, failedOutcome(error, "apply")).catch(() => {
      });
      throw error;
    }
  }
  const errors = [...incompleteness(listing), ...applied?.errors ?? []];
  if (errors.length > 0 && status === "ok")
    status = "partial";
  const counts = passCounts(plan, applied);
  const durationMs = clock.now() - started;
  const refusal = options.mode === "apply" ? void 0 : deleteRefusal(plan, limits);
  await finishRun(deps.db, runId, {
    status,
    ...counts,
    errors,
    summary: summaryOf(plan, listing.pages, durationMs, refusal?.message)
  });
  return { ...base, status, applied, counts, errors, durationMs };
}
function incompleteness(listing) {
  if (listing.complete)
    return [];
  const message = `the remote listing was incomplete, so no website was created or deleted: ${listing.problem ?? "the pages disagreed"}`;
  return [{ domain: "*", action: "list", code: "LISTING_INCOMPLETE", message }];
}
function passCounts(plan, applied) {
  return {
    created: applied?.created ?? 0,
    updated: applied?.updated ?? 0,
    deleted: applied?.deleted ?? 0,
    unchanged: plan.summary.unchanged,
    unmanaged: plan.summary.unmanaged,
    conflicts: plan.summary.conflicts + (applied?.conflicts.length ?? 0)
  };
}
var DRIFT_SHOWN = 100;
function summaryOf(plan, pages, durationMs, deletesRefused) {
  const changes = plan.entries.filter((entry) => entry.action !== "noop").slice(0, DRIFT_SHOWN).map((entry) => ({
    action: entry.action,
    domain: entry.domain,
    ..."diff" in entry ? { fields: Object.keys(entry.diff) } : {}
  }));
  return {
    planned: plan.summary,
    declared: plan.declared,
    remote: plan.remote.websites,
    pages,
    duration_ms: durationMs,
    changes,
    ...deletesRefused ? { deletes_refused: deletesRefused } : {}
  };
}
function failedOutcome(error, step) {
  const message = error instanceof Error ? error.message : String(error);
  const failure = {
    domain: "*",
    action: step,
    code: error instanceof HttpError || error instanceof TopsyncError ? error.code : "FAILED",
    message: step === "list" ? `listing the remote websites failed, so nothing was changed: ${message}` : `the pass stopped: ${message}`
  };
  if (error instanceof HttpError && error.status !== void 0)
    failure.status = error.status;
  return {
    status: "failed",
    created: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    unmanaged: 0,
    conflicts: 0,
    errors: [failure],
    summary: {}
  };
}

export {
  reconcileDeps,
  reconcile
};
