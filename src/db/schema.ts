// The database: the purchase ledger and its event log, the intake table, schedule fires, and the small
// state topsync keeps between runs. Money is `numeric`, times are `timestamptz`.
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  date,
  index,
  integer,
  json,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const money = (name: string) => numeric(name, { precision: 14, scale: 2 });
const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const PURCHASE_STATES = [
  "queued",
  "rejected",
  "submitting",
  "submitted",
  "succeeded",
  "failed",
  "in_doubt",
  "unverified",
  "cancelled",
  /** Waiting for the approvals of the saved plan that holds it (`approval`); bought only once it is approved. */
  "held",
] as const;
export type PurchaseState = (typeof PURCHASE_STATES)[number];

/** One row per requested purchase, whatever its source; `request_key` makes every insert idempotent. */
export const purchases = pgTable(
  "purchases",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    request_key: text("request_key").notNull(),
    source: text("source").notNull(), // job | intake | buy
    job_name: text("job_name"),
    fire_time: at("fire_time"),
    network: text("network").notNull(), // as requested: id, code or name
    network_id: text("network_id"), // resolved
    plan_id: text("plan_id"), // requested or resolved
    plan_selector: jsonb("plan_selector"), // {size_mb, type?, name_contains?} when requested by selector
    plan_name: text("plan_name"),
    phone: text("phone").notNull(),
    ported: boolean("ported").notNull().default(false),
    max_price: money("max_price"),
    amount: money("amount"), // the listed price the claim committed
    /** What the provider said it charged (purchase or verify answer); what budgets, wallet and reports count. */
    charged_amount: money("charged_amount"),
    /** Something an operator should look at on a settled purchase, e.g. `price_mismatch: …`. */
    note: text("note"),
    /** Order of accepted answers (a sequence): the wallet balance reported by answer n includes answers ≤ n. */
    answer_seq: bigint("answer_seq", { mode: "number" }),
    state: text("state").$type<PurchaseState>().notNull().default("queued"),
    reason: text("reason"),
    not_before: at("not_before").notNull().defaultNow(),
    attempts: integer("attempts").notNull().default(0),
    max_attempts: integer("max_attempts").notNull().default(5),
    reference: text("reference"),
    provider_status: text("provider_status"),
    provider_message: text("provider_message"),
    refund_amount: money("refund_amount"),
    budget_day: date("budget_day", { mode: "string" }),
    run_id: text("run_id"),
    verify_attempts: integer("verify_attempts").notNull().default(0),
    next_verify_at: at("next_verify_at"),
    requested_by: text("requested_by"),
    /**
     * With approval rules configured, what lets a run buy this row: `run:<run id>` (its run's total needed no
     * approval) or `plan:<saved plan id>` (a saved plan covers it; bought only as that plan allows). Null: not yet
     * looked at by the approval gate.
     */
    approval: text("approval"),
    created_at: at("created_at").notNull().defaultNow(),
    updated_at: at("updated_at").notNull().defaultNow(),
    submitted_at: at("submitted_at"),
    settled_at: at("settled_at"),
  },
  (t) => [
    uniqueIndex("purchases_request_key").on(t.request_key),
    index("purchases_due").on(t.not_before, t.id).where(sql`state = 'queued'`),
    index("purchases_verify_due").on(t.next_verify_at).where(sql`state in ('submitted', 'unverified')`),
    // Every transition writes a new row version into each index (a state change is never a HOT update), so the
    // indexes that serve one part of the ledger hold only that part: the unsettled states (the wallet guard's
    // in-flight sum, the dead-run sweep, `purchases list --state in_doubt`), references once known, and
    // acceptance times once accepted.
    index("purchases_unsettled").on(t.state).where(sql`state in ('submitting', 'in_doubt', 'unverified')`),
    // One provider reference is one purchase: a transaction the provider made cannot settle two purchases.
    uniqueIndex("purchases_reference_unique").on(t.reference).where(sql`reference is not null`),
    // Settled purchases that carry no reference (a person settled them, or the provider refused them): each could
    // still own a provider transaction, so a notification or statement line near its POST is not another's proof.
    index("purchases_settled_unreferenced")
      .on(t.settled_at)
      .where(sql`reference is null and state in ('succeeded', 'failed')`),
    // Purchases are inserted in created_at order, so a block-range index (a few pages, with no entry per row
    // version) serves `purchases list --since`; a B-tree took a new entry on every transition.
    index("purchases_created").using("brin", t.created_at),
    index("purchases_submitted").on(t.submitted_at).where(sql`submitted_at is not null`),
    // The wallet guard's "answered after the last reported balance" range, and the few purchases with a note.
    index("purchases_answer_seq").on(t.answer_seq).where(sql`answer_seq is not null`),
    index("purchases_noted").on(t.id).where(sql`note is not null`),
    // The rows of one saved plan (apply, the gate's release and expiry).
    index("purchases_saved_plan").on(t.approval).where(sql`approval like 'plan:%'`),
  ],
);

