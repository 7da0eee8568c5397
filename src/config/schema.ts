// The one schema of config.yaml: every section, its defaults and its cross-field rules. Types flow from it.
// Objects are strict (unknown keys are typos); messages say what was expected without echoing secrets.
import * as z from "zod";
import { parseSizeMb } from "../reseller/size.js";
import { approvalsDefaults, buildApprovalsSchema } from "./approvals.js";
import { buildConsoleSchema, checkConsoleOrigin, consoleDefaults } from "./console.js";
import { domainProblem, normaliseDomain } from "./domain.js";
import {
  apiKey,
  boolean,
  byteSize,
  cronExpression,
  duration,
  durationMessage,
  evenWithFieldIssues,
  flag,
  httpUrl,
  integer,
  ipList,
  isoInstant,
  MAX_SPAN_MS,
  money,
  optionalSection,
  positiveNumber,
  show,
  text,
  timeZone,
  tokenList,
} from "./fields.js";
import { buildNotificationsSchema, notificationsDefaults } from "./notifications.js";
import { PRIVACY_NAMES, type Privacy, privacyCode } from "./privacy.js";

export const DEFAULT_TIMEZONE = "Africa/Lagos";

// ---------------------------------------------------------------------------------------------- services

const retrySchema = z
  .strictObject({
    max_attempts: integer(1, 100).prefault(5),
    base_delay: duration().prefault("200ms"),
    max_delay: duration().prefault("30s"),
  })
  .superRefine((retry, ctx) => {
    if (retry.max_delay < retry.base_delay) {
      ctx.addIssue({ code: "custom", path: ["max_delay"], message: "must not be shorter than base_delay" });
    }
  });

const timeoutPartsSchema = z.strictObject({
  connect: duration({ min: 1 }).prefault("5s"),
  headers: duration({ min: 1 }).prefault("15s"),
  body: duration({ min: 1 }).prefault("15s"),
  total: duration({ min: 1 }).prefault("60s").meta({
    description: "A whole call, headers and body, is abandoned past this (a purchase becomes in_doubt).",
  }),
});

const DEFAULT_TOTAL_MS = 60_000;

/**
 * One duration for every phase, or each phase on its own; always output per phase in milliseconds. A single
 * duration leaves the whole-call deadline at its default (or at that duration, when it is longer).
 */
const timeoutSchema = z
  .union(
    [
      duration({ min: 1 }).transform((ms) => ({
        connect: ms,
        headers: ms,
        body: ms,
        total: Math.max(ms, DEFAULT_TOTAL_MS),
      })),
      timeoutPartsSchema,
    ],
    {
      error: (iss) => {
        if (iss.input === undefined) return undefined;
        if (typeof iss.input === "string" || typeof iss.input === "number") return durationMessage(iss.input);
        return `expected a duration like "15s" or a mapping of connect, headers, body and total, got ${show(iss.input)}`;
      },
    },
  )
  .prefault({});

function serviceSchema(defaults: { concurrency: number; rate_limit: number; burst?: number }) {
  const burst = integer(1, 100_000).meta({
    description:
      "Requests that may go at once after a quiet spell; a tenth of rate_limit (at least 1) when absent.",
  });
  return z.strictObject({
    base_url: httpUrl(),
    api_key: apiKey(),
    timeout: timeoutSchema,
    concurrency: integer(1, 256).prefault(defaults.concurrency),
    rate_limit: positiveNumber().prefault(defaults.rate_limit).meta({ description: "Requests per second." }),
    burst: defaults.burst === undefined ? burst.optional() : burst.prefault(defaults.burst),
    retry: retrySchema.prefault({}),
    max_body: byteSize(1024, 1024 ** 3)
      .prefault("1MiB")
      .meta({ description: "The most bytes of one answer that are read; a larger answer is unreadable." }),
    ca_file: text().optional().meta({
      description:
        "PEM file of root certificates this service's HTTPS is checked against besides Node.js's own (a service or proxy whose certificate a private authority signed), relative to the config file; read when the first call goes. Unlike NODE_EXTRA_CA_CERTS, which Node.js 20 reads at every start of every command, it costs only the commands that call this service.",
    }),
  });
}

