// Tests that need a program from outside Node.js (promtool, Chromium). In CI (the CI variable set, as .ci/run
// and CI services set it) a missing one fails the run: a check that quietly did not run would leave CI green.
// Elsewhere what needs it is skipped, and the run says so in a banner on stderr.

export interface Tool {
  name: string;
  /** How to get it, for the message. */
  install: string;
  /** Why it cannot be used here, or undefined when it can. */
  problem(): Promise<string | undefined> | string | undefined;
}

/** Whether this run is CI's: CI set, and not to "false" or "0". */
export function inCi(): boolean {
  const ci = process.env.CI;
  return !!ci && ci !== "false" && ci !== "0";
}

const problems = new Map<Tool, Promise<string | undefined>>();
const warned = new Set<string>();

/**
 * Whether `what` (the tests that need the tool, as the message names them) can run. A missing tool throws in CI,
 * failing the test, or the file when called at its top; elsewhere it is false, after a banner on stderr. The tool
 * is checked once per test file.
 */
export async function needs(tool: Tool, what: string): Promise<boolean> {
  let problem = problems.get(tool);
  if (!problem) {
    problem = Promise.resolve(tool.problem());
    problems.set(tool, problem);
  }
  const why = await problem;
  if (why === undefined) return true;
  const message = `${what} needs ${tool.name}, which cannot be used here: ${why}`;
  if (inCi()) throw new Error(`${message}. CI is set, so a missing tool fails the run (${tool.install}).`);
  if (!warned.has(what)) {
    warned.add(what);
    const rule = "!".repeat(100);
    console.warn(`\n${rule}\nSKIPPED: ${message}.\nIn CI this fails the run; ${tool.install}.\n${rule}\n`);
  }
  return false;
}
