// `topsync websites plan | apply | import`: the reconciler on the command line. Thin: parse flags, run one
// pass, render. The reconciler and the database load only when a command runs, so `--help` stays fast.
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { AnalyticsClient } from "../analytics/client.js";
import type { PassProgress } from "../websites/reconcile.js";
import type { CommandContext } from "./context.js";
import { countLine, paceOf, pagesRead, progressReporter } from "./progress.js";

/** Where a command writes and how it asks; tests pass their own. */
export interface CommandIo {
  write(text: string): void;
  isTTY: boolean;
  ask(question: string): Promise<string>;
}

export const processIo: CommandIo = {
  write: (text) => process.stdout.write(text),
  get isTTY() {
    return process.stdin.isTTY === true;
  },
  /** Asks on stderr, as src/cli/confirm.ts does, so stdout carries only the plan. */
  async ask(question) {
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await prompt.question(question);
    } finally {
      prompt.close();
    }
  },
};

export interface PlanFlags {
  json?: boolean;
  detailedExitcode?: boolean;
  /** Save the plan as a file to approve and apply exactly (src/cli/saved-plans.ts). */
  save?: string;
  as?: string;
  key?: string;
}

export interface ApplyFlags {
  autoApprove?: boolean;
  allowMassDelete?: boolean;
  acceptVanished?: boolean;
}

async function load() {
  const [reconcile, render, guards, model, database, output, lock] = await Promise.all([
    import("../websites/reconcile.js"),
    import("../websites/render.js"),
    import("../websites/guards.js"),
    import("../websites/model.js"),
    import("./database.js"),
    import("./output.js"),
    import("./websites-lock.js"),
  ]);
  return { ...reconcile, ...render, ...guards, ...model, ...database, ...output, ...lock };
}

/**
 * Prints the plan; with --detailed-exitcode returns 2 when there are changes (errors throw: exit 1). A plan
 * from an incomplete listing is printed and returns 1 whatever the flag, as `topsync plan` does.
 */
export async function websitesPlanCommand(
  ctx: CommandContext,
  flags: PlanFlags,
  io: CommandIo = processIo,
): Promise<number> {
  if (flags.save)
    return (await import("./saved-plans.js")).websitesPlanSaveCommand(ctx, flags.save, flags.as, flags.key);
  const m = await load();
  const { db } = await m.openLedger(ctx);
  const analytics = await ctx.analytics();
  const deps = m.reconcileDeps(ctx.config, analytics, db, { logger: ctx.logger });
  const progress = passProgress(ctx, analytics);
  const { plan } = await m
    .reconcile(deps, { mode: "plan", onProgress: progress.update })
    .finally(progress.done);
  const refusal = m.deleteRefusal(plan, {
    maxDeletes: ctx.config.websites.max_deletes,
    allowMassDelete: false,
  });
  const json = flags.json || ctx.globals.json;
  io.write(json ? m.renderJson(m.planJson(plan, refusal)) : m.renderPlanText(plan, refusal));
  if (!plan.remote.complete) return 1;
  return flags.detailedExitcode && m.hasChanges(plan) ? 2 : 0;
}

/** Shows the plan, asks on a terminal (refuses without one unless --auto-approve), applies. 1 on any error. */
export async function websitesApplyCommand(
  ctx: CommandContext,
  flags: ApplyFlags,
  io: CommandIo = processIo,
): Promise<number> {
  const { UsageError } = await import("../errors.js");
  if (!flags.autoApprove && !io.isTTY) {
    throw new UsageError(
      "not asking on a non-interactive terminal; pass --auto-approve to apply the plan without asking",
      "NEEDS_CONFIRMATION",
    );
  }
  const m = await load();
  if (ctx.config.websites.mode === "observe") {
    ctx.logger.info(
      "websites.mode is observe: the loop only reports, but this apply was asked for explicitly",
    );
  }
  const database = await m.openLedger(ctx);
  const analytics = await ctx.analytics();
  const deps = m.reconcileDeps(ctx.config, analytics, database.db, { logger: ctx.logger });
  const allowMassDelete = flags.allowMassDelete ?? false;
  const limits = { maxDeletes: ctx.config.websites.max_deletes, allowMassDelete };
  const progress = passProgress(ctx, analytics);
  // One writer of the websites at a time, as the daemon's pass is: two applies (or one beside the daemon) both
  // created what neither had seen, a duplicate on a service that takes a domain twice.
  const pass = await m
    .websitesLocked(database, () =>
      m.reconcile(deps, {
        mode: "apply",
        allowMassDelete,
        acceptVanished: flags.acceptVanished ?? false,
        confirm: async (plan) => {
          progress.done(); // the listing's line ends before the plan is shown
          io.write(m.renderPlanText(plan, m.deleteRefusal(plan, limits)));
          if (flags.autoApprove) return true;
          const answer = await io.ask("\nApply these changes to the analytics websites? [y/N] ");
          return /^y(es)?$/i.test(answer.trim());
        },
        onProgress: progress.update,
      }),
    )
    .finally(progress.done);
  if (!m.hasChanges(pass.plan)) {
    io.write(m.renderPlanText(pass.plan));
    return pass.plan.remote.complete ? 0 : 1;
  }
  if (pass.status === "cancelled") {
    io.write("Apply cancelled; nothing was changed.\n");
    return 0;
  }
  io.write(`\n${m.renderApplyText(pass.applied!)}`);
  return pass.errors.length > 0 ? 1 : 0;
}