// ---------------------------------------------------------------------------------------------- storage

const databaseSchema = z.strictObject({
  url: z
    .string()
    .trim()
    .refine((url) => url === "" || /^postgres(?:ql)?:\/\//.test(url), {
      error:
        'expected a PostgreSQL URL like "postgres://user:password@host:5432/topsync", or "" for the embedded database',
    })
    .prefault("")
    .meta({ description: "PostgreSQL URL; empty for the embedded PGlite database." }),
  pglite_dir: text()
    .prefault("./.topsync/pglite")
    .meta({ description: "Directory of the embedded database, relative to the working directory." }),
});

// ---------------------------------------------------------------------------------------------- money

const budgetSchema = z.strictObject({
  daily_limit: money()
    .optional()
    .meta({ description: "Most spent per day (in `timezone`); no limit when absent." }),
  per_run_limit: money().optional().meta({ description: "Most spent by one run; no limit when absent." }),
  min_wallet_balance: money().prefault("0.00"),
});

const verificationSchema = z.strictObject({
  initial_delay: duration().prefault("2s").meta({
    description: "The earliest first read after a purchase's answer (and the first step of the backoff).",
  }),
  timeout: duration({ min: 1 }).prefault("10m"),
  learn_settle: boolean().prefault(true).meta({
    description:
      "Wait before the first read as long as the provider has recently taken to settle a purchase of its network (at least initial_delay); false: read first after initial_delay.",
  }),
  notification_wait: duration().prefault("30s").meta({
    description:
      "With webhooks enabled, how long after a purchase's answer the daemon waits for the provider's notification before it reads the purchase itself.",
  }),
  max_interval: duration({ min: 1 }).prefault("30s"),
  horizon: duration({ max: MAX_SPAN_MS })
    .prefault("72h")
    .meta({ description: "How long later runs keep re-verifying `unverified` purchases." }),
});

// ---------------------------------------------------------------------------------------------- purchases

const JOB_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const PHONE_SEPARATORS = /[\s().-]/g;

/** The shape a recipient's phone must have (after trimming); the numbering plan is checked when a fire is written. */
function isPhoneText(phone: string): boolean {
  return /^\+?\d{7,15}$/.test(phone.replace(PHONE_SEPARATORS, ""));
}

const phoneSchema = z.string().trim().refine(isPhoneText, {
  error: 'expected a phone number like "08031234567" or "+2348031234567"',
});

const recipientSchema = z
  .union([phoneSchema, z.strictObject({ phone: phoneSchema, ported: boolean().prefault(false) })])
  .transform((recipient) =>
    typeof recipient === "string" ? { phone: recipient, ported: false } : recipient,
  );

/**
 * A recipient written as a plain phone string, as `recipientSchema` reads it: the recipient, or undefined when the
 * value is anything else or a phone the schema refuses (src/config/load.ts reads long lists of them with this).
 */
export function plainRecipient(value: unknown): { phone: string; ported: boolean } | undefined {
  if (typeof value !== "string") return undefined;
  const phone = value.trim();
  return isPhoneText(phone) ? { phone, ported: false } : undefined;
}

const SELECTOR_KEYS = ["size", "type", "name_contains"] as const;