/**
 * Append-only history: every transition of every purchase, with the provider's raw answer. Written only by
 * the statement that moves the purchase, with the id it moved, so `purchase_id` needs no foreign key (whose
 * check would cost a row lock and a lookup per event on the hottest path).
 */
export const purchaseEvents = pgTable(
  "purchase_events",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    purchase_id: bigint("purchase_id", { mode: "number" }).notNull(),
    at: at("at").notNull().defaultNow(),
    actor: text("actor").notNull(),
    from_state: text("from_state"),
    to_state: text("to_state").notNull(),
    reason: text("reason"),
    // json, not jsonb: the provider's answer as it came (key order and all), and no conversion on the hot path.
    response: json("response"),
  },
  // Keyed by purchase, then order: the one index a purchase's history is read by (`purchases show`).
  (t) => [primaryKey({ name: "purchase_events_pkey", columns: [t.purchase_id, t.id] })],
);

/**
 * Purchases by state and by the kind of their note (`price_mismatch`, …; '' for none), kept by statement triggers on
 * `purchases` (migration 0006) in the transaction of every insert, update, delete and truncate: what /metrics
 * reads instead of counting the ledger. Each row is one writer's share (`shard`: its database session's process id
 * modulo 8), so concurrent writers (a claim and a batch of transitions, replicas) rarely wait on one row; a total is
 * a sum over shards, and a shard's row may go below zero (a purchase counted in one shard leaves from another).
 */
export const purchaseStateCounts = pgTable(
  "purchase_state_counts",
  {
    state: text("state").notNull(),
    note_kind: text("note_kind").notNull(),
    shard: smallint("shard").notNull(),
    purchases: bigint("purchases", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "purchase_state_counts_pkey", columns: [t.state, t.note_kind, t.shard] })],
);

/**
 * The purchases of sealed days (UTC days over for an hour, src/purchases/rollups.ts) per what a report groups them by,
 * written whole per day by the SQL function `topsync_seal_rollups` (`topsync_purchase_fact` says what each column
 * holds). A day is filed by `coalesce(submitted_at, created_at)`. Only purchases that were sent carry a budget day,
 * network and job (at most 100 characters of each in the key); only failed ones a message (keyed by its md5: a
 * provider's message may be longer than an index entry can be). A sent purchase without a budget day is filed
 * under its minute instead of its day, so a report finds its day in any time zone.
 */
export const purchaseRollups = pgTable(
  "purchase_rollups",
  {
    bucket: at("bucket").notNull(),
    state: text("state").notNull(),
    budget_day: text("budget_day").notNull(), // YYYY-MM-DD, or '' for none
    network_id: text("network_id").notNull(), // '' for none
    network: text("network").notNull(), // as asked, in upper case
    job: text("job").notNull(), // the job's name, or (intake), (buy)
    message_md5: text("message_md5").notNull(), // '' for none
    message: text("message").notNull(), // failed: the provider's message with phone numbers as <phone>
    purchases: bigint("purchases", { mode: "number" }).notNull(),
    amount: numeric("amount").notNull(), // charged, or else listed
    refunded: numeric("refunded").notNull(),
  },
  (t) => [
    primaryKey({
      name: "purchase_rollups_pkey",
      columns: [t.bucket, t.state, t.budget_day, t.network_id, t.network, t.job, t.message_md5],
    }),
  ],
);

/**
 * Verification latencies (submitted → settled) of sealed days: per UTC day and 1% wide latency bucket
 * (`topsync_latency_bucket`), how many and the exact sum of their latencies in µs: the report's p50 and p95.
 */
export const purchaseLatencyRollups = pgTable(
  "purchase_latency_rollups",
  {
    bucket: at("bucket").notNull(),
    latency_bucket: integer("latency_bucket").notNull(),
    purchases: bigint("purchases", { mode: "number" }).notNull(),
    micros: bigint("micros", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ name: "purchase_latency_rollups_pkey", columns: [t.bucket, t.latency_bucket] })],
);

