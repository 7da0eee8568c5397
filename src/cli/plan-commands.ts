// The saved-plan commands: `purchases plan --save`, `show`, `saved list|show`, `apply`, `approve`, `reject` and
// `keys new`. Flag parsing only; each command's module loads when it runs.
import type { Command } from "commander";
import type { CommandContext } from "./context.js";

type WithContext = <A extends unknown[]>(
  body: (ctx: CommandContext, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

export function registerPlanCommands(program: Command, purchases: Command, withContext: WithContext): void {
  program
    .command("apply")
    .description(
      "do exactly what a saved plan says, or nothing: refused when stale, tampered, unapproved or expired",
    )
    .argument("<plan>", "the plan file, or a saved plan's id (held plans have no file)")
    .option(
      "--stale <mode>",
      "refuse: refuse the whole plan when an item is stale; drop: apply the rest",
      "refuse",
    )
    .option("--show-phone", "print phone numbers unmasked")
    .action(
      withContext(async (ctx, target: string, flags) =>
        (await import("./apply.js")).applyCommand(ctx, target, flags),
      ),
    );

  purchases
    .command("plan")
    .description("save what a purchase run would buy as a plan file to review, approve and apply exactly")
    .option("--job <name>", "only this job")
    .option("--now", "with --job: its fire for the current minute")
    .option("--fire-time <time>", "with --job: its fire at this ISO time")
    .option("--queued", "the queued purchases and intake requests, without any fire")
    .requiredOption("--save <file>", "write the plan here (mode 0600) and record it in the ledger")
    .option(
      "--as <name>",
      "the plan's author (default: your user name); an author cannot approve their own plan",
    )
    .option("--show-phone", "print phone numbers unmasked")
    .action(
      withContext(async (ctx, flags) => (await import("./saved-plans.js")).purchasesPlanCommand(ctx, flags)),
    );
}