/** `{network, plan_id}` or a selector `{network, size, type?, name_contains?}` resolved at run time. */
const planSchema = z
  .strictObject({
    network: text()
      .optional()
      .meta({
        description:
          "Network id, code or name (MTN, GLO, AIRTEL, 9MOBILE). May be left out with plan_id: the network " +
          "whose live plans list that id is used (an id listed under two networks is refused).",
      }),
    plan_id: text().optional(),
    size: text().optional().meta({ description: 'Data size, e.g. "500MB", "1GB", "1.5GB".' }),
    type: text().optional().meta({ description: 'Plan type, e.g. "CORPORATE GIFTING".' }),
    name_contains: text().optional(),
  })
  .superRefine((plan, ctx) => {
    const selector = SELECTOR_KEYS.filter((key) => plan[key] !== undefined);
    if (plan.plan_id !== undefined && selector.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: [selector[0]!],
        message: "give either plan_id or a selector (size, type, name_contains), not both",
      });
    } else if (plan.plan_id === undefined && plan.network === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["network"],
        message:
          "is required with a selector (size, type, name_contains); only a plan_id finds its own network",
      });
    }
    if (plan.plan_id === undefined && plan.size === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "needs plan_id, or a selector with size (and optionally type and name_contains)",
      });
    }
    if (typeof plan.size === "string" && parseSizeMb(plan.size) === null) {
      ctx.addIssue({
        code: "custom",
        path: ["size"],
        message: `expected a data size like "500MB", "1GB" or "1.5GB", got ${show(plan.size)}`,
      });
    }
  }, evenWithFieldIssues)
  .transform((plan) =>
    plan.plan_id !== undefined
      ? // An empty network: the network whose live plans list plan_id (src/purchases/resolve.ts).
        { kind: "id" as const, network: plan.network ?? "", plan_id: plan.plan_id }
      : {
          kind: "selector" as const,
          network: plan.network ?? "",
          size: plan.size!,
          size_mb: parseSizeMb(plan.size!)!,
          type: plan.type,
          name_contains: plan.name_contains,
        },
  );

/** Recipients a job may list inline; more belong in a recipients_file, which is streamed, not held whole. */
export const MAX_INLINE_RECIPIENTS = 50_000;

/** When a job pauses by itself: failures that say the provider refuses everyone, never one bad phone or plan. */
const pauseOnSchema = z.strictObject({
  consecutive_unknown: integer(1, 10_000)
    .optional()
    .meta({ description: "Pause after this many purchases in a row whose outcome is unknown (in_doubt)." }),
  auth_failure: boolean()
    .prefault(false)
    .meta({ description: "Pause when the reseller answers 401/403 (the key is refused)." }),
  below_wallet_floor: boolean()
    .prefault(false)
    .meta({ description: "Pause, leaving the rows queued, when the wallet floor refuses a purchase." }),
  provider_down: duration({ min: 1, max: MAX_SPAN_MS })
    .optional()
    .meta({ description: "Pause when the reseller has given no answer at all for this long." }),
});

const purchaseJobSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .regex(JOB_NAME, {
        error: (iss) =>
          iss.input === undefined
            ? undefined
            : `job name ${show(iss.input)} must be lower case letters, digits, "-", "_" or ".", starting with a letter or digit`,
      }),
    schedule: cronExpression().optional(),
    at: isoInstant().optional(),
    timezone: timeZone()
      .optional()
      .meta({ description: "Time zone of `schedule`; the global `timezone` when absent." }),
    plan: planSchema,
    max_price: money().optional().meta({ description: "Refuse to buy when the live price is higher." }),
    recipients: z
      .array(recipientSchema)
      .max(MAX_INLINE_RECIPIENTS, {
        error: (iss) =>
          `has ${Array.isArray(iss.input) ? iss.input.length : "too many"} recipients; at most ` +
          `${MAX_INLINE_RECIPIENTS.toLocaleString("en")} may be written in the config: put them in a ` +
          "recipients_file (a CSV with a phone column), which is streamed",
      })
      .prefault([]),
    recipients_file: text()
      .optional()
      .meta({ description: "CSV with a `phone` column (and optional `ported`), relative to this file." }),
    catch_up: duration({ max: MAX_SPAN_MS }).prefault("6h"),
    max_attempts: integer(1, 100).optional().meta({ description: "Overrides reseller.retry.max_attempts." }),
    enabled: boolean().prefault(true),
    suspended: boolean().optional().meta({
      description:
        "Start the job suspended: its fires are skipped (counted as missed) until the config says otherwise or `topsync jobs resume`.",
    }),
    pause_on: pauseOnSchema.optional().meta({
      description:
        "Pause the job (its rows stay queued) when the provider fails everyone, instead of rejecting a fire row by row.",
    }),
    backfill_max: duration({ min: 1, max: MAX_SPAN_MS }).optional().meta({
      description: "The widest window `topsync jobs backfill` takes without --allow-wide (default 31d).",
    }),
  })
  .superRefine((job, ctx) => {
    if (job.schedule !== undefined && job.at !== undefined) {
      ctx.addIssue({ code: "custom", path: ["at"], message: "give either schedule or at, not both" });
    }
    // A recipients value of the wrong type has its own issue; only a missing or empty list is this one.
    const hasRecipients = Array.isArray(job.recipients)
      ? job.recipients.length > 0
      : job.recipients !== undefined;
    if (!hasRecipients && job.recipients_file === undefined) {
      ctx.addIssue({ code: "custom", message: "a job needs recipients, a recipients_file, or both" });
    }
  }, evenWithFieldIssues);