/**
 * What a report's states and days sections read of sealed days: purchase_rollups summed over all but the bucket,
 * state and budget day (a few rows a day instead of hundreds), written with them by `topsync_seal_rollups`.
 */
export const purchaseDayRollups = pgTable(
  "purchase_day_rollups",
  {
    bucket: at("bucket").notNull(), // as in purchase_rollups: the UTC day, or the minute of a sent purchase without a budget day
    state: text("state").notNull(),
    budget_day: text("budget_day").notNull(),
    purchases: bigint("purchases", { mode: "number" }).notNull(),
    amount: numeric("amount").notNull(),
    refunded: numeric("refunded").notNull(),
  },
  (t) => [primaryKey({ name: "purchase_day_rollups_pkey", columns: [t.bucket, t.state, t.budget_day] })],
);

/**
 * What a report's networks and jobs sections read of sealed days: the sent purchases of purchase_rollups per UTC day,
 * state, network and job, written with them by `topsync_seal_rollups`.
 */
export const purchaseGroupRollups = pgTable(
  "purchase_group_rollups",
  {
    day: at("day").notNull(),
    state: text("state").notNull(),
    network_id: text("network_id").notNull(),
    network: text("network").notNull(),
    job: text("job").notNull(),
    purchases: bigint("purchases", { mode: "number" }).notNull(),
    amount: numeric("amount").notNull(),
  },
  (t) => [
    primaryKey({
      name: "purchase_group_rollups_pkey",
      columns: [t.day, t.state, t.network_id, t.network, t.job],
    }),
  ],
);

/**
 * What a report's failures section reads of sealed days: the failed purchases of purchase_rollups per UTC day and
 * message, written with them by `topsync_seal_rollups`.
 */
export const purchaseFailureRollups = pgTable(
  "purchase_failure_rollups",
  {
    day: at("day").notNull(),
    message_md5: text("message_md5").notNull(),
    message: text("message").notNull(),
    purchases: bigint("purchases", { mode: "number" }).notNull(),
    amount: numeric("amount").notNull(),
    refunded: numeric("refunded").notNull(),
  },
  (t) => [primaryKey({ name: "purchase_failure_rollups_pkey", columns: [t.day, t.message_md5] })],
);

/**
 * purchase_latency_rollups summed per UTC calendar month (hundreds of rows a day make a year's worth slow to sum):
 * rewritten by `topsync_seal_rollups` whenever it writes a day of the month. A report reads a month from here only
 * when every day of it is sealed and none changed since.
 */
export const purchaseLatencyMonthRollups = pgTable(
  "purchase_latency_month_rollups",
  {
    month: at("month").notNull(),
    latency_bucket: integer("latency_bucket").notNull(),
    purchases: bigint("purchases", { mode: "number" }).notNull(),
    micros: bigint("micros", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ name: "purchase_latency_month_rollups_pkey", columns: [t.month, t.latency_bucket] })],
);

/**
 * Sealed days a write changed since they were sealed (a late settlement, a requeue, a prune, an edit by hand): the
 * report reads them from the purchases until `topsync_seal_rollups` seals them again. Written by the triggers on
 * `purchases` only when a changed row belongs to a day before today, which the hot path does only around midnight.
 * Each transaction marks a day with a row of its own (`marked_by`, its id): a seal takes only the marks committed
 * when it reads them, so a change still being written keeps its mark however many others marked the day before it
 * (with one mark per day, a writer that found the day marked added none, and a seal that took that older mark and
 * read the purchases before the writer committed left the day sealed without the change; migration 0013).
 */
export const purchaseRollupDirty = pgTable(
  "purchase_rollup_dirty",
  {
    day: at("day").notNull(),
    markedBy: bigint("marked_by", { mode: "bigint" })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
  },
  (table) => [primaryKey({ columns: [table.day, table.markedBy] })],
);

/**
 * The request keys of purchases `purchases prune` removed (archived or dropped): still taken, so a key is never
 * bought twice however old its purchase. Inserting a purchase skips a key found here as it skips one in `purchases`.
 */
