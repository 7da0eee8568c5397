// A strict reader of the Prometheus text exposition format (0.0.4), for checking /metrics: every line must
// be a HELP, a TYPE or a sample of a family whose TYPE came before it; anything else throws.
import { spawnSync } from "node:child_process";
import { expect } from "vitest";
import { needs, type Tool } from "../helpers/tools.js";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})? (\\S+)( -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"(,|$)/;
const SUFFIXES: Record<string, string[]> = {
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["_sum", "_count", ""],
  counter: [""],
  gauge: [""],
  untyped: [""],
};

export function parsePrometheus(text: string): Exposition {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((line, index) => {
    const where = `line ${index + 1}: ${line}`;
    if (line === "") return;
    const type = TYPE.exec(line);
    if (type) {
      if (types.has(type[1]!)) throw new Error(`${where}: a second TYPE for ${type[1]}`);
      types.set(type[1]!, type[2]!);
      return;
    }
    if (HELP.test(line)) return;
    if (line.startsWith("#")) throw new Error(`${where}: not a HELP or TYPE comment`);
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`${where}: not a sample`);
    const name = match[1]!;
    if (!familyOf(name, types)) throw new Error(`${where}: no TYPE declared for ${name}`);
    samples.push({ name, labels: parseLabels(match[3] ?? "", where), value: parseValue(match[4]!, where) });
  });
  return { types, samples };
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  for (const [family, type] of types) {
    if ((SUFFIXES[type] ?? [""]).some((suffix) => family + suffix === name)) return family;
  }
  return undefined;
}

function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`${where}: bad labels near ${rest}`);
    labels[match[1]!] = match[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    rest = rest.slice(match[0].length);
  }
  return labels;
}

function parseValue(text: string, where: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  // Prometheus reads values with Go's ParseFloat, which ignores case ("Nan" from prom-client is NaN).
  if (/^nan$/i.test(text)) return Number.NaN;
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value ${text}`);
  return Number(text);
}

/** The value of the one sample with this name and (at least) these labels; throws when not exactly one. */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = exposition.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}

/** Prometheus's own `promtool`, for `needs` (test/helpers/tools.ts): it must be on the PATH. */
export const PROMTOOL: Tool = {
  name: "promtool",
  install: "Debian's prometheus package has it; .ci/run installs it",
  problem: () =>
    spawnSync("promtool", ["--version"], { stdio: "ignore" }).status === 0
      ? undefined
      : "no promtool on the PATH",
};

/**
 * `promtool check metrics` over an exposition: exit 0 and no warning. Without promtool: a failure in CI, a
 * banner saying it was skipped elsewhere.
 */
export async function expectPromtoolClean(text: string): Promise<void> {
  if (!(await needs(PROMTOOL, "promtool check metrics over /metrics"))) return;
  const result = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  expect(`${result.stdout}${result.stderr}`.trim()).toBe("");
  expect(result.status).toBe(0);
}
