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

  program
    .command("show")
    .description(
      "a saved plan as it stands: status, approvals, and each item with what is stale about it now",
    )
    .argument("<plan>", "the plan file, or a saved plan's id")
    .option("--format <format>", "text, markdown, json or html (default text; json with --json)")
    .option("--out <file>", "write it to this file (replaced whole) instead of stdout")
    .option("--show-phone", "print phone numbers unmasked")
    .action(
      withContext(async (ctx, target: string, flags) =>
        (await import("./show.js")).showCommand(ctx, target, flags),
      ),
    );
  const saved = program
    .command("saved")
    .description("saved plans: `saved list`, `saved show ID` (`plans` is the catalogue)");
  saved
    .command("list")
    .description("every saved plan, newest first: status, author, approvals, total, when")
    .option("--limit <n>", "at most this many", "100")
    .action(withContext(async (ctx, flags) => (await import("./show.js")).savedListCommand(ctx, flags)));
  saved
    .command("show")
    .description("one saved plan from the ledger, as `show` renders it")
    .argument("<id>", "the saved plan's id")
    .option("--format <format>", "text, markdown, json or html (default text; json with --json)")
    .option("--out <file>", "write it to this file (replaced whole) instead of stdout")
    .option("--show-phone", "print phone numbers unmasked")
    .action(
      withContext(async (ctx, id: string, flags) => {
        if (!/^p_[a-z0-9]{8,32}$/.test(id)) {
          const { UsageError } = await import("../errors.js");
          throw new UsageError(`"${id}" is not a saved plan's id (p_ and letters and digits)`);
        }
        return (await import("./show.js")).showCommand(ctx, id, flags);
      }),
    );
  program
    .command("approve")
    .description("sign a saved plan's digest as one of approvals.approvers (never the plan's author)")
    .argument("<plan>", "the plan file (the approval is written into it too), or a saved plan's id")
    .requiredOption("--as <name>", "your name in approvals.approvers")
    .requiredOption("--key <file>", "your private key (topsync keys new)")
    .option("--reason <text>", "why, kept with the approval")
    .action(
      withContext(async (ctx, target: string, flags) =>
        (await import("./approvals.js")).decisionCommand(ctx, target, flags, "approve"),
      ),
    );
  program
    .command("reject")
    .description("end a saved plan: nothing of it is bought (a held run's purchases are cancelled)")
    .argument("<plan>", "the plan file, or a saved plan's id")
    .requiredOption("--as <name>", "your name in approvals.approvers")
    .requiredOption("--key <file>", "your private key (topsync keys new)")
    .requiredOption("--reason <text>", "why")
    .action(
      withContext(async (ctx, target: string, flags) =>
        (await import("./approvals.js")).decisionCommand(ctx, target, flags, "reject"),
      ),
    );
  const keys = program.command("keys").description("approvers' signing keys");
  keys
    .command("new")
    .description(
      "make an approver's ed25519 key pair: the private key to a file (mode 0600), the public key printed",
    )
    .requiredOption("--as <name>", "the approver's name")
    .option("--out <file>", "where to write the private key (default ~/.topsync/NAME.key)")
    .action(async (flags) =>
      (await import("./approvals.js")).keysNewCommand(
        flags,
        program.opts<{ json?: boolean }>().json === true,
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
    .option(
      "--key <file>",
      "with --as: prove the author is that approver with their private key; a plan whose author --as names without a key needs one approval more",
    )
    .option("--show-phone", "print phone numbers unmasked")
    .action(
      withContext(async (ctx, flags) => (await import("./saved-plans.js")).purchasesPlanCommand(ctx, flags)),
    );
}
