// Checks of settings that need no network: the time zone the budget day and schedules use, and whether the
// webhook receiver's settings make sense together on the daemon's port.
import type { Config } from "../config/index.js";
import { type CheckResult, fail, pass, warn } from "./check.js";

/** Paths the daemon's port answers itself; a webhook path must not shadow them. */
const SERVED_PATHS = ["/healthz", "/readyz", "/metrics"];

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
  const served = SERVED_PATHS.find((path) => hooks.path === path || hooks.path.startsWith(`${path}/`));
  if (served)
    return [
      fail(
        "webhooks",
        `webhooks.path ${hooks.path} is ${served}, which the daemon answers itself`,
        "set webhooks.path to a path of its own, e.g. /webhooks/reseller",
      ),
    ];
  const shadow = consoleShadow(config);
  if (shadow)
    return [
      fail(
        "webhooks",
        `${shadow}: the receiver would answer the console's pages`,
        "give webhooks.path and console.path paths of their own, neither under the other, e.g. /webhooks/reseller and /console",
      ),
    ];
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

/**
 * How the receiver's path takes the console's, when it does: the daemon asks the receiver first, so a webhooks.path
 * under console.path takes that page, and a console under a receiver that takes every path below its own (a token in
 * the path) loses all of them.
 */
function consoleShadow(config: Config): string | undefined {
  if (!config.console.enabled) return undefined;
  const hooks = config.webhooks;
  const hook = hooks.path.replace(/\/+$/, "") || "/";
  const console = config.console.path.replace(/\/+$/, "");
  const under = (path: string, base: string) =>
    path === base || path.startsWith(`${base === "/" ? "" : base}/`);
  if (under(hook, console)) return `webhooks.path ${hooks.path} is under console.path ${config.console.path}`;
  if (hooks.auth === "token" && hooks.token_in === "path" && under(console, hook))
    return `console.path ${config.console.path} is under webhooks.path ${hooks.path}, whose receiver takes every path below it`;
  return undefined;
}
