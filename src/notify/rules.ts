// Which channels a trigger goes to: the rules that name it (a `resolved` event only by rules with send_resolved),
// and the digest's own `to`. One function, so routing, `notify list` and the docs agree.
import type { NotificationsConfig } from "../config/index.js";
import type { NoticeKind, Trigger } from "./outbox/triggers.js";

export function channelsFor(config: NotificationsConfig, trigger: Trigger, kind: NoticeKind): string[] {
  const names = new Set<string>();
  for (const rule of config.rules) {
    if (!rule.on.includes(trigger)) continue;
    if (kind === "resolved" && !rule.send_resolved) continue;
    for (const name of rule.to) names.add(name);
  }
  if (trigger === "digest") for (const name of config.digest?.to ?? []) names.add(name);
  return [...names].filter((name) => config.channels[name] !== undefined).sort();
}

/** Whether any rule (or the digest) routes this trigger anywhere. */
export function isRouted(config: NotificationsConfig, trigger: Trigger): boolean {
  return channelsFor(config, trigger, "open").length > 0;
}
