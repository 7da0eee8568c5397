// deploy/kubernetes: the base and the example overlay, rendered by kubectl's kustomize, are valid Kubernetes and
// prometheus-operator objects (their published API schemas), and hold what matters: the probes hit paths a live
// daemon answers, the ports are the config's server.port, the grace period covers the config's timeouts, no
// embedded database under several replicas, the pods run unprivileged, and the scrape keeps the daemon's `job` label.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Config, parseConfig } from "../../src/config/index.js";
import { DEFAULT_TOTAL_TIMEOUT_MS } from "../../src/http/service-client.js";
import { DaemonMetrics } from "../../src/server/metrics.js";
import { yaml } from "../config/helpers.js";
import { parsePrometheus } from "../daemon/prometheus.js";
import { ROOT } from "../helpers/cli.js";
import { needs } from "../helpers/tools.js";
import { KUBECTL, type KubeObject, kustomize } from "./kubectl.js";
import { useLiveDaemon } from "./live-daemon.js";

const kubectl = await needs(KUBECTL, "rendering deploy/kubernetes");

/** The model (schema and validator) of each kind the manifests may hold; any other kind fails the test. */
const MODELS: Record<string, new (object: never) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
};

const RENDERINGS = ["deploy/kubernetes", "deploy/kubernetes/overlays/example"];

function one(objects: KubeObject[], kind: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind);
  expect(
    found.map((o) => o.metadata.name),
    kind,
  ).toHaveLength(1);
  return found[0]!;
}

// biome-ignore lint/suspicious/noExplicitAny: a container of the rendered Deployment
type Container = any;

function containers(deployment: KubeObject): { init: Container[]; main: Container } {
  const pod = deployment.spec.template.spec;
  const main = pod.containers.find((c: Container) => c.name === "topsync");
  expect(main, "a container named topsync").toBeDefined();
  return { init: pod.initContainers ?? [], main };
}

/**
 * The config the pods read: the ConfigMap's file, with each ${VAR} the container's environment gives (a value,
 * or a stand-in for a Secret's key). A placeholder the environment does not give is a config error here.
 */
function podConfig(objects: KubeObject[]): Config {
  const deployment = one(objects, "Deployment");
  const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === "config");
  const map = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === volume.configMap.name);
  expect(map, `the ConfigMap ${volume.configMap.name} the config volume names`).toBeDefined();
  const env: Record<string, string> = {};
  for (const entry of containers(deployment).main.env ?? []) {
    if (entry.value !== undefined) env[entry.name] = entry.value;
    else if (entry.valueFrom?.secretKeyRef)
      env[entry.name] = entry.name.endsWith("DATABASE_URL")
        ? "postgres://from-the-secret@postgresql/topsync"
        : "from-the-secret";
  }
  return parseConfig(map!.data!["config.yaml"]!, "config.yaml", env).config;
}

const daemon = useLiveDaemon({}, kubectl);

