// Layers only look down (README "How it fits together"): a module may import its own folder and folders of a
// lower layer, never a folder beside or above its own; and no import cycle between files. Run by `npm run lint`.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * Top to bottom. A folder (or root file) is named by its first path segment under src/, or by a longer path when
 * one is listed (notify/outbox, the outbox writer the ledger calls, sits far below the rest of notify/).
 */
export const LAYERS = [
  ["cli.ts"],
  ["cli.cts"],
  ["cli"],
  ["schedule"],
  ["console"],
  ["report", "server", "doctor"],
  ["plans", "notify"],
  ["purchases", "websites", "sandbox", "clients.ts"],
  ["config"],
  ["notify/outbox"],
  ["reseller", "analytics"],
  ["http", "db"],
  ["time", "log", "text", "package-root.ts", "money.ts", "duration.ts", "clock.ts", "errors.ts", "semaphore.ts", "v8-flags.ts", "timings.ts", "file-problem.ts", "own-entry.ts", "source-address.ts"],
];

const root = resolve(dirname(new URL(import.meta.url).pathname), "..", "src");
const rank = new Map(LAYERS.flatMap((names, i) => names.map((name) => [name, LAYERS.length - i])));

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.c?ts$/.test(entry.name) ? [path] : [];
  });
}

const NESTED = LAYERS.flat().filter((name) => name.includes("/"));

function unit(file) {
  const path = relative(root, file);
  return NESTED.find((name) => path.startsWith(`${name}/`)) ?? path.split("/")[0];
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^"';]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|[\s;])import\s+["']([^"']+)["']/g;

function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const found = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec?.startsWith(".")) found.push(resolve(dirname(file), spec).replace(/\.js$/, ".ts").replace(/\.cjs$/, ".cts"));
  }
  return found;
}

const problems = [];
const graph = new Map();
for (const file of files(root)) {
  const from = unit(file);
  const own = rank.get(from);
  if (own === undefined) problems.push(`src/${relative(root, file)}: its folder "${from}" has no layer in tools/check-layers.js`);
  const targets = importsOf(file);
  graph.set(file, targets);
  for (const target of targets) {
    const to = unit(target);
    if (to === from || own === undefined) continue;
    const theirs = rank.get(to);
    if (theirs === undefined || theirs >= own) {
      const where =
        theirs === undefined ? "has no layer" : theirs === own ? `sits beside "${from}"` : `sits above "${from}"`;
      problems.push(`src/${relative(root, file)} imports src/${relative(root, target)}: "${to}" ${where}`);
    }
  }
}

// Cycles between files, by depth-first search.
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, "open");
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (!graph.has(next)) continue;
    if (state.get(next) === "open") {
      const cycle = stack.slice(stack.indexOf(next)).concat(next).map((f) => `src/${relative(root, f)}`);
      problems.push(`import cycle: ${cycle.join(" → ")}`);
    } else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, "done");
}
for (const file of graph.keys()) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  process.stderr.write(`${problems.join("\n")}\n${problems.length} layering problem(s)\n`);
  process.exit(1);
}
process.stdout.write(`layers: ${graph.size} modules, every import looks down, no cycles\n`);
