// `topsync jobs …` in the command table; the bodies load when a command runs.
import type { Command } from "commander";
import type { CommandContext } from "./context.js";

type WithContext = <A extends unknown[]>(
  body: (ctx: CommandContext, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

export function registerJobsCommands(program: Command, withContext: WithContext): void {
  const jobs = program
    .command("jobs")
    .description("purchase jobs: their schedules and states; suspend, resume, backfill");
  jobs
    .command("list")
    .description("every job: schedule, next fires, last fire and its outcome, state and note, missed fires")
    .action(withContext(async (ctx) => (await import("./jobs.js")).jobsListCommand(ctx)));
  jobs
    .command("suspend")
    .description("stop a job on every replica: its fires are skipped (counted as missed), its queue waits")
    .argument("<job>", "the job's name")
    .requiredOption("--reason <text>", "why: shown in jobs list and kept in the job's history")
    .action(
      withContext(async (ctx, job: string, flags) =>
        (await import("./jobs.js")).jobsSuspendCommand(ctx, job, flags),
      ),
    );
  jobs
    .command("resume")
    .description("end a suspension or a pause: the job fires again and its queued purchases are bought")
    .argument("<job>", "the job's name")
    .option("--reason <text>", "why, kept in the job's history")
    .action(
      withContext(async (ctx, job: string, flags) =>
        (await import("./jobs.js")).jobsResumeCommand(ctx, job, flags),
      ),
    );
  jobs
    .command("backfill")
    .description(
      "buy the fires of a window the ledger has no purchases for (missing recipients only), through the approval rules",
    )
    .argument("<job>", "the job's name")
    .requiredOption("--from <time>", "the window's start (ISO time or date)")
    .requiredOption("--to <time>", "the window's end (ISO time or date)")
    .option("--dry-run", "list the missing fires and their spend; buy nothing, write nothing")
    .option("--save <file>", "save the backfill as a plan file to approve and apply (buys nothing now)")
    .option("--allow-wide", "take a window wider than the job's backfill_max (default 31 days)")
    .option("--as <name>", "the plan's author (default: your user name)")
    .option(
      "--key <file>",
      "with --as: prove the author is that approver with their private key; a plan whose author --as names without a key needs one approval more",
    )
    .action(
      withContext(async (ctx, job: string, flags) =>
        (await import("./jobs.js")).jobsBackfillCommand(ctx, job, flags),
      ),
    );
}