describe.each(RENDERINGS)("kubectl kustomize %s", (dir) => {
  const objects = kubectl ? kustomize(dir) : [];

  it.runIf(kubectl)("renders objects that each pass the schema of their kind", () => {
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "ConfigMap",
      "ConfigMap",
      "Deployment",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "PrometheusRule",
      "Service",
      "ServiceMonitor",
    ]);
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `a schema for ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(
        () => new Model!(object as never).validate(),
        `${object.kind} ${object.metadata.name}`,
      ).not.toThrow();
    }
  });

  it.runIf(kubectl)("probes paths the daemon answers 200, on the port named for server.port", async () => {
    const config = podConfig(objects);
    const { main } = containers(one(objects, "Deployment"));
    const http = main.ports.find((p: { name: string }) => p.name === "http");
    expect(http.containerPort).toBe(config.server.port);
    const probes = { readinessProbe: "/readyz", livenessProbe: "/healthz", startupProbe: undefined };
    for (const [probe, path] of Object.entries(probes)) {
      const get = main[probe]?.httpGet;
      expect(get, `${probe} is an HTTP GET`).toBeDefined();
      if (path) expect(get.path, probe).toBe(path);
      expect([http.name, http.containerPort], `${probe}'s port`).toContain(get.port);
      const answer = await daemon().get(get.path);
      expect(answer.status, `${probe} ${get.path} on a live daemon`).toBe(200);
    }
    const service = one(objects, "Service");
    const ports = service.spec.ports as Array<{ name: string; targetPort: string | number }>;
    expect(ports.map((p) => p.targetPort)).toEqual(["http"]);
    const monitor = one(objects, "ServiceMonitor");
    expect(monitor.spec.endpoints.map((e: { port: string; path: string }) => [e.port, e.path])).toEqual([
      [ports[0]!.name, "/metrics"],
    ]);
    expect((await daemon().get("/metrics")).status).toBe(200);
  });

  it.runIf(kubectl)(
    "gives a stop longer than any call in flight may take, and keeps the embedded database to one replica",
    () => {
      const config = podConfig(objects);
      const deployment = one(objects, "Deployment");
      const longest = Math.max(
        config.reseller.timeout.total ?? DEFAULT_TOTAL_TIMEOUT_MS,
        config.analytics.timeout.total ?? DEFAULT_TOTAL_TIMEOUT_MS,
      );
      // The daemon lets calls in flight finish for shutdown_grace; Kubernetes kills it after the grace period.
      expect(
        config.server.shutdown_grace,
        "server.shutdown_grace covers timeout.total",
      ).toBeGreaterThanOrEqual(longest);
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
        config.server.shutdown_grace,
      );
      expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
      expect(config.database.url, "several replicas share PostgreSQL, never the embedded database").toMatch(
        /^postgres/,
      );
    },
  );

  it.runIf(kubectl)(
    "runs every container unprivileged on a read-only root, with resources and a writable /tmp",
    () => {
      const deployment = one(objects, "Deployment");
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.automountServiceAccountToken).toBe(false);
      const { init, main } = containers(deployment);
      expect(init.map((c: Container) => c.args.slice(2))).toEqual([["migrate"], ["doctor", "--quick"]]);
      expect(main.args.slice(2)).toEqual(["run"]);
      for (const container of [...init, main]) {
        expect(container.securityContext, container.name).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(container.resources.requests, container.name).toBeDefined();
        expect(container.resources.limits.memory, container.name).toBeDefined();
        const tmp = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/tmp");
        expect(
          pod.volumes.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir,
          `${container.name} /tmp`,
        ).toBeDefined();
        for (const entry of container.env.filter((e: Container) => e.valueFrom))
          expect(entry.valueFrom.secretKeyRef.name, entry.name).toBe("topsync");
      }
    },
  );

  it.runIf(kubectl)(
    "lets at most one pod be disrupted, and egress only to DNS, PostgreSQL and the services' ports",
    () => {
      const config = podConfig(objects);
      const labels = one(objects, "Deployment").spec.template.metadata.labels;
      const budget = one(objects, "PodDisruptionBudget");
      expect(budget.spec.maxUnavailable).toBe(1);
      expect(labels).toMatchObject(budget.spec.selector.matchLabels);
      const policy = one(objects, "NetworkPolicy");
      expect(labels).toMatchObject(policy.spec.podSelector.matchLabels);
      expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
      const servicePorts = [config.reseller.base_url, config.analytics.base_url].map((url) => {
        const parsed = new URL(url);
        return Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80));
      });
      const allowed = new Set(["UDP/53", "TCP/53", "TCP/5432", ...servicePorts.map((p) => `TCP/${p}`)]);
      const opened = (
        policy.spec.egress as Array<{ ports: Array<{ port: number; protocol: string }> }>
      ).flatMap((rule) => {
        expect(rule.ports, "every egress rule names its ports").toBeDefined();
        return rule.ports.map((p) => `${p.protocol}/${p.port}`);
      });
      expect(new Set(opened)).toEqual(allowed);
      expect(
        policy.spec.ingress.flatMap((r: { ports: Array<{ port: string }> }) => r.ports.map((p) => p.port)),
      ).toEqual(["http"]);
    },
  );

  it.runIf(kubectl)(
    "has Prometheus keep the daemon's job label (a purchase job's name), not replace it with the target's",
    async () => {
      // Prometheus sets `job` (and `instance`) on every target; a scraped label of that name is renamed
      // `exported_job` unless the scrape honours the target's own labels. topsync's job names travel in `job`.
      const { config } = parseConfig(yaml(), "config.yaml", {});
      const metrics = new DaemonMetrics(config);
      metrics.fire("staff", "skipped");
      const labels = new Set(
        parsePrometheus(await metrics.registry.metrics()).samples.flatMap((s) => Object.keys(s.labels)),
      );
      const reserved = ["job", "instance"].filter((name) => labels.has(name));
      expect(reserved, "the daemon exports a label Prometheus sets on targets").toEqual(["job"]);
      const monitor = one(objects, "ServiceMonitor");
      for (const endpoint of monitor.spec.endpoints)
        expect(endpoint.honorLabels, `ServiceMonitor endpoint ${endpoint.port}`).toBe(true);
    },
  );

  it.runIf(kubectl)(
    "carries the alert rules of deploy/prometheus and the dashboard of deploy/grafana as they are",
    () => {
      const rules = parse(readFileSync(`${ROOT}deploy/prometheus/topsync-rules.yaml`, "utf8"));
      expect(one(objects, "PrometheusRule").spec).toEqual({ groups: rules.groups });
      const dashboard = objects.find(
        (o) => o.kind === "ConfigMap" && o.metadata.labels?.grafana_dashboard === "1",
      );
      expect(dashboard?.data?.["topsync.json"]).toBe(
        readFileSync(`${ROOT}deploy/grafana/topsync.json`, "utf8"),
      );
    },
  );
});

it("has the README's scrape config keep the daemon's job label", () => {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const scrape = /```yaml\n(scrape_configs:[\s\S]*?)```/.exec(readme);
  expect(scrape, "README's scrape_configs example").not.toBeNull();
  const jobs = parse(scrape![1]!).scrape_configs as Array<{ job_name: string; honor_labels?: boolean }>;
  for (const job of jobs) expect(job.honor_labels, job.job_name).toBe(true);
});

it("has the generated manifests in step with their sources (tools/deploy-manifests.js --check)", () => {
  const check = spawnSync(process.execPath, ["tools/deploy-manifests.js", "--check"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect(check.status, check.stderr).toBe(0);
});
