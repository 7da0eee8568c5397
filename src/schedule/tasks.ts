// A node-cron task for one job or the website loop: distributed through the database coordinator (one
// replica runs each fire), no overlap within a replica (a fire that comes while the last run still goes is
// skipped and logged), and every outcome counted in the fires metric.
import { type Logger as CronLogger, createTask, type ScheduledTask, type TaskContext } from "node-cron";
import type { Logger } from "../log/logger.js";
import type { DaemonContext } from "./context.js";
import { type FireCoordinator, fireKeyOf } from "./coordinator.js";

export interface FireTaskSpec {
  /** node-cron task name: the fire key prefix (`job:<name>` or `websites`). */
  name: string;
  /** What logs and metrics call it: the job's name, or "(websites)" (no job name has parentheses). */
  label: string;
  expression: string;
  timezone: string;
  /** Runs an elected fire; throwing marks the fire failed. */
  run: (slot: Date) => Promise<void>;
}

export function createFireTask(
  ctx: DaemonContext,
  coordinator: FireCoordinator,
  spec: FireTaskSpec,
): ScheduledTask {
  const log = ctx.logger.child({ task: spec.name });
  const task = createTask(
    spec.expression,
    (context) => ctx.work.track(runFire(ctx, coordinator, spec, context)),
    {
      name: spec.name,
      timezone: spec.timezone,
      noOverlap: true,
      distributed: true,
      runCoordinator: coordinator,
      logger: cronLogger(log),
    },
  );
  task.on("execution:overlap", (context) => {
    ctx.metrics.fire(spec.label, "overlap");
    log.warn(
      `${spec.label}: the fire of ${context.date.toISOString()} is skipped: the previous run is still going on this replica`,
    );
  });
  task.on("execution:skipped", (context) => {
    if (context.reason === "not-elected") {
      ctx.metrics.fire(spec.label, "not_elected");
      log.debug(`${spec.label}: the fire of ${context.date.toISOString()} runs on another replica`);
      return;
    }
    ctx.metrics.fire(spec.label, "coordinator_error");
    log.error(
      `${spec.label}: the fire of ${context.date.toISOString()} is skipped: the database could not say whether another replica runs it`,
    );
  });
  task.on("execution:missed", (context) => {
    ctx.metrics.fire(spec.label, "missed");
    log.warn(
      `${spec.label}: the fire of ${context.date.toISOString()} was missed (the process was busy or asleep)`,
    );
  });
  return task;
}

async function runFire(
  ctx: DaemonContext,
  coordinator: FireCoordinator,
  spec: FireTaskSpec,
  context: TaskContext,
): Promise<void> {
  const key = fireKeyOf(spec.name, context.date);
  try {
    await spec.run(context.date);
    ctx.metrics.fire(spec.label, "run");
  } catch (error) {
    const message = (error as Error).message;
    ctx.metrics.fire(spec.label, "failed");
    ctx.logger.error(
      { task: spec.name, err: error },
      `${spec.label}: the fire of ${context.date.toISOString()} failed: ${message}`,
    );
    await coordinator.fail(key, message).catch(() => {});
  }
}

/** node-cron's own messages through our logger; its overlap and missed warnings are logged above instead. */
function cronLogger(log: Logger): CronLogger {
  return {
    info: (message) => log.debug(message),
    warn: (message) => log.debug(message),
    error: (message, err) =>
      log.error({ err: err ?? (message instanceof Error ? message : undefined) }, String(message)),
    debug: (message) => log.debug(String(message)),
  };
}
