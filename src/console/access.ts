// Who may do what in the console, in one place: every page and every button asks `allowed`, so a handler cannot
// forget a check and a template cannot show a button its user may not press.
import type { ConsoleConfig, ConsoleRole } from "../config/index.js";

export type ConsoleAction = "resolve" | "requeue" | "cancel" | "approve" | "reject" | "suspend" | "resume";

const ROLE_ACTIONS: Record<ConsoleRole, readonly ConsoleAction[]> = {
  viewer: [],
  operator: ["resolve", "requeue", "cancel", "suspend", "resume"],
  approver: ["resolve", "requeue", "cancel", "suspend", "resume", "approve", "reject"],
};

export interface ConsoleUserView {
  name: string;
  role: ConsoleRole;
}

/** Whether `user` may do `action`: the role allows it, and the console is not read-only. */
export function allowed(config: ConsoleConfig, user: ConsoleUserView, action: ConsoleAction): boolean {
  if (config.read_only) return false;
  return ROLE_ACTIONS[user.role].includes(action);
}

/** Why `user` may not do `action`, for the refusal page. */
export function refusal(config: ConsoleConfig, user: ConsoleUserView, action: ConsoleAction): string {
  if (config.read_only) return "the console is read-only (console.read_only): it changes nothing";
  return `${user.name} is a ${user.role}, and a ${user.role} may not ${action}`;
}