export const prunedPurchases = pgTable(
  "pruned_purchases",
  {
    request_key: text("request_key").primaryKey(),
    purchase_id: bigint("purchase_id", { mode: "number" }).notNull(),
    state: text("state").$type<PurchaseState>().notNull(),
    pruned_at: at("pruned_at").notNull().defaultNow(),
    /** The provider's reference it carried: evidence naming it is about this purchase, never another's. */
    reference: text("reference"),
    /**
     * A purchase sent but settled without a reference (a person settled it, or the provider refused it, not knowing
     * its transaction) may still own a transaction the provider's evidence names: its phone, amount (charged, or
     * else listed), plan and last POST are kept, so it stays a rival of an in_doubt purchase that evidence could
     * otherwise be taken for (proof-match.ts; migration 0017). Null for every other purchase.
     */
    phone: text("phone"),
    amount: money("amount"),
    plan_id: text("plan_id"),
    plan_name: text("plan_name"),
    posted_at: at("posted_at"),
  },
  (t) => [
    index("pruned_purchases_id").on(t.purchase_id),
    index("pruned_purchases_reference").on(t.reference).where(sql`reference is not null`),
    index("pruned_purchases_posted").on(t.posted_at).where(sql`posted_at is not null`),
  ],
);

/**
 * The references of purchases' earlier attempts: a person requeued a purchase the provider had failed (or that was
 * rejected with a reference), and its new attempt is another transaction. The earlier transaction stays that
 * purchase's: evidence naming it is about the attempt that ended as `state`, never about another purchase, and
 * settles nothing of the new attempt. The purchase itself no longer carries it (it would otherwise pass for the new
 * attempt's when a person settles that one without naming a reference).
 */
export const earlierReferences = pgTable(
  "earlier_references",
  {
    reference: text("reference").primaryKey(),
    purchase_id: bigint("purchase_id", { mode: "number" }).notNull(),
    /** How that attempt ended: failed or rejected. */
    state: text("state").$type<PurchaseState>().notNull(),
    requeued_at: at("requeued_at").notNull().defaultNow(),
    /** What that attempt was charged, or else listed at; null when requeued before this was kept (migration 0019). */
    amount: money("amount"),
    /** The budget day that attempt was claimed on, which a charge for it counts against; null as `amount`. */
    budget_day: date("budget_day", { mode: "string" }),
    /**
     * When the provider's delivery of that attempt was flagged for a person and its charge counted (once): after the
     * requeue (`earlier_attempt_delivered`), or before it, while it was the purchase's own (`delivered_after_failure`).
     */
    delivered_at: at("delivered_at"),
  },
  (t) => [index("earlier_references_purchase").on(t.purchase_id)],
);

/** The intake table other systems insert into; the worker moves each row into the ledger once. */
export const purchaseRequests = pgTable(
  "purchase_requests",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    request_key: text("request_key").notNull(),
    network: text("network").notNull(),
    plan_id: text("plan_id"),
    plan_size: text("plan_size"),
    plan_type: text("plan_type"),
    plan_name_contains: text("plan_name_contains"),
    phone: text("phone").notNull(),
    ported: boolean("ported").notNull().default(false),
    not_before: at("not_before"),
    max_price: money("max_price"),
    requested_by: text("requested_by"),
    created_at: at("created_at").notNull().defaultNow(),
    processed_at: at("processed_at"),
    purchase_id: bigint("purchase_id", { mode: "number" }),
    error: text("error"),
  },
  (t) => [
    uniqueIndex("purchase_requests_request_key").on(t.request_key),
    index("purchase_requests_pending").on(t.id).where(sql`processed_at is null`),
  ],
);

/** Money committed per budget day: kept in step with the ledger so a guard is one row, not a scan. */
export const budgetDays = pgTable("budget_days", {
  day: date("day", { mode: "string" }).primaryKey(),
  committed: money("committed").notNull().default("0"),
});

/** Small named values kept between runs: the last known wallet balance, the last seen plan prices. */
export const kv = pgTable("kv", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updated_at: at("updated_at").notNull().defaultNow(),
});

