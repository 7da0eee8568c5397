import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  verifyDisagreements
} from "./chunk-2ULZMUG3.js";
import {
  Semaphore
} from "./chunk-INE77FG5.js";
import {
  backoffDelay,
  systemClock
} from "./chunk-Q5CGDVWJ.js";
import {
  AuthError,
  RateLimitedError,
  isHttpError
} from "./chunk-JUEWK5GU.js";
import {
  UNREFLECTED,
  WALLET_KEY,
  atWillNotFire,
  dueFire,
  fireJob,
  guardLimits,
  ingestIntake,
  loadCatalogue,
  overchargedReason,
  priceKey,
  projectSources,
  readFirstSeen,
  readOvercharges,
  readQueued,
  recordOvercharge,
  recordPlanPrices,
  recordWalletBalance,
  resolveRow
} from "./chunk-IVUYQY7E.js";
import {
  HEARTBEAT_GRACE_MS,
  HEARTBEAT_MS,
  RunLiveness,
  idArray,
  markFailed,
  markInDoubt,
  markSubmitted,
  markSucceeded,
  markUnverified,
  markVerifyMismatch,
  postponeVerify,
  rejectUnsent,
  requeueForRetry,
  returnUnclaimedSubmitting,
  returnUnsent,
  sweepDeadSubmitting,
  transitionMany
} from "./chunk-EBZNZK5S.js";
import {
  rows
} from "./chunk-BH4POYA2.js";
import {
  budgetDay
} from "./chunk-TEJ6QTWI.js";
import {
  UsageError
} from "./chunk-3SYTADOT.js";
import {
  ZERO,
  formatMoney,
  parseMoney
} from "./chunk-57HFVDAX.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";

// dist/purchases/executor.js
import { randomUUID } from "node:crypto";

// dist/purchases/batcher.js
var TransitionBatcher = class {
  db;
  waiting = [];
  timer;
  writing;
  maxBatch;
  fullBatch;
  gatherMs;
  constructor(db, options = {}) {
    this.db = db;
    this.maxBatch = options.maxBatch ?? 500;
    this.fullBatch = Math.min(options.fullBatch ?? 64, this.maxBatch);
    this.gatherMs = options.gatherMs ?? 5;
  }
  move(transition) {
    const result = new Promise((resolve, reject) => this.waiting.push({ transition, since: performance.now(), resolve, reject }));
    this.schedule();
    return result;
  }
  /** Writes everything waiting, without waiting for company, and waits for the writes in flight. */
  async drain() {
    while (this.writing || this.waiting.length > 0) {
      if (!this.writing)
        this.write();
      await this.writing;
    }
  }
  /** Starts the next write now if the batch is full, or sets a timer for when its oldest has waited long enough. */
  schedule() {
    if (this.writing || this.waiting.length === 0)
      return;
    if (this.waiting.length >= this.fullBatch) {
      this.write();
      return;
    }
    if (this.timer)
      return;
    const waited = performance.now() - (this.waiting[0]?.since ?? 0);
    this.timer = setTimeout(() => this.write(), Math.max(0, this.gatherMs - waited));
  }
  write() {
    clearTimeout(this.timer);
    this.timer = void 0;
    if (this.writing)
      return;
    const ids = /* @__PURE__ */ new Set();
    const batch = [];
    const later = [];
    for (const waiting of this.waiting) {
      if (batch.length < this.maxBatch && !ids.has(waiting.transition.id)) {
        ids.add(waiting.transition.id);
        batch.push(waiting);
      } else
        later.push(waiting);
    }
    this.waiting = later;
    if (batch.length === 0)
      return;
    this.writing = transitionMany(this.db, batch.map((w) => w.transition)).then((moved) => {
      const byId = new Map(moved.map((m) => [m.id, m]));
      for (const w of batch)
        w.resolve(byId.get(w.transition.id));
    }, (error) => {
      for (const w of batch)
        w.reject(error);
    });
    void this.writing.finally(() => {
      this.writing = void 0;
      this.schedule();
    });
  }
};

