// What faults the sandbox injects, per endpoint: the schema, its types, and loading it from a JSON or YAML file.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import * as z from "zod";

export const ENDPOINT_NAMES = [
  "networks",
  "plans",
  "data",
  "transaction",
  "websites.list",
  "websites.get",
  "websites.create",
  "websites.update",
  "websites.delete",
] as const;

export type EndpointName = (typeof ENDPOINT_NAMES)[number];

const share = z.number().min(0).max(1);

/** The shares are cumulative parts of one uniform draw per request, in this order. */
export const FAULT_KINDS = [
  "rate429",
  "rate500Before",
  "rate500After",
  "rateHangAfter",
  "rateResetAfter",
  "rateMalformedAfter",
  "rateTimeoutAfter",
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

export const faultSpecSchema = z
  .strictObject({
    latencyMs: z.number().int().min(0).optional(),
    rate429: share.optional(),
    retryAfter: z.number().min(0).optional(),
    rate500Before: share.optional(),
    rate500After: share.optional(),
    rateHangAfter: share.optional(),
    rateResetAfter: share.optional(),
    rateMalformedAfter: share.optional(),
    rateTimeoutAfter: share.optional(),
    /** How long a `rateTimeoutAfter` answer is held before the gateway's 504 (default 60 s, nginx's). */
    timeoutAfterMs: z.number().int().min(0).optional(),
  })
  .refine((spec) => totalShare(spec) <= 1 + 1e-9, {
    message: "fault rates of one endpoint must sum to at most 1",
  });

export const faultConfigSchema = z.strictObject({
  seed: z.number().int().optional(),
  endpoints: z.partialRecord(z.enum(ENDPOINT_NAMES), faultSpecSchema),
});

export type FaultSpec = z.infer<typeof faultSpecSchema>;
export type FaultConfig = z.infer<typeof faultConfigSchema>;

function totalShare(spec: Partial<Record<FaultKind, number>>): number {
  return FAULT_KINDS.reduce((sum, kind) => sum + (spec[kind] ?? 0), 0);
}

/** Validates a fault config from any source; throws an Error listing every problem. */
export function parseFaultConfig(value: unknown): FaultConfig {
  const result = faultConfigSchema.safeParse(value);
  if (!result.success) throw new Error(`invalid fault config: ${z.prettifyError(result.error)}`);
  return result.data;
}

/** Reads a fault config from a JSON or YAML file (YAML reads JSON too). */
export function loadFaultsFile(path: string): FaultConfig {
  const text = readFileSync(path, "utf8");
  const value: unknown = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  return parseFaultConfig(value);
}
