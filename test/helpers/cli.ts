// Runs the compiled CLI (dist/cli.js, built by `npm test`) as a user would, capturing output and exit code.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli.cjs", import.meta.url));
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  /** stderr with the final JSON error line read back into the paragraph a terminal shows (readableStderr). */
  stderr: string;
  /** stderr as written: without a terminal, the final error is one JSON log line. */
  rawStderr: string;
}

/**
 * stderr as a person would read it: the CLI's last line, written as one JSON log record when stderr is not a
 * terminal (as in tests), turned back into `error: <message>` (and the stack, when there is one).
 */
export function readableStderr(stderr: string): string {
  return stderr
    .split("\n")
    .map((line) => {
      if (!line.startsWith("{") || !line.includes('"exitCode"')) return line;
      try {
        const record = JSON.parse(line) as { exitCode?: number; msg?: string; stack?: string };
        if (record.exitCode === undefined) return line;
        return `error: ${record.msg}${record.stack ? `\n${record.stack}` : ""}`;
      } catch {
        return line;
      }
    })
    .join("\n");
}

/**
 * Runs the CLI with `env` beside PATH. Progress lines are off unless a test asks for them (its own
 * TOPSYNC_PROGRESS_INTERVAL): a command slowed by a busy machine would otherwise log them into a stderr a test reads.
 */
export function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CliResult> {
  return runScript(CLI, args, env, cwd);
}

/** `runCli` of another entry point of the CLI (dist/cli.js, or a copy of the launcher elsewhere). */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  cwd = ROOT,
): Promise<CliResult> {
  if (!existsSync(script))
    throw new Error(`${script} is missing: run \`npm run build\` (npm test does it first)`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? "", TOPSYNC_PROGRESS_INTERVAL: "1h", ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: readableStderr(stderr), rawStderr: stderr });
      },
    );
  });
}

/** Environment that points the committed config.yaml at a sandbox. */
export function sandboxEnv(sandbox: { resellerUrl: string; analyticsUrl: string }): Record<string, string> {
  return { RESELLER_BASE_URL: sandbox.resellerUrl, ANALYTICS_BASE_URL: sandbox.analyticsUrl };
}
