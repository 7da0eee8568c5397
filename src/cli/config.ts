// `topsync config check` and `topsync config schema`.
import { ConfigError, checkConfigFiles, configJsonSchema, loadConfig } from "../config/index.js";
import type { GlobalOptions } from "./context.js";
import { renderJson, write } from "./output.js";

export async function configCheckCommand(globals: GlobalOptions): Promise<void> {
  const loaded = await loadConfig(globals.config, process.env);
  const { config, file, warnings } = loaded;
  const fileIssues = await checkConfigFiles(loaded);
  if (fileIssues.length > 0) throw new ConfigError(fileIssues);
  for (const w of warnings)
    process.stderr.write(`warning: ${w.file}:${w.line}:${w.column}: ${w.path}: ${w.message}\n`);
  const summary = {
    file,
    valid: true,
    jobs: config.purchases.length,
    websites: config.websites.items.length,
    database: config.database.url ? "postgresql" : "embedded (PGlite)",
    warnings: warnings.length,
  };
  if (globals.json) return write(renderJson(summary));
  write(
    `${file}: valid — ${summary.jobs} purchase jobs, ${summary.websites} websites, database ${summary.database}` +
      `${warnings.length ? `, ${warnings.length} warnings` : ""}\n`,
  );
}

export async function configSchemaCommand(): Promise<void> {
  write(renderJson(configJsonSchema()));
}
