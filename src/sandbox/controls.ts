// What a test (or the admin endpoint) can do to a running sandbox: read its records, change options
// and faults, seed websites, reset. Shared by the Sandbox object and /__admin/ so both behave alike.
import { type FaultConfig, parseFaultConfig } from "./fault-config.js";
import { nairaText, toKobo } from "./kobo.js";
import { mergeOptions, parseOptions } from "./options.js";
import { createPrng } from "./prng.js";
import type {
  Debit,
  Refund,
  RequestLogEntry,
  WebsiteInput,
  WebsiteMutation,
  WebsiteRecord,
} from "./records.js";
import { resetState, type SandboxState } from "./state.js";
import { isoMicros } from "./time.js";
import { normaliseDomain } from "./website-rules.js";
import { insertWebsite } from "./website-store.js";

export type WebsiteSeed = Partial<WebsiteInput> & { domain: string };

const NO_FAULTS: FaultConfig = { endpoints: {} };

export function walletText(state: SandboxState): string {
  return nairaText(state.walletKobo);
}

/** Copies of the stored websites in id order, write-only fields included. */
export function websiteRecords(state: SandboxState): WebsiteRecord[] {
  return [...state.websites.byId.values()].map((record) => ({ ...record }));
}

export function debitRecords(state: SandboxState): Debit[] {
  return state.debits.map((debit) => ({ ...debit }));
}

export function refundRecords(state: SandboxState): Refund[] {
  return state.refunds.map((refund) => ({ ...refund }));
}

export function mutationRecords(state: SandboxState): WebsiteMutation[] {
  return state.websiteMutations.map((mutation) => ({ ...mutation, fields: { ...mutation.fields } }));
}

export function requestRecords(state: SandboxState): RequestLogEntry[] {
  return state.requests.map((entry) => ({ ...entry }));
}

export function stateSnapshot(state: SandboxState) {
  return {
    wallet: walletText(state),
    debits: debitRecords(state),
    refunds: refundRecords(state),
    websiteMutations: mutationRecords(state),
    websites: websiteRecords(state),
    requestCount: state.requests.length,
  };
}

export function setFaults(state: SandboxState, faults: unknown): void {
  state.faults = parseFaultConfig(faults);
  state.faultStreams = new Map();
}

/**
 * Changes options of the running sandbox. `walletBalance` sets the current balance (no debit recorded),
 * `seed` restarts the outcome and fault streams, `faults` replaces the faults; ports and host stay as bound.
 */
export function setOptions(state: SandboxState, change: unknown): void {
  const options = parseOptions(change);
  state.options = mergeOptions(state.options, options);
  if (options.walletBalance !== undefined) state.walletKobo = toKobo(options.walletBalance);
  if (options.seed !== undefined) {
    state.outcomes = createPrng(options.seed);
    state.faultStreams = new Map();
  }
  if (options.faults !== undefined) setFaults(state, options.faults);
}

/** Back to the starting options (with `change` laid over them), no faults unless given, all records cleared. */
export function resetSandbox(state: SandboxState, change: unknown): void {
  const options = parseOptions(change);
  resetState(state, mergeOptions(state.initial, options), options.faults ?? NO_FAULTS);
}

/** Inserts websites directly (no mutation recorded); throws on a duplicate or malformed domain. */
export function seedWebsites(state: SandboxState, seeds: readonly WebsiteSeed[]): WebsiteRecord[] {
  const at = isoMicros(state.clock());
  return seeds.map((seed) => {
    const domain = normaliseDomain(seed.domain);
    if (!domain.includes(".")) throw new Error(`seed website "${seed.domain}" is not a domain`);
    if (state.websites.byDomain.has(domain)) throw new Error(`seed website "${domain}" already exists`);
    const input: WebsiteInput = {
      domain,
      privacy: seed.privacy ?? 1,
      password: seed.password ?? null,
      email: seed.email ?? 0,
      exclude_bots: seed.exclude_bots ?? 1,
      exclude_params: seed.exclude_params ?? null,
      exclude_ips: seed.exclude_ips ?? null,
    };
    return { ...insertWebsite(state.websites, input, at) };
  });
}

/** `count` websites named like site-00001.example.com, skipping names already taken. */
export function seedNumberedWebsites(state: SandboxState, count: number, prefix: string): WebsiteRecord[] {
  const seeds: WebsiteSeed[] = [];
  for (let n = 1; seeds.length < count; n++) {
    const domain = `${prefix}-${String(n).padStart(5, "0")}.example.com`;
    if (!state.websites.byDomain.has(domain)) seeds.push({ domain });
  }
  return seedWebsites(state, seeds);
}