// ---------------------------------------------------------------------------------------------- intake, server, log

const intakeSchema = z.strictObject({
  enabled: boolean().prefault(true),
  poll_interval: duration({ min: 1 }).prefault("30s"),
  batch_size: integer(1, 100_000).prefault(500),
});

/** Node.js timers hold at most this; the server's timeouts stay well below it. */
const MAX_SERVER_TIMEOUT_MS = 3_600_000;
const serverTimeout = (fallback: string) =>
  duration({ min: 1 })
    .refine((ms) => ms <= MAX_SERVER_TIMEOUT_MS, { message: "must be at most 1h" })
    .prefault(fallback);

const serverSchema = z.strictObject({
  host: text().prefault("0.0.0.0"),
  port: integer(1, 65_535).prefault(9464),
  shutdown_grace: duration().prefault("30s"),
  /** Connections open at once; past it a new connection is closed at once (probes included). */
  max_connections: integer(1, 100_000).prefault(512),
  /**
   * Connections open at once from one source address (an IPv6 /64); past it that source's new connection is closed
   * at once, so one client cannot take every connection from the probes, scrapes and deliveries of others. Behind a
   * proxy every connection comes from the proxy: keep it above what the proxy opens.
   */
  max_connections_per_source: integer(1, 100_000).prefault(128),
  /** A request's line and headers must arrive within this, or the connection is closed (408). */
  headers_timeout: serverTimeout("10s"),
  /**
   * When set, /metrics answers only a request carrying `Authorization: Bearer <this>` (401 otherwise): the wallet,
   * budgets and job names are not for whoever reaches the port. /healthz and /readyz stay open for probes.
   */
  metrics_token: apiKey()
    .refine((token) => token.length >= 16, { error: "must be at least 16 characters (a long random token)" })
    .optional(),
});

const SIGNATURE_ALGORITHMS = ["sha256", "sha512"] as const;

/** Whether a receiver at `path` would answer in place of the port's own /healthz, /readyz or /metrics. */
function shadowsServedPath(path: string): boolean {
  const base = path.replace(/\/+$/, "");
  return (
    base === "" ||
    ["/healthz", "/readyz", "/metrics"].some((served) => base === served || base.startsWith(`${served}/`))
  );
}