// dist/purchases/claim.js
var CATALOGUE_RETRY_MS = 6e4;
function readDue(db, filter, limit, exclude = []) {
  return readQueued(db, filter, { limit, exclude });
}
function toCandidates(due, catalogue) {
  return due.map((row) => {
    const resolution = resolveRow(row, catalogue);
    if (resolution.outcome === "buy")
      return { row, action: "submit", resolved: resolution.resolved };
    if (resolution.outcome === "unknown")
      return { row, action: "wait" };
    return { row, action: "reject", reason: `${resolution.code}: ${resolution.reason}` };
  });
}
async function claim(db, candidates, options) {
  const result = { toSend: [], rejected: [], lost: [], committed: ZERO };
  if (candidates.length === 0)
    return result;
  const day = budgetDay(options.now, options.timeZone);
  if (!options.ensuredDays?.has(day)) {
    await rows(db, sql`with b as (insert into budget_days (day, committed) values (${day}, 0) on conflict do nothing)
          insert into kv (key, value) values (${WALLET_KEY}, '{"balance": null}'::jsonb) on conflict do nothing`);
    options.ensuredDays?.add(day);
  }
  const outcomes = await decideAndWrite(db, candidates, day, options);
  for (const candidate of candidates) {
    const outcome = outcomes.get(candidate.row.id);
    if (!outcome) {
      result.lost.push(candidate);
    } else if (outcome.action === "submit" && candidate.action === "submit") {
      result.toSend.push({ row: candidate.row, resolved: candidate.resolved });
      result.committed = result.committed.plus(candidate.resolved.amount);
    } else if (outcome.action === "reject") {
      const [code, ...rest] = (outcome.reason ?? "rejected: ").split(": ");
      result.rejected.push({ row: candidate.row, code, reason: rest.join(": ") });
    }
  }
  return result;
}
async function decideAndWrite(db, candidates, day, options) {
  const payload = candidates.map((c, ord) => ({
    id: c.row.id,
    version: c.row.version,
    ord,
    action: c.action,
    attempt: c.row.attempts + 1,
    reason: c.action === "reject" ? c.reason : null,
    ...c.action === "submit" ? {
      network_id: c.resolved.network.id,
      plan_id: c.resolved.plan.id,
      plan_name: c.resolved.plan.name,
      phone: c.resolved.phone,
      amount: c.resolved.amount.toFixed(2)
    } : {}
  }));
  const money = (value) => value === void 0 ? null : value.toFixed(2);
  const dailyLimit = money(options.limits.dailyLimit);
  const runLimit = money(options.limits.perRunLimit);
  const floor = options.limits.minWalletBalance.toFixed(2);
  const later = new Date(options.now.getTime() + CATALOGUE_RETRY_MS).toISOString();
  const ids = idArray(candidates.map((c) => c.row.id));
  const moved = await db.all(sql`with recursive v as (
          select * from json_to_recordset(${JSON.stringify(payload)}::json) as v(
            id bigint, version text, ord integer, action text, attempt integer, reason text, network_id text,
            plan_id text, plan_name text, phone text, amount numeric(14,2))
        ), locked as materialized (
          select p.id, p.state, p.xmin::text as version from purchases p
          where p.id = any(${ids}::bigint[]) for update skip locked
        ), taken as (
          select v.* from v join locked l on l.id = v.id and l.version = v.version where l.state = 'queued'
        ), g as (
          select b.committed::numeric(14,2) as committed, (k.value->>'balance')::numeric(14,2) as balance,
            (${UNREFLECTED}
             + coalesce((k.value->>'claimed')::numeric, 0)
             - (select coalesce((s.value->>'claimed')::numeric, 0) from kv s where s.key = ${WALLET_KEY})
            )::numeric(14,2) as in_flight
          from budget_days b, kv k where b.day = ${day}::date and k.key = ${WALLET_KEY} for update of b, k
        ), cand as (
          select row_number() over (order by ord) as n, t.id, t.amount from taken t where t.action = 'submit'
        ), walk (n, id, refusal, daily, run, spent) as (
          select 0::bigint, null::bigint, null::text, g.committed, ${options.runCommitted.toFixed(2)}::numeric(14,2),
            0::numeric(14,2) from g
          union all
          select c.n, c.id, d.refusal,
            (case when d.refusal is null then w.daily + c.amount else w.daily end)::numeric(14,2),
            (case when d.refusal is null then w.run + c.amount else w.run end)::numeric(14,2),
            (case when d.refusal is null then w.spent + c.amount else w.spent end)::numeric(14,2)
          from walk w join cand c on c.n = w.n + 1 cross join g
          cross join lateral (select case
            when ${dailyLimit}::numeric(14,2) is not null and w.daily + c.amount > ${dailyLimit}::numeric(14,2) then
              'daily_budget: daily budget: ' || w.daily || ' committed today + ' || c.amount
                || ' > daily_limit ' || ${dailyLimit}::numeric(14,2)
            when ${runLimit}::numeric(14,2) is not null and w.run + c.amount > ${runLimit}::numeric(14,2) then
              'run_budget: per-run budget: ' || w.run || ' this run + ' || c.amount
                || ' > per_run_limit ' || ${runLimit}::numeric(14,2)
            when g.balance is not null and g.balance - g.in_flight - w.spent - c.amount < ${floor}::numeric(14,2) then
              'wallet_floor: wallet floor: balance ' || g.balance || ' less ' || (g.in_flight + w.spent)
                || ' in flight less ' || c.amount || ' would be ' || (g.balance - g.in_flight - w.spent - c.amount)
                || ', below min_wallet_balance ' || ${floor}::numeric(14,2)
            end as refusal) d
        ), decided as (
          select t.*, case when t.action = 'submit' and w.refusal is not null then 'reject' else t.action end as final,
            coalesce(w.refusal, t.reason) as final_reason
          from taken t left join walk w on w.id = t.id
        ), moved as (
          update purchases p set
            state = case f.final when 'submit' then 'submitting' when 'reject' then 'rejected' else p.state end,
            network_id = coalesce(f.network_id, p.network_id), plan_id = coalesce(f.plan_id, p.plan_id),
            plan_name = coalesce(f.plan_name, p.plan_name), phone = coalesce(f.phone, p.phone),
            amount = case f.final when 'submit' then f.amount else p.amount end,
            budget_day = case f.final when 'submit' then ${day}::date else p.budget_day end,
            run_id = case f.final when 'submit' then ${options.runId} else p.run_id end,
            attempts = case f.final when 'submit' then f.attempt else p.attempts end,
            reason = case f.final when 'reject' then f.final_reason else null end,
            settled_at = case f.final when 'reject' then now() else p.settled_at end,
            not_before = case f.final when 'wait' then ${later}::timestamptz else p.not_before end,
            updated_at = now()
          from decided f
          where p.id = f.id and p.id = any(${ids}::bigint[])
          returning p.id, p.amount, p.state, f.final as action, f.final_reason as reason, f.attempt
        ), spent as (
          select coalesce(sum(amount), 0) as amount from moved where action = 'submit'
        ), budget as (
          update budget_days set committed = committed + (select amount from spent) where day = ${day}::date
        ), claimed as (
          update kv set value = jsonb_set(value, '{claimed}',
            to_jsonb(coalesce((value->>'claimed')::numeric, 0) + (select amount from spent)))
          where key = ${WALLET_KEY} and (select amount from spent) > 0
        ), event as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${options.actor}, 'queued', state, case action when 'submit' then 'attempt ' || attempt else reason end
          from moved where action <> 'wait'
        )
        select id, action, reason from moved`);
  return new Map(moved.map((m) => [Number(m.id), { action: m.action, reason: m.reason }]));
}

