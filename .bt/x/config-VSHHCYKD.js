import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  renderJson
} from "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import {
  ConfigError,
  checkConfigFiles,
  configJsonSchema,
  loadConfig
} from "./chunk-GJL2AOOX.js";
import "./chunk-76UW4DC7.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-4DGXMM26.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";

// dist/cli/config.js
async function configCheckCommand(globals) {
  const loaded = await loadConfig(globals.config, process.env);
  const { config, file, warnings } = loaded;
  const fileIssues = await checkConfigFiles(loaded);
  if (fileIssues.length > 0)
    throw new ConfigError(fileIssues);
  for (const w of warnings)
    process.stderr.write(`warning: ${w.file}:${w.line}:${w.column}: ${w.path}: ${w.message}
`);
  const summary = {
    file,
    valid: true,
    jobs: config.purchases.length,
    websites: config.websites.items.length,
    database: config.database.url ? "postgresql" : "embedded (PGlite)",
    warnings: warnings.length
  };
  if (globals.json)
    return write(renderJson(summary));
  write(`${file}: valid \u2014 ${summary.jobs} purchase jobs, ${summary.websites} websites, database ${summary.database}${warnings.length ? `, ${warnings.length} warnings` : ""}
`);
}
async function configSchemaCommand() {
  write(renderJson(configJsonSchema()));
}
export {
  configCheckCommand,
  configSchemaCommand
};