/** The provider-notification receiver on the daemon's HTTP server (off unless enabled; see README "Webhooks"). */
const webhooksSchema = z
  .strictObject({
    enabled: boolean().prefault(false),
    path: text()
      .regex(/^\/[\x21-\x7e]*$/, "must start with / and hold no spaces")
      // The receiver answers its path before the port's own: /healthz there failed every probe (405), and / with
      // the token in the path took every path of the port.
      .refine((path) => !shadowsServedPath(path), {
        message: "must be a path of its own (not /, /healthz, /readyz or /metrics)",
      })
      .prefault("/webhooks/reseller"),
    auth: z.enum(["hmac", "token"]).prefault("hmac"),
    /** The shared HMAC key or the token; required when enabled. */
    secret: apiKey().optional(),
    signature_header: text().prefault("X-Signature"),
    algorithm: z.enum(SIGNATURE_ALGORITHMS).prefault("sha256"),
    encoding: z.enum(["hex", "base64"]).prefault("hex"),
    /** When set, the delivery's time (Unix seconds) is in this header and signed as `<timestamp>.<body>`. */
    timestamp_header: text().optional(),
    tolerance: duration({ min: 1, max: MAX_SPAN_MS }).prefault("5m"),
    token_in: z.enum(["header", "path"]).prefault("header"),
    token_header: text().prefault("X-Webhook-Token"),
    /** Source addresses or CIDR ranges allowed to deliver; empty: any. */
    allow_from: ipList().prefault([]),
    /** How far a notification's date may be from an in_doubt purchase's POST for it to be a candidate. */
    match_window: duration({ min: 1, max: MAX_SPAN_MS }).prefault("30m"),
    /** A delivery's body must arrive within this after its headers, or it is refused (408). */
    body_timeout: serverTimeout("10s"),
    /** Deliveries in progress at once from one source address; more are refused (429) before their body. */
    max_per_source: integer(1, 10_000).prefault(64),
  })
  .superRefine((hooks, ctx) => {
    if (hooks.enabled && hooks.secret === undefined)
      ctx.addIssue({ code: "custom", path: ["secret"], message: "webhooks need a secret when enabled" });
  }, evenWithFieldIssues);

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

/** How a provider's transaction export writes dates: ISO 8601, or day first as Nigerian platforms write them. */
export const STATEMENT_DATE_FORMATS = ["ISO", "DD/MM/YYYY"] as const;

/** How the provider's statements (`purchases reconcile --statement`) are written; the command's flags override. */
const statementsSchema = z.strictObject({
  date_format: z.enum(STATEMENT_DATE_FORMATS).prefault("ISO").meta({
    description:
      "ISO (2026-11-05, 2026-11-05T14:03:00+01:00) or DD/MM/YYYY (05/11/2026 14:03); a time without a zone is read in `timezone`.",
  }),
  decimal_comma: boolean()
    .prefault(false)
    .meta({ description: "Amounts written 1.405,00: a decimal comma, thousands separated by points." }),
});

const logSchema = z.strictObject({ level: z.enum(LOG_LEVELS).prefault("info") });

// ---------------------------------------------------------------------------------------------- websites

const privacySchema = z
  .union([z.enum(PRIVACY_NAMES), z.literal([0, 1, 2]), z.enum(["0", "1", "2"])], {
    error: (iss) =>
      iss.input === undefined
        ? undefined
        : `unknown privacy ${show(iss.input)} (use public, private or password, or 0, 1, 2)`,
  })
  .transform((value) => privacyCode(value)!);

const passwordSchema = z
  .string()
  .min(1)
  .max(128)
  .meta({ description: "1–128 characters; used when privacy is password." });

/** The settings an item may declare and `websites.defaults` may supply. */
const websiteSettings = {
  privacy: privacySchema.optional(),
  password: passwordSchema.optional(),
  email: flag().optional(),
  exclude_bots: flag().optional(),
  exclude_params: tokenList().optional(),
  exclude_ips: ipList().optional(),
};

const domainSchema = z
  .string()
  .superRefine((domain, ctx) => {
    const problem = domainProblem(normaliseDomain(domain));
    if (problem === undefined) return;
    ctx.addIssue({
      code: "custom",
      input: domain,
      message: `${show(domain)} is not a valid domain: it ${problem}`,
    });
  })
  .meta({ description: "The website's domain; scheme, www. and any path are stripped." });

const websiteItemSchema = z.strictObject({ domain: domainSchema, ...websiteSettings });

/** What the analytics service uses on create when a setting is not sent. */
const SERVICE_DEFAULTS = { privacy: 1 as Privacy, email: 0 as 0 | 1, exclude_bots: 1 as 0 | 1 };

type WebsiteSettings = z.output<z.ZodObject<typeof websiteSettings>>;
type DeclaredItem = z.output<typeof websiteItemSchema>;

