// `topsync doctor [--json] [--quick]`: runs the checks (src/doctor) and prints them; exit 1 when one failed.
import type { SettingsCheck } from "../doctor/run.js";
import { ExitCode } from "../errors.js";
import { createLogger } from "../log/logger.js";
import { inertLines } from "../text/inert.js";
import type { GlobalOptions } from "./context.js";
import { renderJson, write } from "./output.js";

/**
 * Checks of settings owned by parts above doctor, each a SettingsCheck (config in, CheckResults out): the web
 * console's (its signing key readable, its approvers able to sign, TLS in front of it). Loaded with the command.
 */
async function settingsChecks(): Promise<SettingsCheck[]> {
  const { checkConsole } = await import("../console/settings.js");
  return [checkConsole];
}

const MARK = { pass: "ok  ", warn: "WARN", fail: "FAIL", skip: "skip" } as const;

export async function doctorCommand(globals: GlobalOptions, flags: { quick?: boolean }): Promise<void> {
  const { runDoctor } = await import("../doctor/run.js");
  const logger = createLogger({ level: globals.logLevel ?? "warn" });
  const report = await runDoctor({
    configFile: globals.config,
    env: process.env,
    quick: flags.quick === true,
    logger,
    settingsChecks: await settingsChecks(),
  });
  if (globals.json) write(renderJson(report));
  else {
    const width = Math.max(...report.checks.map((c) => c.name.length));
    const lines = report.checks.map((check) => {
      const head = `${MARK[check.status]}  ${check.name.padEnd(width)}  ${indent(check.message, width + 8)}`;
      return check.fix && check.status !== "pass"
        ? `${head}\n${" ".repeat(width + 8)}fix: ${check.fix}`
        : head;
    });
    const count = (status: string) => report.checks.filter((c) => c.status === status).length;
    write(`${lines.join("\n")}\n${count("fail")} failed, ${count("warn")} warned, ${count("pass")} passed\n`);
  }
  if (!report.ok) process.exitCode = ExitCode.failure;
}

/** A message over several lines, its later lines under its first; a service's words cannot act on the terminal. */
function indent(text: string, by: number): string {
  return inertLines(text).replace(/\n/g, `\n${" ".repeat(by)}`);
}
