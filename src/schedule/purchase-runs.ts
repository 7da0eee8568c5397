// Every purchase run the daemon starts goes through here: the executor with this replica as actor, the stop
// signal (stop claiming, let calls in flight finish), and a shared catalogue read at most every 30 s
// instead of once per run (a job firing every second would otherwise spend its rate limit on plan lists).
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import type { RunSummary } from "../purchases/executor.js";
import { gateRequired, type RunGate } from "../purchases/gate.js";
import type { Catalogue } from "../purchases/resolve.js";
import { executeAndRecord } from "../purchases/run-once.js";
import type { DaemonContext } from "./context.js";

const CATALOGUE_TTL_MS = 30_000;

export interface PurchaseRunOptions {
  jobName?: string;
  /** Re-check submitted/unverified rows due (the verifier sweep), besides buying what is queued. */
  resumeVerification: boolean;
  /** How long to wait for retries this run queued (default: the executor's). */
  retryWaitMs?: number;
}

export class PurchaseRuns {
  private catalogue: { value: Promise<Catalogue>; at: number } | undefined;
  private gate: Promise<RunGate> | undefined;

  constructor(private readonly ctx: DaemonContext) {}

  /** One executor run, tracked for the graceful stop. */
  run(options: PurchaseRunOptions): Promise<RunSummary> {
    return this.ctx.work.track(this.execute(options));
  }

  private async execute(options: PurchaseRunOptions): Promise<RunSummary> {
    const { ctx } = this;
    const gate = await this.approvalGate();
    // Through the same ending as `purchases run`: the run's catalogue prices are recorded for `topsync plan`.
    return executeAndRecord(
      {
        database: ctx.database,
        reseller: ctx.reseller,
        config: ctx.config,
        logger: ctx.logger,
        clock: ctx.clock,
        actor: ctx.replica,
        gate,
        verifying: ctx.verifying,
      },
      {
        jobName: options.jobName,
        signal: ctx.signal,
        catalogue: await this.currentCatalogue(),
        resumeVerification: options.resumeVerification,
        retryWaitMs: options.retryWaitMs,
      },
    );
  }

  /** With approval rules configured, every run of the daemon passes the gate; what it holds is the daemon's. */
  private approvalGate(): Promise<RunGate | undefined> {
    if (!gateRequired(this.ctx.config)) return Promise.resolve(undefined);
    this.gate ??= import("../plans/gate.js").then(({ approvalGate }) =>
      approvalGate({
        database: this.ctx.database,
        config: this.ctx.config,
        logger: this.ctx.logger,
        author: "daemon",
      }),
    );
    return this.gate;
  }

  private currentCatalogue(): Promise<Catalogue> {
    const now = this.ctx.clock.now();
    if (!this.catalogue || now - this.catalogue.at > CATALOGUE_TTL_MS) {
      const value = loadCatalogue(this.ctx.reseller, this.ctx.logger);
      this.catalogue = { value, at: now };
      // A failed read is not kept: the next run asks again.
      value.catch(() => {
        if (this.catalogue?.value === value) this.catalogue = undefined;
      });
    }
    return this.catalogue.value;
  }
}