/** One row per schedule fire, claimed once across replicas. */
export const scheduleFires = pgTable(
  "schedule_fires",
  {
    fire_key: text("fire_key").primaryKey(),
    job_name: text("job_name").notNull(),
    fire_time: at("fire_time").notNull(),
    status: text("status").notNull(), // running | done | skipped | failed
    reason: text("reason"),
    claimed_by: text("claimed_by"),
    created_at: at("created_at").notNull().defaultNow(),
    finished_at: at("finished_at"),
    /** What the fire's own run did: bought, rejected (nothing bought, some refused), held (for approval), queued. */
    outcome: text("outcome"),
  },
  (t) => [
    index("schedule_fires_job").on(t.job_name, t.fire_time),
    // A report's missed fires per job: the few skipped among a year of fires, without reading the others.
    index("schedule_fires_skipped").on(t.job_name, t.fire_time).where(sql`status = 'skipped'`),
  ],
);

/** Schedule fires by job and status, kept by statement triggers on `schedule_fires` (migration 0006): /metrics. */
export const scheduleFireCounts = pgTable(
  "schedule_fire_counts",
  {
    job_name: text("job_name").notNull(),
    status: text("status").notNull(),
    fires: bigint("fires", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "schedule_fire_counts_pkey", columns: [t.job_name, t.status] })],
);

/**
 * Purchase runs alive or recently alive: a run beats its heartbeat while it holds purchases in `submitting`.
 * The sweep calls a run dead only when its liveness lock is free and its heartbeat is older than a grace period.
 */
export const purchaseRuns = pgTable("purchase_runs", {
  run_id: text("run_id").primaryKey(),
  actor: text("actor").notNull(),
  started_at: at("started_at").notNull().defaultNow(),
  heartbeat_at: at("heartbeat_at").notNull().defaultNow(),
});

/** When each job first appeared in config (no catch-up fire from before it existed), and its state. */
export const jobs = pgTable("jobs", {
  name: text("name").primaryKey(),
  first_seen: at("first_seen").notNull().defaultNow(),
  /** active | suspended (by a person, or `suspended: true` in config) | paused (by pause_on). */
  state: text("state").notNull().default("active"),
  /** Why it is suspended or paused: the person's reason, or the cause and the purchases that caused it. */
  note: text("note"),
  state_changed_at: at("state_changed_at"),
  state_changed_by: text("state_changed_by"),
});

export const JOB_STATES = ["active", "suspended", "paused"] as const;

/** Every change of a job's state: who (`cli:<user>`, `console:<user>`, `config`, a run), when, why. */
export const jobEvents = pgTable(
  "job_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    job_name: text("job_name").notNull(),
    at: at("at").notNull().defaultNow(),
    actor: text("actor").notNull(),
    from_state: text("from_state"),
    to_state: text("to_state").notNull(),
    reason: text("reason"),
  },
  (t) => [index("job_events_job").on(t.job_name, t.at)],
);

/** Websites topsync owns: created by it, or adopted with `websites import`. Only these may be deleted. */
export const websiteOwnership = pgTable("website_ownership", {
  domain: text("domain").primaryKey(), // normalised
  website_id: bigint("website_id", { mode: "number" }),
  origin: text("origin").notNull(), // created | imported
  /** Keyed hashes of the last applied write-only values (password, exclude_params). */
  applied_secrets: jsonb("applied_secrets"),
  created_at: at("created_at").notNull().defaultNow(),
  updated_at: at("updated_at").notNull().defaultNow(),
});

/** One row per reconcile pass, with its counts and per-website errors. */
export const websiteRuns = pgTable(
  "website_runs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    started_at: at("started_at").notNull().defaultNow(),
    finished_at: at("finished_at"),
    mode: text("mode").notNull(), // plan | apply | observe
    status: text("status").notNull(), // running | ok | partial | failed
    created: integer("created").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    deleted: integer("deleted").notNull().default(0),
    unchanged: integer("unchanged").notNull().default(0),
    unmanaged: integer("unmanaged").notNull().default(0),
    conflicts: integer("conflicts").notNull().default(0),
    errors: jsonb("errors"),
    summary: jsonb("summary"),
  },
  (t) => [
    // By start; with what a report totals per status, which a year of passes (50,000) reads from the index alone.
    index("website_runs_started").on(t.started_at, t.status, t.created, t.updated, t.deleted),
    // /metrics' last successful pass: the newest entry, not a scan of every pass.
    index("website_runs_ok_finished").on(t.finished_at).where(sql`status = 'ok'`),
  ],
);

export const NOTIFICATION_OUTCOMES = ["received", "matched", "settled", "unmatched", "rejected"] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

/**
 * Provider notifications (webhook deliveries) the receiver accepted: the body as it came (secrets redacted,
 * capped), deduplicated on its sha256, and what became of it. A notification is a hint; a verify answer is
 * what settles a purchase.
 */
