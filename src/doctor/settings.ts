// Checks of settings that need no network: the time zone the budget day and schedules use, and whether the
// webhook receiver's settings make sense together on the daemon's port.
import type { Config } from "../config/index.js";
import { type CheckResult, fail, pass, warn } from "./check.js";

export function checkTimeZone(config: Config, now: Date): CheckResult {
  const zones = new Set([config.timezone, ...config.purchases.flatMap((job) => job.timezone ?? [])]);
  const unknown = [...zones].filter((zone) => !zoneKnown(zone));
  if (unknown.length > 0)
    return fail(
      "timezone",
      `this Node.js does not know the time zone${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`,
      "run on a Node.js built with full ICU (the official builds and images are), or name an IANA zone it lists",
    );
  const local = new Intl.DateTimeFormat("en-GB", {
    timeZone: config.timezone,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "shortOffset",
  }).format(now);
  return pass("timezone", `${config.timezone}: it is ${local} there (the budget day and schedules use it)`);
}

function zoneKnown(zone: string): boolean {
  if (zone === "UTC") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone }).format(0);
    return Intl.supportedValuesOf("timeZone").includes(zone);
  } catch {
    return false;
  }
}

export function checkWebhooks(config: Config): CheckResult[] {
  const hooks = config.webhooks;
  if (!hooks.enabled) return [pass("webhooks", "the provider-notification receiver is off")];
  // A path the port answers itself (/healthz, …) is a config error (src/config/schema.ts): the config check fails.
  const results: CheckResult[] = [];
  const host = config.server.host;
  if (host === "127.0.0.1" || host === "::1" || host === "localhost")
    results.push(
      warn(
        "webhooks",
        `the receiver listens on ${host} (server.host): a provider outside this machine cannot deliver to it`,
        "set server.host to 0.0.0.0 (or the address the provider's deliveries reach) when webhooks are on",
      ),
    );
  if (hooks.auth === "hmac" && hooks.token_in === "path")
    results.push(
      warn(
        "webhooks",
        "webhooks.token_in is path, but webhooks.auth is hmac: the token settings are not used",
        "remove token_in, or set auth: token if the provider sends a token rather than a signature",
      ),
    );
  if (hooks.allow_from.length === 0)
    results.push(
      warn(
        "webhooks",
        "webhooks.allow_from is empty: any address may deliver (each delivery is still authenticated)",
        "list the provider's source addresses or ranges in webhooks.allow_from",
      ),
    );
  if (results.length === 0)
    results.push(
      pass(
        "webhooks",
        `the receiver takes ${hooks.auth === "hmac" ? `${hooks.algorithm} signatures` : "a token"} on ${hooks.path}, from ${hooks.allow_from.length} allowed source ranges`,
      ),
    );
  return results;
}
