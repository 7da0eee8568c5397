// The files a config names, checked by `topsync config check`: every job's `recipients_file` exists, is a
// regular file and can be read, and each service's `ca_file` holds certificates. Run time does not rely on this
// check (a file can change after it): a recipients file that cannot be read fails that job's fire alone, and a
// `ca_file` that cannot be used fails every call to its service, unsent.
import { fileProblem } from "../file-problem.js";
import type { ConfigIssue, LoadedConfig } from "./load.js";

export async function checkConfigFiles(loaded: LoadedConfig): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  for (const service of ["reseller", "analytics"] as const) {
    const file = loaded.config[service].ca_file;
    if (file === undefined) continue;
    const { readCaFile } = await import("../http/ca-file.js");
    const read = await readCaFile(file);
    if (read.ok) continue;
    const { line, column } = loaded.positionOf([service, "ca_file"]);
    issues.push({
      file: loaded.file,
      line,
      column,
      path: `${service}.ca_file`,
      message: `${file} ${read.problem}`,
    });
  }
  for (const [index, job] of loaded.config.purchases.entries()) {
    if (job.recipients_file === undefined) continue;
    const problem = await fileProblem(job.recipients_file);
    if (problem === undefined) continue;
    const where = ["purchases", index, "recipients_file"];
    const { line, column } = loaded.positionOf(where);
    issues.push({
      file: loaded.file,
      line,
      column,
      path: `purchases[${index}].recipients_file (job ${JSON.stringify(job.name)})`,
      message: `${job.recipients_file} ${problem}`,
    });
  }
  return issues;
}