// dist/purchases/due-window.js
var MAX_AGE_MS = 2e3;
var COOL_DOWN_MS = 1e3;
var DueWindow = class {
  db;
  catalogue;
  size;
  now;
  filter;
  held = [];
  readAt = 0;
  /** Ids handed to claims that have not finished: still queued, so a read must not return them again. */
  claiming = /* @__PURE__ */ new Set();
  cooling = /* @__PURE__ */ new Map();
  reading;
  /** True once a read found nothing due: the queue is empty for this run until `reset`. */
  exhausted = false;
  constructor(db, catalogue, size, now, filter) {
    this.db = db;
    this.catalogue = catalogue;
    this.size = size;
    this.now = now;
    this.filter = filter;
  }
  /** Up to `count` candidates in due order; fewer when the queue is nearly empty, none when it is. */
  async take(count) {
    if (this.now() - this.readAt > MAX_AGE_MS)
      this.held = [];
    if (this.held.length < count && !this.exhausted) {
      this.reading ??= this.read(Math.max(this.size, count)).finally(() => {
        this.reading = void 0;
      });
      await this.reading;
    }
    const taken = this.held.splice(0, count);
    for (const candidate of taken)
      this.claiming.add(candidate.row.id);
    return taken;
  }
  /** A claim ended: its rows are no longer this window's; the ones it lost cool down before a read sees them. */
  settle(taken, lost) {
    for (const candidate of taken)
      this.claiming.delete(candidate.row.id);
    const until = this.now() + COOL_DOWN_MS;
    for (const candidate of lost)
      this.cooling.set(candidate.row.id, until);
    if (lost.length > 0 && lost.length * 2 >= taken.length)
      this.held = [];
  }
  /** Starts over after the queue was found empty (retries may have come due). */
  reset() {
    this.exhausted = false;
    this.held = [];
  }
  async read(limit) {
    const now = this.now();
    for (const [id, until] of this.cooling)
      if (until <= now)
        this.cooling.delete(id);
    const exclude = [...this.claiming, ...this.cooling.keys(), ...this.held.map((c) => c.row.id)];
    const due = await readDue(this.db, this.filter(), limit, exclude);
    this.readAt = this.now();
    if (due.length === 0) {
      this.exhausted = true;
      return;
    }
    this.held.push(...toCandidates(due, this.catalogue));
  }
};

// dist/purchases/outcome.js
function classifyPurchase(result) {
  if ("answer" in result) {
    const { answer } = result;
    if (answer.accepted) {
      return {
        kind: "submitted",
        reference: answer.reference,
        walletBalance: answer.walletBalance?.toFixed(2),
        charged: answer.charged?.toFixed(2),
        response: answer.raw
      };
    }
    return {
      kind: "failed",
      message: `the reseller refused the purchase: ${answer.message}`,
      stopRun: false,
      response: answer.raw
    };
  }
  const { error } = result;
  if (!isHttpError(error)) {
    return {
      kind: "in_doubt",
      why: `unexpected error during the purchase call: ${String(error?.message ?? error)}`
    };
  }
  const outcome = classifyHttpError(error);
  return error.body === void 0 ? outcome : { ...outcome, response: error.body };
}
function classifyHttpError(error) {
  if (error.outcome === "not_sent")
    return { kind: "retry", why: `not sent: ${error.message}` };
  if (error instanceof RateLimitedError)
    return { kind: "retry", retryAfterMs: error.retryAfterMs, why: error.message };
  if (error instanceof AuthError)
    return { kind: "failed", message: error.message, stopRun: true };
  if (error.outcome === "rejected")
    return { kind: "failed", message: error.message, stopRun: false };
  return { kind: "in_doubt", why: `${error.code}: ${error.message}` };
}

