import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/cli/websites-commands.js
import { createInterface } from "node:readline/promises";
var processIo = {
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
  }
};
async function load() {
  const [reconcile, render, guards, model, database, output] = await Promise.all([
    import("./reconcile-IPLGYVQ5.js"),
    import("./render-DMLXJH3K.js"),
    import("./guards-VZQPPGEZ.js"),
    import("./model-OCXESROM.js"),
    import("./database-W3ZX4FYZ.js"),
    import("./output-A4PQKQTT.js")
  ]);
  return { ...reconcile, ...render, ...guards, ...model, ...database, ...output };
}
async function websitesPlanCommand(ctx, flags, io = processIo) {
  const m = await load();
  const { db } = await m.openLedger(ctx);
  const deps = m.reconcileDeps(ctx.config, ctx.analytics(), db, { logger: ctx.logger });
  const { plan } = await m.reconcile(deps, { mode: "plan" });
  const refusal = m.deleteRefusal(plan, {
    maxDeletes: ctx.config.websites.max_deletes,
    allowMassDelete: false
  });
  const json = flags.json || ctx.globals.json;
  io.write(json ? m.renderJson(m.planJson(plan, refusal)) : m.renderPlanText(plan, refusal));
  if (!plan.remote.complete)
    return 1;
  return flags.detailedExitcode && m.hasChanges(plan) ? 2 : 0;
}
async function websitesApplyCommand(ctx, flags, io = processIo) {
  const { UsageError } = await import("./errors-EUBLKOO4.js");
  if (!flags.autoApprove && !io.isTTY) {
    throw new UsageError("not asking on a non-interactive terminal; pass --auto-approve to apply the plan without asking", "NEEDS_CONFIRMATION");
  }
  const m = await load();
  if (ctx.config.websites.mode === "observe") {
    ctx.logger.info("websites.mode is observe: the loop only reports, but this apply was asked for explicitly");
  }
  const { db } = await m.openLedger(ctx);
  const deps = m.reconcileDeps(ctx.config, ctx.analytics(), db, { logger: ctx.logger });
  const allowMassDelete = flags.allowMassDelete ?? false;
  const limits = { maxDeletes: ctx.config.websites.max_deletes, allowMassDelete };
  const pass = await m.reconcile(deps, {
    mode: "apply",
    allowMassDelete,
    confirm: async (plan) => {
      io.write(m.renderPlanText(plan, m.deleteRefusal(plan, limits)));
      if (flags.autoApprove)
        return true;
      const answer = await io.ask("\nApply these changes to the analytics websites? [y/N] ");
      return /^y(es)?$/i.test(answer.trim());
    }
  });
  if (!m.hasChanges(pass.plan)) {
    io.write(m.renderPlanText(pass.plan));
    return pass.plan.remote.complete ? 0 : 1;
  }
  if (pass.status === "cancelled") {
    io.write("Apply cancelled; nothing was changed.\n");
    return 0;
  }
  io.write(`
${m.renderApplyText(pass.applied)}`);
  return pass.errors.length > 0 ? 1 : 0;
}
async function websitesImportCommand(ctx, domains, io = processIo) {
  const [{ importWebsites }, { openLedger }] = await Promise.all([
    import("./import-4WVSM3YS.js"),
    import("./database-W3ZX4FYZ.js")
  ]);
  const { db } = await openLedger(ctx);
  const results = await importWebsites(ctx.analytics(), db, domains);
  for (const result of results) {
    const note = result.result === "imported" ? "imported" : "already owned by topsync";
    io.write(`${result.domain} (id ${result.id}): ${note}
`);
  }
  return 0;
}
function exitWith(code) {
  if (code !== 0)
    process.exitCode = code;
}
function registerWebsiteCommands(websites, withContext) {
  websites.command("plan").description("show what apply would change (makes no change anywhere)").option("--json", "print the plan as JSON (format_version 1)").option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are, 1 on error").action(withContext(async (ctx, flags) => exitWith(await websitesPlanCommand(ctx, flags))));
  websites.command("apply").description("make the analytics websites match the declared list (asks first on a terminal)").option("--auto-approve", "apply without asking").option("--allow-mass-delete", "allow more deletes than websites.max_deletes").action(withContext(async (ctx, flags) => exitWith(await websitesApplyCommand(ctx, flags))));
  websites.command("import").description("adopt existing remote websites, so topsync owns them (and may prune them)").argument("<domain...>", "domains of remote websites").action(withContext(async (ctx, domains) => exitWith(await websitesImportCommand(ctx, domains))));
}

export {
  websitesPlanCommand,
  websitesApplyCommand,
  registerWebsiteCommands
};
