// All the state of one sandbox (both services share it): options, wallet, transactions, websites, logs, faults.
// One object per startSandbox call; nothing lives at module level.
import { setMaxListeners } from "node:events";
import type { FaultConfig } from "./fault-config.js";
import { toKobo } from "./kobo.js";
import type { ResolvedOptions } from "./options.js";
import { createNamedPrng, createPrng, type Prng } from "./prng.js";
import type { Debit, Refund, RequestLogEntry, WebsiteMutation } from "./records.js";
import type { Transaction } from "./transactions.js";
import { createWebsiteStore, type WebsiteStore } from "./website-store.js";

/** The analytics throttle's current window (throttle.ts). */
export interface ThrottleWindow {
  hits: number;
  /** Epoch ms at which the window closes. */
  closesAt: number;
}

export interface SandboxState {
  /** The options the sandbox started with; reset returns to these (plus its own overrides). */
  readonly initial: ResolvedOptions;
  options: ResolvedOptions;
  readonly clock: () => Date;
  walletKobo: number;
  debits: Debit[];
  refunds: Refund[];
  transactions: Map<string, Transaction>;
  websites: WebsiteStore;
  websiteMutations: WebsiteMutation[];
  requests: RequestLogEntry[];
  faults: FaultConfig;
  /** One stream per endpoint, created on first use from the fault seed. */
  faultStreams: Map<string, Prng>;
  /** Draws the final status of each accepted purchase. */
  outcomes: Prng;
  /** Draws how much each transaction's time-based verify lag is stretched or shrunk. */
  lags: Prng;
  /** The analytics API's throttle window, once a request opened one. */
  throttle?: ThrottleWindow;
  /** Notifications kept back while `notifyHold` is set. */
  heldNotifications: Transaction[];
  /** Notification deliveries in progress. */
  deliveries: Set<Promise<void>>;
  /** Aborted by close(), so sleeping requests stop waiting. */
  readonly closing: AbortController;
}

export function createState(initial: ResolvedOptions, faults: FaultConfig, clock: () => Date): SandboxState {
  return {
    initial,
    options: initial,
    clock,
    walletKobo: toKobo(initial.walletBalance),
    debits: [],
    refunds: [],
    transactions: new Map(),
    websites: createWebsiteStore(),
    websiteMutations: [],
    requests: [],
    faults,
    faultStreams: new Map(),
    outcomes: createPrng(initial.seed),
    lags: createNamedPrng(initial.seed, "verify-lag"),
    heldNotifications: [],
    deliveries: new Set(),
    closing: closingController(),
  };
}

/** Aborts every waiting request on close; each request in latency listens to it, so lift the listener cap. */
function closingController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Clears every record and returns the wallet to its starting balance, under the given options. */
export function resetState(state: SandboxState, options: ResolvedOptions, faults: FaultConfig): void {
  state.options = options;
  state.walletKobo = toKobo(options.walletBalance);
  state.debits = [];
  state.refunds = [];
  state.transactions = new Map();
  state.websites = createWebsiteStore();
  state.websiteMutations = [];
  state.requests = [];
  state.faults = faults;
  state.faultStreams = new Map();
  state.outcomes = createPrng(options.seed);
  state.lags = createNamedPrng(options.seed, "verify-lag");
  state.throttle = undefined;
  state.heldNotifications = [];
}
