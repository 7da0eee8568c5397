// Rendering deploy/kubernetes with kubectl's kustomize, for the tests that read the manifests.
import { spawnSync } from "node:child_process";
import { parseAllDocuments } from "yaml";
import { ROOT } from "../helpers/cli.js";
import type { Tool } from "../helpers/tools.js";

/** kubectl, for `needs` (test/helpers/tools.ts): it must be on the PATH. */
export const KUBECTL: Tool = {
  name: "kubectl",
  install: "Debian's kubernetes-client package has it; .ci/run installs it",
  problem: () =>
    spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0
      ? undefined
      : "no kubectl on the PATH",
};

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read field by field in the checks
  spec?: any;
  data?: Record<string, string>;
}

/** `kubectl kustomize <dir>` (relative to the repository), as objects; throws with kubectl's words when it fails. */
export function kustomize(dir: string): KubeObject[] {
  const result = spawnSync("kubectl", ["kustomize", dir], { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`kubectl kustomize ${dir}: ${doc.errors[0]!.message}`);
    return doc.toJS() as KubeObject;
  });
}