/**
 * The pass's progress: the listing's pages, then the apply's changes, each on its own line and clock. Both are
 * requests to the analytics service, one a page or a change, so its pace gives the time left.
 */
function passProgress(ctx: CommandContext, analytics: AnalyticsClient) {
  const pace = () => paceOf("analytics", analytics.http.pace());
  const listing = progressReporter<PassProgress & { step: "listing" }>(
    (p, elapsed) => countLine(pagesRead(p, pace()), elapsed),
    ctx.logger,
  );
  const apply = progressReporter<PassProgress & { step: "apply" }>(
    (p, elapsed) =>
      countLine(
        {
          done: p.finished,
          total: p.total,
          unit: "changes",
          note: p.failed > 0 ? `${p.failed} failed` : undefined,
          pace: pace(),
        },
        elapsed,
      ),
    ctx.logger,
  );
  return {
    update(progress: PassProgress) {
      if (progress.step === "listing") listing.update(progress);
      else {
        listing.done();
        apply.update(progress);
      }
    },
    done() {
      listing.done();
      apply.done();
    },
  };
}

/** Adopts existing remote websites; an unknown domain is a usage error (exit 64) and imports nothing. */
export async function websitesImportCommand(
  ctx: CommandContext,
  domains: string[],
  io: CommandIo = processIo,
): Promise<number> {
  const [{ importWebsites }, { openLedger }] = await Promise.all([
    import("../websites/import.js"),
    import("./database.js"),
  ]);
  const { db } = await openLedger(ctx);
  const results = await importWebsites(await ctx.analytics(), db, domains);
  for (const result of results) {
    const note = result.result === "imported" ? "imported" : "already owned by topsync";
    io.write(`${result.domain} (id ${result.id}): ${note}\n`);
  }
  return 0;
}

type WithContext = <A extends unknown[]>(
  body: (ctx: CommandContext, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

function exitWith(code: number): void {
  if (code !== 0) process.exitCode = code;
}

export function registerWebsiteCommands(websites: Command, withContext: WithContext): void {
  websites
    .command("plan")
    .description("show what apply would change (makes no change anywhere)")
    .option("--json", "print the plan as JSON (format_version 1)")
    .option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are, 1 on error")
    .option(
      "--save <file>",
      "save the plan (mode 0600) and record it in the ledger, to approve and apply exactly",
    )
    .option("--as <name>", "with --save: the plan's author (default: your user name)")
    .option(
      "--key <file>",
      "with --save and --as: prove the author is that approver with their private key; a plan whose author --as names without a key needs one approval more",
    )
    .action(withContext(async (ctx, flags: PlanFlags) => exitWith(await websitesPlanCommand(ctx, flags))));
  websites
    .command("apply")
    .description("make the analytics websites match the declared list (asks first on a terminal)")
    .option("--auto-approve", "apply without asking")
    .option("--allow-mass-delete", "allow more deletes than websites.max_deletes")
    .option(
      "--accept-vanished",
      "the listing shows none of the websites topsync owns and they are really gone: create them again, forget the rest",
    )
    .action(withContext(async (ctx, flags: ApplyFlags) => exitWith(await websitesApplyCommand(ctx, flags))));
  websites
    .command("import")
    .description("adopt existing remote websites, so topsync owns them (and may prune them)")
    .argument("<domain...>", "domains of remote websites")
    .action(
      withContext(async (ctx, domains: string[]) => exitWith(await websitesImportCommand(ctx, domains))),
    );
}