/** An item's full desired state: its own settings, then `websites.defaults`, then the service's defaults. */
function resolveWebsite(item: DeclaredItem, defaults: WebsiteSettings) {
  const privacy = item.privacy ?? defaults.privacy ?? SERVICE_DEFAULTS.privacy;
  return {
    domain: normaliseDomain(item.domain),
    declared_domain: item.domain,
    privacy,
    password: privacy === 2 ? (item.password ?? defaults.password) : undefined,
    email: item.email ?? defaults.email ?? SERVICE_DEFAULTS.email,
    exclude_bots: item.exclude_bots ?? defaults.exclude_bots ?? SERVICE_DEFAULTS.exclude_bots,
    exclude_params: item.exclude_params ?? defaults.exclude_params ?? [],
    exclude_ips: item.exclude_ips ?? defaults.exclude_ips ?? [],
  };
}

const PASSWORD_ONLY_WITH_PASSWORD_PRIVACY = "a password applies only when privacy is password (2)";

function checkWebsitePasswords(
  websites: { defaults?: Partial<WebsiteSettings>; items?: unknown },
  ctx: z.RefinementCtx,
): void {
  const defaults = websites.defaults ?? {};
  if (defaults.password !== undefined && defaults.privacy !== undefined && defaults.privacy !== 2) {
    ctx.addIssue({
      code: "custom",
      path: ["defaults", "password"],
      message: PASSWORD_ONLY_WITH_PASSWORD_PRIVACY,
    });
  }
  if (!Array.isArray(websites.items)) return;
  websites.items.forEach((item: Partial<DeclaredItem>, index) => {
    const privacy = item.privacy ?? defaults.privacy ?? SERVICE_DEFAULTS.privacy;
    if (typeof privacy !== "number") return;
    if (item.password !== undefined && privacy !== 2) {
      ctx.addIssue({
        code: "custom",
        path: ["items", index, "password"],
        message: PASSWORD_ONLY_WITH_PASSWORD_PRIVACY,
      });
    } else if (privacy === 2 && item.password === undefined && defaults.password === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["items", index, "password"],
        message: "is required when privacy is password (2); set it here or under websites.defaults",
      });
    }
  });
}

const websitesSchema = z
  .strictObject({
    mode: z
      .enum(["apply", "observe"])
      .prefault("apply")
      .meta({ description: "observe: plan and report drift every pass without applying." }),
    schedule: cronExpression().optional(),
    prune: boolean()
      .prefault(false)
      .meta({ description: "Delete owned websites that are no longer declared." }),
    max_deletes: integer(0, 100_000).prefault(5),
    defaults: z.strictObject(websiteSettings).prefault({}),
    items: z.array(websiteItemSchema).prefault([]),
  })
  .superRefine(checkWebsitePasswords, evenWithFieldIssues)
  .transform((websites) => ({
    ...websites,
    items: websites.items.map((item) => resolveWebsite(item, websites.defaults)),
  }));

// ---------------------------------------------------------------------------------------------- the whole file

/** Issue params the loader turns into "declared twice: line 12 (…) and line 30 (…)". */
export interface DuplicateParams {
  duplicate: { what: string; paths: [PropertyKey[], PropertyKey[]] };
}

function addDuplicates(
  ctx: z.RefinementCtx,
  what: string,
  entries: { key: string | undefined; path: PropertyKey[] }[],
): void {
  const first = new Map<string, PropertyKey[]>();
  for (const { key, path } of entries) {
    if (key === undefined) continue;
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, path);
      continue;
    }
    const params: DuplicateParams = { duplicate: { what: `${what} "${key}"`, paths: [earlier, path] } };
    ctx.addIssue({
      code: "custom",
      path,
      params,
      message: `${what} "${key}" is declared twice: ${formatPath(earlier)} and ${formatPath(path)}`,
    });
  }
}

function checkUnique(config: { purchases?: unknown; websites?: unknown }, ctx: z.RefinementCtx): void {
  const jobs = Array.isArray(config.purchases) ? (config.purchases as { name?: unknown }[]) : [];
  addDuplicates(
    ctx,
    "job name",
    jobs.map((job, index) => ({
      key: typeof job?.name === "string" ? job.name : undefined,
      path: ["purchases", index, "name"],
    })),
  );
  const websites = config.websites as { items?: unknown } | undefined;
  const items = Array.isArray(websites?.items) ? (websites.items as { domain?: unknown }[]) : [];
  addDuplicates(
    ctx,
    "domain",
    items.map((item, index) => ({
      key: typeof item?.domain === "string" ? normaliseDomain(item.domain) : undefined,
      path: ["websites", "items", index, "domain"],
    })),
  );
}

