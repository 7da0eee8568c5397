// Writes the two Kubernetes objects of deploy/kubernetes/base that wrap a file kept elsewhere, which kustomize
// cannot read from outside the base's folder: the PrometheusRule (from deploy/prometheus/topsync-rules.yaml, the
// one copy of the alert rules, which promtool tests) and the Grafana dashboard's ConfigMap (from
// deploy/grafana/topsync.json). `node tools/deploy-manifests.js` writes them; `--check` exits 1 when either
// differs from what it would write (test/deploy/kubernetes.test.ts runs it).
import { readFileSync, writeFileSync } from "node:fs";
import { parse, stringify } from "yaml";

const root = new URL("../", import.meta.url);
const read = (path) => readFileSync(new URL(path, root), "utf8");

const GENERATED = (source) =>
  `# Generated from ${source} by \`node tools/deploy-manifests.js\`: edit that file, then run it.\n`;

function prometheusRule() {
  const { groups } = parse(read("deploy/prometheus/topsync-rules.yaml"));
  const object = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: { name: "topsync", labels: { "app.kubernetes.io/name": "topsync" } },
    spec: { groups },
  };
  return GENERATED("deploy/prometheus/topsync-rules.yaml") + stringify(object, { lineWidth: 0 });
}

function dashboard() {
  const json = read("deploy/grafana/topsync.json");
  JSON.parse(json); // a dashboard that is not JSON fails here, not in Grafana
  const object = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "topsync-grafana-dashboard",
      // Grafana's dashboard sidecar (the grafana chart's sidecar.dashboards) loads ConfigMaps with this label.
      labels: { "app.kubernetes.io/name": "topsync", grafana_dashboard: "1" },
    },
    data: { "topsync.json": json },
  };
  return GENERATED("deploy/grafana/topsync.json") + stringify(object, { lineWidth: 0 });
}

const outputs = {
  "deploy/kubernetes/base/prometheusrule.yaml": prometheusRule(),
  "deploy/kubernetes/base/grafana-dashboard.yaml": dashboard(),
};

const check = process.argv.includes("--check");
let stale = 0;
for (const [path, text] of Object.entries(outputs)) {
  if (!check) {
    writeFileSync(new URL(path, root), text);
    continue;
  }
  let current = "";
  try {
    current = read(path);
  } catch {}
  if (current !== text) {
    stale++;
    console.error(`${path} is not what tools/deploy-manifests.js writes from its source: run it`);
  }
}
process.exit(stale > 0 ? 1 : 0);