// dist/purchases/verifier.js
var Verifier = class {
  deps;
  tasks = /* @__PURE__ */ new Set();
  constructor(deps) {
    this.deps = deps;
  }
  get pending() {
    return this.tasks.size;
  }
  /** Verifies one purchase from its first check to a final state, in the background. */
  schedule(task) {
    const running = this.follow(task).catch((error) => {
      this.deps.logger.warn({ purchase: task.id, err: error }, `verification of purchase ${task.id} stopped: ${error.message}; it is checked again later`);
    });
    this.tasks.add(running);
    void running.finally(() => this.tasks.delete(running));
  }
  /** Picks up purchases earlier runs left `submitted` or `unverified` whose next check is due. */
  async resumeDue() {
    const { verification, clock } = this.deps;
    const now = clock.now();
    const due = await rows(this.deps.db, sql`select id, reference, state, submitted_at, phone, coalesce(charged_amount, amount)::text as amount from purchases
          where state in ('submitted', 'unverified') and next_verify_at <= ${new Date(now).toISOString()}
            and submitted_at >= ${new Date(now - verification.horizon).toISOString()}
          order by next_verify_at limit 10000`);
    for (const row of due) {
      this.schedule({
        id: Number(row.id),
        reference: row.reference,
        submittedAt: new Date(row.submitted_at).getTime(),
        attempt: 0,
        unverified: row.state === "unverified",
        expect: { phone: row.phone, amount: row.amount }
      });
    }
    return due.length;
  }
  /**
   * One verify read now, settled exactly as a poll would settle it (a notification named the purchase's
   * reference): true when the purchase reached a final state or a mismatch note.
   */
  async checkNow(task) {
    return this.settle(task, await this.look(task.reference));
  }
  /** Waits for every verification in progress (stops waiting early when `signal` aborts). */
  async drain(signal) {
    while (this.tasks.size > 0 && !signal?.aborted)
      await Promise.race(this.tasks);
  }
  async follow(task) {
    const { verification, clock } = this.deps;
    const deadline = task.submittedAt + verification.timeout;
    let attempt = task.attempt;
    const firstAt = task.unverified ? clock.now() : task.submittedAt + verification.initial_delay;
    await clock.sleep(Math.max(0, firstAt - clock.now()));
    for (; ; ) {
      const verification_ = await this.look(task.reference);
      if (await this.settle(task, verification_))
        return;
      const wait = Math.min(verification.max_interval, verification.initial_delay * 2 ** attempt);
      attempt++;
      if (task.unverified || clock.now() + wait > deadline)
        return this.giveUp(task, verification_);
      await clock.sleep(Math.max(1, wait));
    }
  }
  /**
   * One verification read. It waits for its slot ahead of purchases not yet sent: finishing what was bought
   * comes before buying more, so a purchase spends less time between its POST and its final state.
   */
  async look(reference) {
    try {
      return await this.deps.slots.run(() => this.deps.reseller.verifyTransaction(reference), {
        ahead: true
      });
    } catch (error) {
      this.deps.logger.warn({ reference, err: error }, `verify ${reference} failed for now: ${error.message}`);
      return void 0;
    }
  }
  /** Records a final status; true when the purchase is settled. */
  async settle(task, verification) {
    if (!verification?.found)
      return false;
    const { ledger: db, actor } = this.deps;
    const event = { actor, response: verification.raw };
    const from = ["submitted", "unverified"];
    const problems = verifyDisagreements({ reference: task.reference, ...task.expect }, verification);
    if (problems.length > 0) {
      const note = `verify_mismatch: the verify answer (${verification.rawStatus}) disagrees with the purchase: ${problems.join("; ")}`;
      await markVerifyMismatch(db, task.id, note, { ...event, reason: note });
      this.deps.logger.error({ purchase: task.id }, `purchase ${task.id}: ${note}`);
      this.deps.onSettled("unverified");
      return true;
    }
    switch (verification.status) {
      case "success":
        await markSucceeded(db, task.id, from, verification.rawStatus, {
          ...event,
          reason: `verified: ${verification.rawStatus}`
        });
        this.deps.onSettled("succeeded");
        return true;
      case "failed":
      case "reversed": {
        const amount = verification.transaction.amount?.toFixed(2) ?? null;
        const message = `the provider reports ${verification.rawStatus}${verification.transaction.true_response ? `: ${verification.transaction.true_response}` : ""}`;
        await markFailed(db, task.id, from, { message, providerStatus: verification.rawStatus, refund: amount }, { ...event, reason: `${message}${amount ? `; refund of ${amount} recorded` : ""}` });
        this.deps.onSettled("failed");
        return true;
      }
      default:
        return false;
    }
  }
  async giveUp(task, last) {
    const { ledger, db, verification, clock, actor } = this.deps;
    const status = last?.found ? last.rawStatus : "not found";
    const next = clock.now() + verification.max_interval * 10;
    const nextCheck = next <= task.submittedAt + verification.horizon ? new Date(next) : null;
    if (task.unverified) {
      await postponeVerify(db, task.id, nextCheck, last?.found ? last.rawStatus : null);
      return;
    }
    await markUnverified(ledger, task.id, nextCheck, {
      actor,
      reason: `no final status within verification.timeout (last seen: ${status})`,
      response: last?.raw
    });
    this.deps.onSettled("unverified");
  }
};

