// The two services as `topsync doctor` sees them: one read-only call each with the configured key (the reseller's
// networks, the first page of the analytics websites), and the skew of this machine's clock against the `Date`
// their answers carry.
import { createAnalyticsClient, createResellerClient } from "../clients.js";
import type { Clock } from "../clock.js";
import type { Config, ServiceConfig } from "../config/index.js";
import { AuthError, HttpError, type ServiceName } from "../http/errors.js";
import type { Logger } from "../log/logger.js";
import { type CheckResult, fail, pass, skip, warn } from "./check.js";

/** A clock further off than this from the services' is worth fixing: budget days, fires and signatures use it. */
export const SKEW_WARN_MS = 30_000;

interface Sighting {
  service: ServiceName;
  date: string;
  receivedAt: number;
}

export async function checkServices(config: Config, logger: Logger, clock: Clock): Promise<CheckResult[]> {
  const sightings: Sighting[] = [];
  const deps = (service: ServiceName) => ({
    logger,
    clock,
    onServerDate: (date: string, receivedAt: number) => sightings.push({ service, date, receivedAt }),
  });
  const reseller = createResellerClient(once(config.reseller), deps("reseller"));
  const analytics = createAnalyticsClient(once(config.analytics), deps("analytics"));
  try {
    const results = await Promise.all([
      probe("reseller", config.reseller, async () => {
        const networks = await reseller.listNetworks();
        return `${networks.length} networks listed`;
      }),
      probe("analytics", config.analytics, async () => {
        const { total } = await analytics.probe();
        return total === undefined ? "websites listed" : `${total} websites on the service`;
      }),
    ]);
    return [...results, checkSkew(sightings)];
  } finally {
    await Promise.all([reseller.http.destroy(), analytics.http.destroy()]);
  }
}

/** One try, no retries: doctor reports what it meets rather than waiting out a backoff. */
function once(service: ServiceConfig): ServiceConfig {
  return { ...service, retry: { ...service.retry, max_attempts: 1 } };
}

async function probe(
  name: ServiceName,
  service: ServiceConfig,
  call: () => Promise<string>,
): Promise<CheckResult> {
  const where = address(service.base_url);
  try {
    return pass(name, `${where} answers and takes the key: ${await call()}`);
  } catch (error) {
    if (error instanceof AuthError)
      return fail(
        name,
        `${name} refused the API key (HTTP ${error.status}) at ${where}`,
        `set ${name}.api_key (${name === "reseller" ? "RESELLER_API_KEY" : "ANALYTICS_API_KEY"} in the example config) to the key ${name} issued`,
      );
    if (error instanceof HttpError && error.code === "HTTP_TLS_UNTRUSTED")
      return fail(
        name,
        `${name} at ${where}: ${error.message}`,
        `if a private authority (or a TLS-inspecting proxy) signed its certificate, set ${name}.ca_file to that authority's PEM file`,
      );
    if (error instanceof HttpError && error.code === "HTTP_CA_FILE")
      return fail(name, error.message, `give ${name}.ca_file a readable PEM file of certificates`);
    if (error instanceof HttpError && error.outcome === "not_sent")
      return fail(
        name,
        `cannot reach ${name} at ${where}: ${error.message}`,
        `check ${name}.base_url, DNS, and that this machine may connect to it (a firewall, a proxy, a Kubernetes NetworkPolicy)`,
      );
    return fail(
      name,
      `${name} at ${where}: ${(error as Error).message}`,
      `check ${name}.base_url names the service's API, and the service's status`,
    );
  }
}

/** The URL without credentials, query or fragment. */
function address(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/$/, "")}`;
  } catch {
    return "(unreadable base_url)";
  }
}

function checkSkew(sightings: Sighting[]): CheckResult {
  const skews = sightings.flatMap((s) => {
    const at = Date.parse(s.date);
    return Number.isNaN(at) ? [] : [{ service: s.service, ms: s.receivedAt - at }];
  });
  if (skews.length === 0) return skip("clock", "no service answered with a Date header");
  // A Date is stamped in whole seconds when the answer leaves: the skew is known to about a second.
  const worst = skews.reduce((a, b) => (Math.abs(b.ms) > Math.abs(a.ms) ? b : a));
  const said = `${Math.round(Math.abs(worst.ms) / 1000)} s ${worst.ms > 0 ? "ahead of" : "behind"} ${worst.service}'s clock`;
  if (Math.abs(worst.ms) > SKEW_WARN_MS)
    return warn(
      "clock",
      `this machine's clock is ${said} (its Date header)`,
      "synchronise the clock (NTP: chrony or systemd-timesyncd): the budget day, fires, webhook timestamps and verification timing read it",
    );
  return pass("clock", `within ${SKEW_WARN_MS / 1000} s of the services' clocks (${said})`);
}
