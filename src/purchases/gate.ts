// The approval gate as the executor sees it: with approval rules configured, a run buys only rows the gate has let
// through (`purchases.approval` set), and asks the gate first. What the gate decides (hold a run whose total needs
// approval, release what approvals allow) lives with saved plans, above this layer; the executor refuses to run
// without one when rules are configured, so no entry point can buy around it.
import type { Config } from "../config/index.js";
import type { Catalogue } from "./resolve.js";

export interface GateRun {
  runId: string;
  actor: string;
  now: Date;
  catalogue: Catalogue;
  /** The rows this run may take: one job's, one request key's, one saved plan's, or every due row. */
  jobName?: string;
  requestKey?: string;
  savedPlan?: string;
}

/** A run's rows held for approval as one saved plan. */
export interface HeldRun {
  plan: string;
  purchases: number;
  total: string;
  approvalsRequired: number;
  expiresAt: string;
}

export interface GateReport {
  held: HeldRun[];
  /** Saved plans whose held rows an approval released into this run's queue. */
  released: string[];
}

export interface RunGate {
  /** Before the first claim: release what approvals allow, and let through or hold the run's new rows. */
  before(run: GateRun): Promise<GateReport>;
  /** After the run: plans with nothing left to buy are applied. */
  after(run: GateRun): Promise<void>;
}

/** Whether runs must pass a gate: some amount rule is configured. */
export function gateRequired(config: Config): boolean {
  return config.approvals.rules.some((rule) => "above" in rule);
}