// dist/purchases/executor.js
var WALLET_FLUSH_MS = 50;
var LOST_SESSION_MS = 3e4;
var RECORD_RETRY_MS = 12e4;
var CLAIM_PAUSE_MS = 500;
var WINDOW_BATCHES = 4;
var SMALL_RUN_CLAIMS = 16;
async function executePurchases(deps, options = {}) {
  const clock = deps.clock ?? systemClock;
  const run = new PurchaseRun(deps, options, clock);
  return run.execute();
}
var PurchaseRun = class {
  deps;
  options;
  clock;
  runId = randomUUID();
  actor;
  slots;
  concurrency;
  /** Most purchases claimed and not yet answered at once: what a crash could leave `in_doubt`. */
  claimedCap;
  claimBatch;
  verifier;
  batcher;
  progress = {
    claimed: 0,
    submitted: 0,
    rejected: 0,
    failed: 0,
    inDoubt: 0,
    retried: 0,
    unsent: 0,
    succeeded: 0,
    unverified: 0,
    committed: ZERO,
    inFlight: 0,
    verifying: 0
  };
  inFlight = /* @__PURE__ */ new Set();
  recordings = /* @__PURE__ */ new Set();
  failure;
  ensuredDays = /* @__PURE__ */ new Set();
  liveness;
  /** Rows this run's claims handed it to send: any other row of this run left in submitting was never sent. */
  claimedIds = /* @__PURE__ */ new Set();
  claimPausedUntil = 0;
  /** The newest wallet balance a purchase answer reported; written at most every WALLET_FLUSH_MS. */
  wallet;
  /** Plans charged above their listed price, shared with the due window's resolution (this run's catalogue). */
  overcharged = /* @__PURE__ */ new Map();
  stoppedBy;
  wake;
  constructor(deps, options, clock) {
    this.deps = deps;
    this.options = options;
    this.clock = clock;
    this.actor = deps.actor ?? `run:${process.pid}`;
    this.concurrency = options.concurrency ?? deps.config.reseller.concurrency;
    this.slots = new Semaphore(this.concurrency);
    this.claimedCap = Math.max(this.concurrency, Math.min(2 * this.concurrency, SMALL_RUN_CLAIMS));
    this.claimBatch = Math.max(1, Math.floor(this.claimedCap * 3 / 4));
    this.batcher = new TransitionBatcher(deps.database);
    this.liveness = new RunLiveness(deps.database, this.runId, this.actor, deps.logger, clock);
    this.verifier = new Verifier({
      db: deps.database,
      ledger: this.batcher,
      reseller: deps.reseller,
      verification: deps.config.verification,
      logger: deps.logger,
      clock,
      actor: this.actor,
      slots: this.slots,
      onSettled: (state) => {
        if (state === "succeeded")
          this.progress.succeeded++;
        else if (state === "failed")
          this.progress.failed++;
        else if (state === "unverified")
          this.progress.unverified++;
        this.report();
      }
    });
  }
  async execute() {
    const [lock, catalogue] = await Promise.allSettled([
      this.liveness.start(),
      this.options.catalogue ?? loadCatalogue(this.deps.reseller, this.deps.logger)
    ]);
    try {
      if (lock.status === "rejected")
        throw lock.reason;
      if (catalogue.status === "rejected")
        throw catalogue.reason;
      return await this.executeHoldingLock(catalogue.value);
    } finally {
      await this.liveness.stop();
    }
  }
  async executeHoldingLock(live) {
    if (this.options.resumeVerification !== false)
      await this.verifier.resumeDue();
    this.overcharged = await readOvercharges(this.deps.database);
    const catalogue = { ...live, overcharged: this.overcharged };
    const window = new DueWindow(this.deps.database, catalogue, WINDOW_BATCHES * this.claimedCap, () => this.clock.now(), () => ({
      now: new Date(this.clock.now()),
      jobName: this.options.jobName,
      requestKey: this.options.requestKey
    }));
    let claiming = 0;
    const claims = /* @__PURE__ */ new Set();
    try {
      while (!this.stopped()) {
        const free = this.claimedCap - this.inFlight.size - claiming;
        const idle = this.inFlight.size === 0 && claims.size === 0;
        const live2 = this.liveness.held;
        const paused = this.clock.now() < this.claimPausedUntil;
        if (live2 && !paused && !window.exhausted && claims.size < 2 && free > 0 && (free >= this.claimBatch || idle)) {
          claiming += free;
          const claim2 = this.claim(window, free).finally(() => {
            claiming -= free;
            claims.delete(claim2);
          });
          claims.add(claim2);
          this.track(claim2, false);
          continue;
        }
        if (this.inFlight.size > 0 || claims.size > 0) {
          await this.nextEvent();
          continue;
        }
        if (paused && live2) {
          await this.clock.sleep(Math.max(1, this.claimPausedUntil - this.clock.now()));
          window.reset();
          continue;
        }
        if (!live2) {
          if (this.clock.now() - (this.liveness.lostAt ?? this.clock.now()) > LOST_SESSION_MS) {
            this.stoppedBy ??= "the run lost its database session and could not take its liveness lock again";
            break;
          }
          await this.clock.sleep(HEARTBEAT_MS);
          continue;
        }
        if (!await this.waitForRetries())
          break;
        window.reset();
      }
    } finally {
      await Promise.allSettled([...claims]);
      await Promise.allSettled([...this.inFlight]);
      await Promise.allSettled([...this.recordings]);
      await this.returnOrphans();
    }
    if (this.failure)
      throw this.failure;
    await this.flushWallet(true);
    await this.verifier.drain(this.options.signal);
    await this.batcher.drain();
    return {
      ...this.progress,
      verifying: this.verifier.pending,
      runId: this.runId,
      stoppedBy: this.stoppedBy
    };
  }
  stopped() {
    if (this.failure)
      throw this.failure;
    return this.stoppedBy !== void 0 || this.options.signal?.aborted === true;
  }
  /**
   * One claim. A claim that fails (the database away) is not the run's failure: claiming pauses and tries again;
   * whatever the failed statement may have committed is given back at the end of the run (`returnOrphans`).
   */
  async claim(window, free) {
    try {
      await this.claimOnce(window, free);
    } catch (error) {
      this.claimPausedUntil = this.clock.now() + CLAIM_PAUSE_MS;
      this.deps.logger.warn({ err: error }, `claiming failed for now: ${error.message}`);
    }
  }
  async claimOnce(window, free) {
    const { config } = this.deps;
    const candidates = await window.take(free);
    if (candidates.length === 0)
      return;
    const result = await claim(this.deps.database, candidates, {
      now: new Date(this.clock.now()),
      runId: this.runId,
      actor: this.actor,
      limits: guardLimits(config.budget),
      runCommitted: this.progress.committed,
      timeZone: config.timezone,
      ensuredDays: this.ensuredDays
    }).catch((error) => {
      window.settle(candidates, candidates);
      throw error;
    });
    window.settle(candidates, result.lost);
    for (const c of result.toSend)
      this.claimedIds.add(c.row.id);
    this.progress.committed = this.progress.committed.plus(result.committed);
    this.progress.claimed += result.toSend.length + result.rejected.length;
    this.progress.rejected += result.rejected.length;
    for (const r of result.rejected)
      this.deps.logger.info({ purchase: r.row.id, code: r.code }, `purchase ${r.row.id} rejected: ${r.reason}`);
    for (const claimed of result.toSend)
      this.track(this.send(claimed));
    this.report();
  }
  /** Follows a send (counted in the slots) or a claim (not counted); wakes the loop when it ends. */
  track(task, isSend = true) {
    const tracked = task.catch((error) => {
      this.failure ??= error;
    });
    if (isSend)
      this.inFlight.add(tracked);
    this.progress.inFlight = this.inFlight.size;
    void tracked.finally(() => {
      this.inFlight.delete(tracked);
      this.progress.inFlight = this.inFlight.size;
      const wake = this.wake;
      this.wake = void 0;
      wake?.();
    });
  }
  nextEvent() {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
  /** Sends one purchase exactly once; its send slot frees as soon as the answer is in, and recording follows. */
  async send({ row, resolved }) {
    const { reseller } = this.deps;
    const sent = await this.slots.run(async () => {
      if (this.stoppedBy !== void 0 || this.options.signal?.aborted)
        return void 0;
      if (this.overcharged.get(priceKey(resolved.network.id, resolved.plan.id))?.gt(resolved.amount))
        return { blocked: true };
      const classified = classifyPurchase(await reseller.buyData({
        network_id: resolved.network.id,
        plan_id: resolved.plan.id,
        phone_number: resolved.phone,
        ported_number: row.ported || void 0
      }).then((answer) => ({ answer }), (error) => ({ error })));
      if (classified.kind === "failed" && classified.stopRun)
        this.stoppedBy ??= classified.message;
      const charge = classified.kind === "submitted" ? chargeOf(row, resolved, classified.charged) : void 0;
      if (charge?.note)
        this.overcharged.set(priceKey(resolved.network.id, resolved.plan.id), charge.amount);
      return { outcome: classified, charge };
    });
    const recording = (sent === void 0 ? this.giveBack(row, resolved.amount) : "blocked" in sent ? this.rejectBlocked(row, resolved) : this.record(row, resolved, sent.outcome, sent.charge)).catch((error) => {
      this.failure ??= error;
    });
    this.recordings.add(recording);
    void recording.finally(() => this.recordings.delete(recording));
  }
  /** A claimed purchase the run stopped before sending goes back to the queue as it was. */
  async giveBack(row, amount) {
    const why = this.stoppedBy ?? "the run was stopped";
    await returnUnsent(this.batcher, row.id, row.attempts, { actor: this.actor, reason: `not sent: ${why}` });
    this.progress.committed = this.progress.committed.minus(amount);
    this.progress.unsent++;
    this.report();
  }
  /**
   * An answer is always recorded: while the database is away (a blip, a failover) its recording is tried again
   * with backoff, so a provider's answer is never thrown away by a dropped connection.
   */
  async persist(id, write) {
    const started = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (this.clock.now() - started > RECORD_RETRY_MS)
          throw error;
        const wait = Math.max(50, backoffDelay(attempt, { baseDelayMs: 100, maxDelayMs: 2e3 }));
        this.deps.logger.warn({ purchase: id, err: error }, `recording purchase ${id}'s answer failed (${error.message}); trying again in ${wait} ms`);
        await this.clock.sleep(wait);
      }
    }
  }
  /**
   * Rows a failed claim statement committed after all (its answer lost with the connection) are this run's and
   * were never sent: back to the queue. If even this cannot be written, they stay in submitting, and once this
   * run is gone a sweep makes them in_doubt (never sent, but nobody can know that then).
   */
  async returnOrphans() {
    try {
      const moved = await returnUnclaimedSubmitting(this.deps.database, this.runId, [...this.claimedIds], {
        actor: this.actor,
        reason: "not sent: claimed by a statement whose answer was lost with its database connection"
      });
      if (moved > 0)
        this.deps.logger.warn(`${moved} purchases claimed by a lost statement were never sent and are queued again`);
    } catch (error) {
      this.deps.logger.warn({ err: error }, `could not give back unsent claims: ${error.message}`);
    }
  }
  /** A claimed purchase whose plan was found overcharged before it was sent: rejected as a claim would be. */
  async rejectBlocked(row, resolved) {
    const charged = this.overcharged.get(priceKey(resolved.network.id, resolved.plan.id));
    const reason = `price_mismatch: ${overchargedReason(resolved.plan, charged)}`;
    await rejectUnsent(this.batcher, row.id, reason, { actor: this.actor, reason });
    this.progress.committed = this.progress.committed.minus(resolved.amount);
    this.progress.rejected++;
    this.report();
  }
  /**
   * Records what a purchase's outcome means for the ledger (DESIGN §4). Each write is retried while the database is
   * away (`persist`), and each is safe to repeat (transitions name the states they expect); the run's counters move
   * once, after the write.
   */
  async record(row, resolved, outcome, charge) {
    const { logger } = this.deps;
    const db = this.batcher;
    const event = { actor: this.actor, response: outcome.response };
    switch (outcome.kind) {
      case "submitted": {
        const submittedAt = this.clock.now();
        const firstCheck = new Date(submittedAt + this.deps.config.verification.initial_delay);
        const { amount, note } = charge ?? chargeOf(row, resolved, outcome.charged);
        const moved = await this.persist(row.id, () => markSubmitted(db, row.id, outcome.reference, firstCheck, { ...event, reason: `reference ${outcome.reference}${note ? `; ${note}` : ""}` }, { amount: amount.toFixed(2), note }));
        this.progress.committed = this.progress.committed.plus(amount.minus(resolved.amount));
        if (note)
          await this.persist(row.id, () => this.blockPlan(row, resolved, amount, note));
        const seq = moved?.answer_seq;
        if (outcome.walletBalance && seq)
          await this.persist(row.id, () => this.noteWallet(outcome.walletBalance, seq));
        this.progress.submitted++;
        this.verifier.schedule({
          id: row.id,
          reference: outcome.reference,
          submittedAt,
          attempt: 0,
          expect: { phone: resolved.phone, amount: amount.toFixed(2) }
        });
        break;
      }
      case "failed":
        await this.persist(row.id, () => markFailed(db, row.id, ["submitting", "in_doubt"], { message: outcome.message }, { ...event, reason: outcome.message }));
        this.progress.failed++;
        if (outcome.stopRun)
          logger.error(`stopping the run: ${outcome.message}`);
        break;
      case "retry":
        await this.retryOrGiveUp(row.id, row.attempts + 1, row.max_attempts, outcome.why, outcome.retryAfterMs, outcome.response);
        break;
      case "in_doubt":
        await this.persist(row.id, () => markInDoubt(db, row.id, { ...event, reason: outcome.why }));
        this.progress.inDoubt++;
        logger.warn({ purchase: row.id }, `purchase ${row.id} is in doubt: ${outcome.why}; settle it with topsync purchases resolve`);
        break;
    }
    this.report();
  }
  /**
   * Remembers a reported balance with the place of its answer in the order of answers; the guard counts every
   * purchase answered after it as not yet in it, so a balance written late is never too generous.
   */
  async noteWallet(balance, seq) {
    if (this.wallet && this.wallet.seq > seq)
      return;
    this.wallet = { balance, seq, flushedAt: this.wallet?.flushedAt ?? 0, written: false };
    await this.flushWallet(false);
  }
  /**
   * A plan charged above its listed price (or max_price): nothing more of it is sent, in this run (the due window
   * resolves with this catalogue) or later ones (kv), while its list shows less than it charges.
   */
  async blockPlan(row, resolved, charged, note) {
    const key = priceKey(resolved.network.id, resolved.plan.id);
    await recordOvercharge(this.deps.database, key, {
      network: resolved.network.name,
      plan: resolved.plan.id,
      listed: resolved.amount,
      charged
    });
    this.deps.logger.error({ purchase: row.id, plan: key }, `purchase ${row.id}: ${note}`);
  }
  async flushWallet(force) {
    const wallet = this.wallet;
    if (!wallet || wallet.written || !force && this.clock.now() - wallet.flushedAt < WALLET_FLUSH_MS)
      return;
    wallet.written = true;
    wallet.flushedAt = this.clock.now();
    await recordWalletBalance(this.deps.database, parseMoney(wallet.balance), wallet.seq, new Date(this.clock.now()));
  }
  async retryOrGiveUp(id, attempts, maxAttempts, why, retryAfterMs, response) {
    const { config } = this.deps;
    const db = this.batcher;
    if (attempts >= maxAttempts) {
      const message = `gave up after ${attempts} attempts, none processed: ${why}`;
      await this.persist(id, () => markFailed(db, id, ["submitting"], { message }, { actor: this.actor, reason: message, response }));
      this.progress.failed++;
      return;
    }
    const policy = {
      baseDelayMs: config.reseller.retry.base_delay,
      maxDelayMs: config.reseller.retry.max_delay
    };
    const delay = retryAfterMs ?? backoffDelay(attempts - 1, policy);
    await this.persist(id, () => requeueForRetry(db, id, new Date(this.clock.now() + delay), {
      actor: this.actor,
      reason: `${why}; retry in ${delay} ms`,
      response
    }));
    this.progress.retried++;
  }
  /** Sleeps until the earliest retry this run queued is due; false when there is none within the wait. */
  async waitForRetries() {
    await Promise.all(this.recordings);
    if (this.progress.retried === 0)
      return false;
    const next = await nextDueRetry(this.deps.database, this.runId, this.options.jobName);
    const limit = this.clock.now() + (this.options.retryWaitMs ?? 6e4);
    if (next === void 0 || next.getTime() > limit)
      return false;
    await this.clock.sleep(Math.max(0, next.getTime() - this.clock.now()), this.options.signal).catch(() => {
    });
    return true;
  }
  report() {
    this.progress.verifying = this.verifier.pending;
    this.options.onProgress?.(this.progress);
  }
};
async function nextDueRetry(db, runId, jobName) {
  const found = await rows(db, sql`select min(not_before) as next from purchases where state = 'queued' and run_id = ${runId}
        ${jobName ? sql`and job_name = ${jobName}` : sql``}`);
  const next = found[0]?.next;
  return next ? new Date(next) : void 0;
}
function chargeOf(row, resolved, charged) {
  const amount = charged ? parseMoney(charged) : resolved.amount;
  const max = row.max_price ? parseMoney(row.max_price) : null;
  const over = amount.gt(resolved.amount) || max !== null && amount.gt(max);
  if (!over)
    return { amount, note: null };
  const limit = max && amount.gt(max) ? `, above max_price ${formatMoney(max)}` : "";
  return {
    amount,
    note: `price_mismatch: the provider charged ${formatMoney(amount)} for plan ${resolved.plan.id} listed at ${formatMoney(resolved.amount)}${limit}; no more of this plan is bought until its listed price is what it charges`
  };
}

