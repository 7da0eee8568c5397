// The sandbox: both remote services (data reseller and website analytics) simulated over real HTTP,
// with a wallet, eventual consistency, pagination and seeded fault injection. Used by tests, demo and bench.
import { ANALYTICS_SERVICE } from "./analytics.js";
import {
  debitRecords,
  mutationRecords,
  refundRecords,
  requestRecords,
  resetSandbox,
  seedWebsites,
  setFaults,
  setOptions,
  type WebsiteSeed,
  walletText,
  websiteRecords,
} from "./controls.js";
import { type FaultConfig, parseFaultConfig } from "./fault-config.js";
import { DEFAULT_OPTIONS, mergeOptions, parseOptions, type SandboxOptions } from "./options.js";
import { type Receivers, startReceivers } from "./receivers.js";
import type { Debit, Refund, RequestLogEntry, WebsiteMutation, WebsiteRecord } from "./records.js";
import { RESELLER_SERVICE } from "./reseller.js";
import { closeServer, createServiceServer, listen } from "./server.js";
import { createState } from "./state.js";

export { SANDBOX_NETWORKS, SANDBOX_PLANS, type SandboxNetwork, type SandboxPlan } from "./catalogue.js";
export type { WebsiteSeed } from "./controls.js";
export {
  ENDPOINT_NAMES,
  type EndpointName,
  type FaultConfig,
  type FaultKind,
  type FaultSpec,
  loadFaultsFile,
} from "./fault-config.js";
export type { SandboxOptions } from "./options.js";
export type { ReceivedRequest, ReceiverFault, ReceiverKind, Receivers } from "./receivers.js";
export type {
  Debit,
  Refund,
  RequestLogEntry,
  WebsiteInput,
  WebsiteMutation,
  WebsiteRecord,
} from "./records.js";

import { stringify } from "csv-stringify/sync";
import { deliverLate, deliverNotifications, reverseTransaction } from "./notify.js";
import { statementRows } from "./transactions.js";

export interface Sandbox {
  resellerUrl: string;
  analyticsUrl: string;
  readonly apiKey: string;
  readonly analyticsApiKey: string;
  /** Every wallet debit ever made (one per accepted purchase, and another when a refunded one is delivered late), in order. */
  debits(): Debit[];
  refunds(): Refund[];
  /** The current balance as a decimal string: "999695.00". */
  wallet(): string;
  websiteMutations(): WebsiteMutation[];
  requests(): RequestLogEntry[];
  websites(): WebsiteRecord[];
  setFaults(f: FaultConfig): void;
  setOptions(o: Partial<SandboxOptions>): void;
  seedWebsites(records: WebsiteSeed[]): WebsiteRecord[];
  reset(opts?: Partial<SandboxOptions>): void;
  /** Every transaction as the reseller's statement export (CSV: reference, phone, amount, date, status). */
  statementCsv(): string;
  /** Sends the notifications held back (`notifyHold`) and resolves when every delivery has finished. */
  deliverNotifications(): Promise<void>;
  /**
   * Takes back a delivered purchase: `reversed`, refunded, its notification sent again; verify catches up after its
   * lag. Throws when there is no such successful transaction.
   */
  reverse(reference: string): void;
  /**
   * Delivers a failed purchase after all: `success`, its refund taken from the wallet again (a second debit of its
   * reference), its notification sent again; verify catches up after its lag. Throws when there is no such failed
   * transaction.
   */
  deliverLate(reference: string): void;
  /** Where notifications land: Slack (`/slack/…`), Telegram (`/bot<token>/sendMessage`), webhooks (`/hooks/…`). */
  receivers: Receivers;
  /** Resolves promptly even with hanging requests: open sockets are destroyed. */
  close(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const given = parseOptions(opts);
  const options = mergeOptions(DEFAULT_OPTIONS, given);
  const state = createState(options, parseFaultConfig(given.faults ?? { endpoints: {} }), () => new Date());
  const reseller = createServiceServer(state, RESELLER_SERVICE);
  const analytics = createServiceServer(state, ANALYTICS_SERVICE);
  let receivers: Receivers | undefined;
  const closeAll = async () => {
    state.closing.abort();
    await Promise.all([closeServer(reseller), closeServer(analytics), receivers?.close()]);
  };
  try {
    const resellerUrl = await listen(reseller, options.host, options.resellerPort);
    const analyticsUrl = await listen(analytics, options.host, options.analyticsPort);
    receivers = await startReceivers(options.host, options.receiverPort);
    return {
      resellerUrl,
      analyticsUrl,
      get apiKey() {
        return state.options.apiKey;
      },
      get analyticsApiKey() {
        return state.options.analyticsApiKey;
      },
      debits: () => debitRecords(state),
      refunds: () => refundRecords(state),
      wallet: () => walletText(state),
      websiteMutations: () => mutationRecords(state),
      requests: () => requestRecords(state),
      websites: () => websiteRecords(state),
      setFaults: (f) => setFaults(state, f),
      setOptions: (o) => setOptions(state, o),
      seedWebsites: (records) => seedWebsites(state, records),
      reset: (o) => resetSandbox(state, o ?? {}),
      deliverNotifications: () => deliverNotifications(state),
      reverse: (reference) => {
        const problem = reverseTransaction(state, reference);
        if (problem) throw new Error(`sandbox reverse: ${problem}`);
      },
      deliverLate: (reference) => {
        const problem = deliverLate(state, reference);
        if (problem) throw new Error(`sandbox deliverLate: ${problem}`);
      },
      statementCsv: () => stringify(statementRows(state.transactions.values())),
      receivers,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