export const configSchema = z
  .strictObject({
    reseller: serviceSchema({ concurrency: 8, rate_limit: 20 }),
    // The real service allows 60 requests a minute (Laravel's throttle:60,1): 6 at once, then 0.9 a second,
    // is at most 60 in any minute.
    analytics: serviceSchema({ concurrency: 4, rate_limit: 0.9, burst: 6 }),
    database: databaseSchema.prefault({}),
    timezone: timeZone().prefault(DEFAULT_TIMEZONE),
    budget: budgetSchema.prefault({}),
    verification: verificationSchema.prefault({}),
    purchases: z.array(purchaseJobSchema).prefault([]),
    intake: intakeSchema.prefault({}),
    websites: websitesSchema.prefault({}),
    server: serverSchema.prefault({}),
    webhooks: webhooksSchema.prefault({}),
    statements: statementsSchema.prefault({}),
    approvals: optionalSection(buildApprovalsSchema, approvalsDefaults),
    notifications: optionalSection(buildNotificationsSchema, notificationsDefaults),
    console: optionalSection(buildConsoleSchema, consoleDefaults),
    log: logSchema.prefault({}),
  })
  .superRefine(checkUnique, evenWithFieldIssues)
  .superRefine(checkConsoleOrigin)
  .superRefine(checkPathsApart);

/**
 * The receiver and the console share server.port, and the receiver answers its path first: a webhooks.path equal
 * to console.path, above it or under it takes pages of the console (or the console the receiver's deliveries).
 */
function checkPathsApart(config: { webhooks?: unknown; console?: unknown }, ctx: z.RefinementCtx): void {
  const hooks = config.webhooks as { enabled?: unknown; path?: unknown } | undefined;
  const panel = config.console as { enabled?: unknown; path?: unknown } | undefined;
  if (hooks?.enabled !== true || panel?.enabled !== true) return;
  if (typeof hooks.path !== "string" || typeof panel.path !== "string") return;
  const a = `${hooks.path.replace(/\/+$/, "")}/`;
  const b = `${panel.path.replace(/\/+$/, "")}/`;
  if (!a.startsWith(b) && !b.startsWith(a)) return;
  ctx.addIssue({
    code: "custom",
    path: ["webhooks", "path"],
    message: `${hooks.path} is console.path (${panel.path}) or holds it or lies under it; each needs a path of its own`,
  });
}

/** `purchases[2].plan.size` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(segment)))
      out += out === "" ? String(segment) : `.${String(segment)}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ServiceConfig = Config["reseller"];
export type TimeoutConfig = ServiceConfig["timeout"];
export type RetryConfig = ServiceConfig["retry"];
export type DatabaseConfig = Config["database"];
export type BudgetConfig = Config["budget"];
export type VerificationConfig = Config["verification"];
export type PurchaseJob = Config["purchases"][number];
export type PlanRef = PurchaseJob["plan"];
export type PlanById = Extract<PlanRef, { kind: "id" }>;
export type PlanSelector = Extract<PlanRef, { kind: "selector" }>;
export type Recipient = PurchaseJob["recipients"][number];
export type IntakeConfig = Config["intake"];
export type WebsitesConfig = Config["websites"];
export type WebsiteItem = WebsitesConfig["items"][number];
export type WebsiteDefaults = WebsitesConfig["defaults"];
export type ServerConfig = Config["server"];
export type WebhooksConfig = Config["webhooks"];
export type LogConfig = Config["log"];
export type { ApprovalRule, ApprovalsConfig } from "./approvals.js";
export { CONSOLE_ROLES, type ConsoleConfig, type ConsoleRole, type ConsoleUser } from "./console.js";
export type { ChannelConfig, NotificationRule, NotificationsConfig } from "./notifications.js";
export type LogLevel = LogConfig["level"];
