// The sandbox's options: the schema (also used by the admin endpoint), defaults, and the resolved form.
import * as z from "zod";
import { faultConfigSchema } from "./fault-config.js";
import { type Lies, liesSchema } from "./lies.js";

const share = z.number().min(0).max(1);
const count = z.number().int().min(0);

export const sandboxOptionsSchema = z.strictObject({
  resellerPort: z.number().int().min(0).max(65535).optional(),
  analyticsPort: z.number().int().min(0).max(65535).optional(),
  /** The notification receivers (Slack-, Telegram-, webhook-compatible: receivers.ts). */
  receiverPort: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  apiKey: z.string().min(1).optional(),
  analyticsApiKey: z.string().min(1).optional(),
  latencyMs: count.optional(),
  seed: z.number().int().optional(),
  walletBalance: z
    .string()
    .regex(/^\d+(\.\d{1,2})?$/, "a decimal naira amount such as 1000000.00")
    .optional(),
  failRate: share.optional(),
  reverseRate: share.optional(),
  /**
   * How verify lags behind a purchase: by the `time` since it (404 for `verifyNotFoundMs`, then `pending` until
   * `verifyNotFoundMs + verifyPendingMs`, each transaction's lag stretched or shrunk by up to `verifyLagJitter`),
   * as a real provider's does; or counted in `reads` (404 for the first `verifyNotFoundPolls` reads, `pending`
   * for the next `verifyPendingPolls`), which tests use to settle in a few milliseconds.
   */
  verifyLag: z.enum(["time", "reads"]).optional(),
  verifyNotFoundMs: count.optional(),
  verifyPendingMs: count.optional(),
  verifyLagJitter: share.optional(),
  verifyNotFoundPolls: count.optional(),
  verifyPendingPolls: count.optional(),
  pageShape: z.enum(["laravel", "bare"]).optional(),
  validationShape: z.enum(["laravel", "message-object"]).optional(),
  stringInts: z.boolean().optional(),
  maxWebsites: count.optional(),
  /**
   * Plan id → its price from now on, listed and debited alike ("350.00"): a price rising or falling while a saved
   * plan waits. Replaced whole when set; `{}` restores the catalogue's prices.
   */
  planPrices: z.record(z.string(), z.string().regex(/^\d+\.\d{2}$/, "a price like 350.00")).optional(),
  /** A lying provider: it debits (and answers with) the listed price times this. */
  overchargeFactor: z.number().positive().max(1000).optional(),
  /** A lying provider: verify answers name another phone, amount or reference, or say `status: false`. */
  verifyLie: z
    .enum(["none", "phone", "amount", "reference", "status_false", "failed_huge_refund"])
    .optional(),
  /** Single-record answers (create, show, update): wrapped in `{data, status}` or the bare model. */
  recordShape: z.enum(["wrapped", "bare"]).optional(),
  /** An installation configured with smaller pages: per_page is answered at most this. */
  perPageCap: z.number().int().min(1).optional(),
  /** Domains another account on the installation holds: never listed, a create of one is a 422 "taken". */
  takenDomains: z.array(z.string().min(1)).optional(),
  /** Laravel's throttle on the analytics API: `limit` requests per window; null or absent is off. */
  throttle: z
    .strictObject({ limit: z.number().int().min(1), windowSeconds: z.number().positive() })
    .nullable()
    .optional(),
  /** Where each debit's notification (its `webhook_response` payload) is POSTed; empty: nowhere. */
  notifyUrl: z.union([z.url({ protocol: /^https?$/ }), z.literal("")]).optional(),
  /** The HMAC-SHA256 key of the `X-Signature` header (hex of the raw body). */
  notifySecret: z.string().min(1).optional(),
  /** Extra deliveries of each notification (a provider retrying or repeating itself). */
  notifyDuplicates: count.max(10).optional(),
  /** Keep notifications until `deliverNotifications()` (tests decide when they arrive). */
  notifyHold: z.boolean().optional(),
  /**
   * Verify reads of a notified transaction that still answer `pending` after its notification was sent (unless
   * its own not-found and pending reads are over): a provider's verify lags its own notifications too.
   */
  notifiedPendingPolls: count.optional(),
  /**
   * With the time-based lag, a notification is sent when its transaction settles, this long before verify says
   * so (a provider's verify may lag its own notifications).
   */
  notifyLeadMs: count.optional(),
  faults: faultConfigSchema.optional(),
  /** Answers the reseller gets wrong on purpose (see lies.ts); replaced whole when set. */
  lies: liesSchema.optional(),
});

export type SandboxOptions = z.infer<typeof sandboxOptionsSchema>;

/** Options with every default filled in; `maxWebsites` stays undefined for "unlimited". */
export type ResolvedOptions = Required<
  Omit<SandboxOptions, "maxWebsites" | "faults" | "perPageCap" | "throttle">
> & {
  maxWebsites: number | undefined;
  perPageCap: number | undefined;
  throttle: { limit: number; windowSeconds: number } | null;
};

export const DEFAULT_OPTIONS: ResolvedOptions = {
  resellerPort: 0,
  analyticsPort: 0,
  receiverPort: 0,
  host: "127.0.0.1",
  apiKey: "sandbox-reseller-key",
  analyticsApiKey: "sandbox-analytics-key",
  latencyMs: 0,
  seed: 1,
  walletBalance: "1000000.00",
  failRate: 0,
  reverseRate: 0,
  verifyLag: "time",
  verifyNotFoundMs: 1000,
  verifyPendingMs: 2000,
  verifyLagJitter: 0.2,
  verifyNotFoundPolls: 1,
  verifyPendingPolls: 1,
  pageShape: "laravel",
  validationShape: "laravel",
  stringInts: false,
  maxWebsites: undefined,
  overchargeFactor: 1,
  planPrices: {},
  verifyLie: "none",
  recordShape: "wrapped",
  perPageCap: undefined,
  takenDomains: [],
  throttle: null,
  lies: {} as Lies,
  notifyUrl: "",
  notifySecret: "sandbox-webhook-secret",
  notifyDuplicates: 1,
  notifyHold: false,
  notifiedPendingPolls: 1,
  notifyLeadMs: 0,
};

/** Validates options from code or the admin endpoint; throws an Error listing every problem. */
export function parseOptions(value: unknown): SandboxOptions {
  const result = sandboxOptionsSchema.safeParse(value ?? {});
  if (!result.success) throw new Error(`invalid sandbox options: ${z.prettifyError(result.error)}`);
  return result.data;
}

/** `base` with the options given in `change` laid over it (undefined values leave the base alone). */
export function mergeOptions(base: ResolvedOptions, change: SandboxOptions): ResolvedOptions {
  const merged: ResolvedOptions = { ...base };
  for (const [key, value] of Object.entries(change)) {
    if (value !== undefined && key !== "faults") (merged as Record<string, unknown>)[key] = value;
  }
  merged.takenDomains = merged.takenDomains.map((domain) => domain.trim().toLowerCase());
  if (merged.failRate + merged.reverseRate > 1) {
    throw new Error("invalid sandbox options: failRate + reverseRate must be at most 1");
  }
  return merged;
}