// dist/purchases/run-once.js
async function registerJobs(database, jobs, now) {
  if (jobs.length === 0)
    return /* @__PURE__ */ new Map();
  const values = jobs.map((job) => sql`(${job.name}, ${now.toISOString()}::timestamptz)`);
  await database.db.execute(sql`insert into jobs (name, first_seen) values ${sql.join(values, sql`, `)} on conflict (name) do nothing`);
  return readFirstSeen(database.db);
}
function findJob(config, name) {
  const job = config.purchases.find((j) => j.name === name);
  if (job)
    return job;
  const known = config.purchases.map((j) => j.name).join(", ") || "(none)";
  throw new UsageError(`no purchase job named "${name}" in the config; jobs: ${known}`, "UNKNOWN_JOB");
}
function firesToWrite(config, now, firstSeen, explicit) {
  if (explicit)
    return [explicit];
  const fires = [];
  for (const job of config.purchases) {
    if (!job.enabled)
      continue;
    const fireTime = dueFire(job, config.timezone, now, firstSeen.get(job.name));
    if (fireTime)
      fires.push({ job, fireTime });
  }
  return fires;
}
async function prepareRun(database, config, options) {
  const { swept, waiting } = await sweepDeadSubmitting(database, options.actor);
  let intake = 0;
  if (options.intake && config.intake.enabled) {
    for (; ; ) {
      const moved = await ingestIntake(database.db, config.intake.batch_size, options.actor);
      intake += moved.moved;
      if (moved.moved < config.intake.batch_size)
        break;
    }
  }
  const fires = [];
  for (const { job, fireTime } of options.fires) {
    fires.push(await fireJob(database.db, job, fireTime, {
      configDir: options.configDir,
      defaultAttempts: config.reseller.retry.max_attempts,
      actor: options.actor
    }));
  }
  return { swept, waiting, intake, fires };
}
async function executeAndRecord(deps, options) {
  const summary = await executePurchases(deps, options);
  await recordPlanPrices(deps.database.db, options.catalogue);
  return summary;
}
async function runPurchasePass(deps, request, options = {}) {
  const { database, config, logger } = deps;
  const actor = deps.actor ?? `run:${process.pid}`;
  const firstSeen = await registerJobs(database, config.purchases, request.now);
  const fires = passFires(config, request, firstSeen);
  if (!request.fireTime) {
    for (const job of request.job ? [request.job] : config.purchases) {
      const reason = atWillNotFire(job, request.now, firstSeen.get(job.name));
      if (reason)
        logger.warn(`job ${job.name} will not fire: ${reason}`);
    }
  }
  const prepared = await prepareRun(database, config, {
    now: request.now,
    actor,
    configDir: request.configDir,
    fires,
    intake: !request.job
  });
  if (prepared.swept > 0)
    logger.warn(`${prepared.swept} purchases were left in submitting by a stopped run and are now in_doubt`);
  for (const fire of prepared.fires) {
    logger.info(`job ${fire.job} fire ${fire.fireTime.toISOString()}: ${fire.recipients} recipients, ${fire.inserted} new`);
  }
  const catalogue = await loadCatalogue(deps.reseller, logger);
  const summary = await executeAndRecord({ ...deps, actor }, { ...options, jobName: request.job?.name, catalogue });
  const late = prepared.waiting > 0 ? await sweepWhenStale(deps, actor) : 0;
  if (late > 0)
    logger.warn(`${late} purchases were left in submitting by a stopped run and are now in_doubt`);
  return { ...prepared, swept: prepared.swept + late, summary };
}
async function sweepWhenStale(deps, actor) {
  const clock = deps.clock ?? systemClock;
  await clock.sleep(HEARTBEAT_GRACE_MS + HEARTBEAT_MS);
  return (await sweepDeadSubmitting(deps.database, actor)).swept;
}
async function projectRun(deps, request, keepItems = Number.POSITIVE_INFINITY) {
  const { database, config } = deps;
  const seen = await readFirstSeen(database.db);
  const firstSeen = new Map(config.purchases.map((job) => [job.name, seen.get(job.name) ?? request.now]));
  const fires = passFires(config, request, firstSeen);
  const catalogue = await loadCatalogue(deps.reseller, deps.logger);
  return projectSources(database.db, config, catalogue, {
    now: request.now,
    to: request.now,
    fires: fires.map((fire) => ({ ...fire, time: request.now })),
    jobName: request.job?.name,
    queued: true,
    intake: !request.job
  }, keepItems);
}
function passFires(config, request, firstSeen) {
  const { job, fireTime } = request;
  const fires = firesToWrite(config, request.now, firstSeen, job && fireTime ? { job, fireTime } : void 0);
  return job && !fireTime ? fires.filter((f) => f.job.name === job.name) : fires;
}

export {
  Verifier,
  registerJobs,
  findJob,
  prepareRun,
  executeAndRecord,
  runPurchasePass,
  projectRun
};
