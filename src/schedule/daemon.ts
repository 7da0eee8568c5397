// The daemon on an open, migrated database: catch-up, a node-cron task per job and one for the
// website loop, the intake loop, the purchase worker and the sweep. `stop` stops the schedules, aborts
// claiming, and waits for the work in progress.
import type { ScheduledTask } from "node-cron";
import type { PurchaseJob } from "../config/index.js";
import { WEBSITES_JOB } from "../purchases/fire-ledger.js";
import { JOB_STATES_CHANNEL } from "../purchases/job-states.js";
import { registerJobs } from "../purchases/run-once.js";
import { atExpression } from "../time/fires.js";
import { catchUpJobs } from "./catch-up-run.js";
import type { DaemonContext } from "./context.js";
import { FireCoordinator, fireKeyOf, jobTaskName, WEBSITES_TASK } from "./coordinator.js";
import { IntakeLoop } from "./intake-loop.js";
import { fireTimeOf, runJobFire, slotOf } from "./job-fire.js";
import { ReplicaLiveness } from "./liveness.js";
import { startNotifier } from "./notifier-loop.js";
import { PurchaseRuns } from "./purchase-runs.js";
import { PurchaseWorker } from "./purchase-worker.js";
import { Sweeper } from "./sweep.js";
import { createFireTask } from "./tasks.js";
import { runWebsitePass } from "./website-pass.js";

/** A one-off `at` further ahead than this is scheduled by a later start (its cron form repeats every year). */
const AT_HORIZON_MS = 300 * 86_400_000;

export interface Daemon {
  /** Stops scheduling and claiming; resolves when the work in progress has finished. */
  stop(): Promise<void>;
}

export async function startDaemon(ctx: DaemonContext): Promise<Daemon> {
  const liveness = new ReplicaLiveness(ctx.database, ctx.replica);
  await liveness.hold();
  const coordinator = new FireCoordinator(ctx.database.db, ctx.replica);
  const runs = new PurchaseRuns(ctx);
  const worker = new PurchaseWorker(ctx, runs);
  const wakeWorker = () => worker.wake();

  const started = new Date(ctx.clock.now());
  const firstSeen = await registerJobs(ctx.database, ctx.config.purchases, started);
  await catchUpJobs(ctx, coordinator, firstSeen, started);

  const tasks: ScheduledTask[] = [];
  for (const job of ctx.config.purchases) {
    const task = jobTask(ctx, coordinator, runs, job, wakeWorker);
    if (task) tasks.push(task);
  }
  const websites = ctx.config.websites.schedule;
  if (websites) {
    tasks.push(
      createFireTask(ctx, coordinator, {
        name: WEBSITES_TASK,
        label: WEBSITES_JOB,
        expression: websites,
        timezone: ctx.config.timezone,
        run: () => runWebsitePass(ctx),
      }),
    );
  } else {
    ctx.logger.info(
      "websites.schedule is not set: the website loop does not run (use topsync websites apply)",
    );
  }
  // The fires due between the start and the schedules' start are caught up too (a seconds schedule fires in
  // that gap); the schedules take every fire after this instant.
  const scheduled = new Date(ctx.clock.now());
  for (const task of tasks) await task.start();
  await catchUpJobs(ctx, coordinator, firstSeen, scheduled);

  // A job resumed (or suspended) on any replica: the worker looks at the queue at once. Fires and claims read the
  // job's state from the ledger themselves, so a suspension holds on every replica without this.
  const unlistenStates = await ctx.database
    .listen(JOB_STATES_CHANNEL, (job) => {
      ctx.logger.info(`job ${job}: its state changed`);
      wakeWorker();
    })
    .catch((error: unknown) => {
      ctx.logger.warn({ err: error }, `cannot LISTEN on ${JOB_STATES_CHANNEL}: ${String(error)}`);
      return async () => {};
    });
  const intake = new IntakeLoop(ctx, wakeWorker);
  const sweeper = new Sweeper(ctx, runs, coordinator, liveness, wakeWorker);
  const notifier = startNotifier(ctx);
  const loops = [intake.run(), sweeper.run(), notifier].map((loop) =>
    loop.catch((error: unknown) =>
      ctx.logger.error({ err: error }, `a daemon loop stopped: ${String(error)}`),
    ),
  );
  ctx.logger.info(
    `topsync run ${ctx.replica}: ${tasks.length} schedules, intake ${ctx.config.intake.enabled ? "on" : "off"}, ` +
      `database ${ctx.database.location}`,
  );

  return {
    async stop() {
      for (const task of tasks) await task.destroy();
      await Promise.all(loops);
      await unlistenStates().catch(() => {});
      await ctx.work.idle();
      await liveness.drop();
    },
  };
}

function jobTask(
  ctx: DaemonContext,
  coordinator: FireCoordinator,
  runs: PurchaseRuns,
  job: PurchaseJob,
  wakeWorker: () => void,
): ScheduledTask | undefined {
  if (!job.enabled) return undefined;
  const run = (slot: Date) =>
    runJobFire(ctx, runs, job, fireTimeOf(job, slot), wakeWorker, fireKeyOf(jobTaskName(job.name), slot));
  const spec = { name: jobTaskName(job.name), label: job.name, run };
  if (job.schedule) {
    return createFireTask(ctx, coordinator, {
      ...spec,
      expression: job.schedule,
      timezone: job.timezone ?? ctx.config.timezone,
    });
  }
  if (!job.at) return undefined;
  const at = job.at;
  const ahead = at.getTime() - ctx.clock.now();
  if (ahead <= 0) return undefined; // past: catch-up has dealt with it
  if (ahead > AT_HORIZON_MS) {
    ctx.logger.info(
      `job ${job.name}: its at time ${at.toISOString()} is far ahead; a later start schedules it`,
    );
    return undefined;
  }
  const due = slotOf(at).getTime();
  return createFireTask(ctx, coordinator, {
    ...spec,
    expression: atExpression(at),
    timezone: "UTC",
    // The cron form matches every year: only the slot of the `at` time itself is this job's fire.
    run: async (slot) => {
      if (slot.getTime() === due) await run(slot);
    },
  });
}