export const providerNotifications = pgTable(
  "provider_notifications",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    received_at: at("received_at").notNull().defaultNow(),
    body_sha256: text("body_sha256").notNull(),
    source: text("source"),
    reference: text("reference"),
    status: text("status"),
    phone: text("phone"),
    amount: money("amount"),
    plan: text("plan"),
    notified_at: at("notified_at"),
    body: text("body").notNull(),
    outcome: text("outcome").$type<NotificationOutcome>().notNull().default("received"),
    reason: text("reason"),
    purchase_id: bigint("purchase_id", { mode: "number" }),
    processed_at: at("processed_at"),
  },
  (t) => [
    uniqueIndex("provider_notifications_body").on(t.body_sha256),
    index("provider_notifications_reference").on(t.reference),
    index("provider_notifications_purchase").on(t.purchase_id).where(sql`purchase_id is not null`),
  ],
);

export const SAVED_PLAN_STATUSES = [
  "pending_approval",
  "approved",
  "applying",
  "applied",
  "rejected",
  "expired",
  /** A plan the approval gate held whose every purchase a person cancelled: nothing of it is left. */
  "cancelled",
] as const;
export type SavedPlanStatus = (typeof SAVED_PLAN_STATUSES)[number];

/** How a saved plan's author is known (`saved_plans.author_proof`). */
export const AUTHOR_PROOFS = ["account", "key", "claimed"] as const;
export type AuthorProof = (typeof AUTHOR_PROOFS)[number];

/**
 * Saved plans (`purchases plan --save`, `websites plan --save`) and the plans the approval gate registers for the
 * runs it holds: the plan as saved, the SHA-256 of its canonical items (`digest`), and where it stands. A plan file
 * whose items do not hash to `digest`, or whose id is not here, is refused.
 */
export const savedPlans = pgTable(
  "saved_plans",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(), // purchases | websites
    origin: text("origin").notNull(), // saved (a plan file) | held (the approval gate held a run)
    author: text("author").notNull(),
    /**
     * How the author's name is known: `account` (the operating system's account that saved or held it), `key` (an
     * approver's signature, `author_signature`, over the plan's id, digest and name) or `claimed` (`--as` named
     * someone else, unsigned: such a plan needs one approval more, so that enough approvers other than whoever
     * wrote it approve it).
     */
    author_proof: text("author_proof").$type<AuthorProof>().notNull().default("account"),
    author_signature: text("author_signature"),
    status: text("status").$type<SavedPlanStatus>().notNull(),
    digest: text("digest").notNull(),
    config_digest: text("config_digest"),
    /** The plan as saved (its file without the approvals). */
    document: json("document").notNull(),
    total: money("total").notNull(),
    items: integer("items").notNull(),
    approvals_required: integer("approvals_required").notNull(),
    /** What an approved plan not yet applied holds back from the daily budget; 0 once applied or ended. */
    reserved: money("reserved").notNull().default("0"),
    created_at: at("created_at").notNull().defaultNow(),
    expires_at: at("expires_at").notNull(),
    approved_at: at("approved_at"),
    applied_at: at("applied_at"),
    /** When it was rejected or expired, and why. */
    ended_at: at("ended_at"),
    reason: text("reason"),
  },
  (t) => [
    index("saved_plans_created").on(t.created_at),
    index("saved_plans_open")
      .on(t.status, t.approved_at)
      .where(sql`status in ('pending_approval', 'approved', 'applying')`),
  ],
);

/** Signed decisions on saved plans: one per approver and plan, an ed25519 signature over the plan's digest. */
export const planApprovals = pgTable(
  "plan_approvals",
  {
    plan_id: text("plan_id").notNull(),
    approver: text("approver").notNull(),
    decision: text("decision").notNull(), // approve | reject
    digest: text("digest").notNull(),
    signature: text("signature").notNull(),
    reason: text("reason"),
    at: at("at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "plan_approvals_pkey", columns: [t.plan_id, t.approver] })],
);
/**
 * The notification outbox: one row per event an operator is told of (an in_doubt purchase, a budget threshold, the
 * wallet below its floor, …), written by the statement or transaction of the ledger change that causes it, so a
 * change rolled back tells no one. The key (trigger, subject, episode) is one message's worth of event: writing it
 * again (a replica, a retry, a restart) adds nothing. `facts` hold what a message says, phones masked and no
 * secret. The daemon groups pending rows of one trigger into messages (`notification_deliveries`).
 */
export const notificationOutbox = pgTable(
  "notification_outbox",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    trigger: text("trigger").notNull(),
    subject: text("subject").notNull(),
    episode: text("episode").notNull(),
    /** open (the episode starts), repeat (still open after `repeat`), resolved (it ended). */
    kind: text("kind").notNull().default("open"),
    facts: jsonb("facts").notNull(),
    /** pending (not yet in a message), routed (in one), dropped (no rule sends it). */
    status: text("status").notNull().default("pending"),
    created_at: at("created_at").notNull().defaultNow(),
    routed_at: at("routed_at"),
  },
  (t) => [
    uniqueIndex("notification_outbox_key").on(t.trigger, t.subject, t.episode),
    index("notification_outbox_pending").on(t.trigger, t.id).where(sql`status = 'pending'`),
    index("notification_outbox_subject").on(t.subject, t.trigger),
    // The episodes that may be repeated: what the notifier's look for open episodes reads, not the whole outbox.
    index("notification_outbox_open")
      .on(t.created_at)
      .where(
        sql`kind = 'open' and status = 'routed' and trigger in ('in_doubt', 'unverified', 'verify_mismatch', 'wallet_low')`,
      ),
  ],
);

/**
 * One message to one channel: the events it groups, the message as a value, and its delivery. A deliverer takes a
 * row for a while (`lease_until`, claimed with SKIP LOCKED), so one replica sends it; a row whose deliverer died
 * is taken again once its lease is over.
 */
export const notificationDeliveries = pgTable(
  "notification_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    channel: text("channel").notNull(),
    trigger: text("trigger").notNull(),
    kind: text("kind").notNull(),
    event_ids: bigint("event_ids", { mode: "number" }).array().notNull(),
    message: jsonb("message").notNull(),
    /** pending, sending (leased), sent, failed (gave up after give_up_after). */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    next_attempt_at: at("next_attempt_at").notNull().defaultNow(),
    lease_until: at("lease_until"),
    claimed_by: text("claimed_by"),
    last_error: text("last_error"),
    /** What the channel answered to the last attempt (status and a capped body, secrets redacted). */
    answer: text("answer"),
    /** When the oldest event of the message was written: delivery latency counts from here. */
    first_event_at: at("first_event_at").notNull(),
    created_at: at("created_at").notNull().defaultNow(),
    sent_at: at("sent_at"),
  },
  (t) => [
    index("notification_deliveries_due").on(t.channel, t.id).where(sql`status in ('pending', 'sending')`),
    index("notification_deliveries_created").on(t.created_at),
  ],
);

/** Each channel's pace, shared by every replica: no send before `next_send_at` (its pace, or a 429's Retry-After). */
export const notificationChannels = pgTable("notification_channels", {
  name: text("name").primaryKey(),
  next_send_at: at("next_send_at").notNull().defaultNow(),
});

/**
 * The console's sessions, in the ledger so every replica behind a load balancer knows them and a logout ends one
 * everywhere. Only the SHA-256 of the session's cookie is kept: a copy of this table logs no one in.
 */
export const consoleSessions = pgTable(
  "console_sessions",
  {
    token_hash: text("token_hash").primaryKey(),
    user_name: text("user_name").notNull(),
    /** The token every form of this session carries (CSRF): compared with what a POST sends. */
    csrf: text("csrf").notNull(),
    /**
     * SHA-256 of the user's password_hash at login: a session is only good while the config still gives the user
     * that hash, so changing a password ends the sessions made with the old one (on every replica).
     */
    credential: text("credential"),
    created_at: at("created_at").notNull().defaultNow(),
    expires_at: at("expires_at").notNull(),
  },
  (t) => [index("console_sessions_expires").on(t.expires_at)],
);

/**
 * Each console form submitted, by the one-time token drawn into it: a second submit of the same form (a double
 * click, a reload) finds its token here and does nothing.
 */
export const consoleFormUses = pgTable(
  "console_form_uses",
  {
    form_token: text("form_token").primaryKey(),
    user_name: text("user_name").notNull(),
    action: text("action").notNull(),
    subject: text("subject").notNull(),
    outcome: text("outcome"),
    at: at("at").notNull().defaultNow(),
  },
  (t) => [index("console_form_uses_at").on(t.at)],
);
