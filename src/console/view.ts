// What every page and action is given: the config, the ledger, who asks, their session's CSRF token, the time;
// and the small pieces of markup pages share (a form with its hidden tokens, an amount, an instant).
import type { KeyObject } from "node:crypto";
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { parseMoney } from "../money.js";
import { formatAmount, formatInstant } from "../report/format.js";
import type { WebsiteApi } from "../websites/reconcile.js";
import { allowed, type ConsoleAction, type ConsoleUserView } from "./access.js";
import { html, type Markup } from "./html.js";
import { type PageFrame, page } from "./layout.js";
import { newToken } from "./sessions.js";

export interface ConsoleView {
  config: Config;
  database: Database;
  logger: Logger;
  base: string;
  user: ConsoleUserView;
  csrf: string;
  now: Date;
  /** The key this user's approvals made here are signed with (their own, or console.signing_key), if any. */
  signingKey?: KeyObject;
  /** Where that key is set, for messages. */
  signingKeyField?: string;
  /** The analytics client, for reads a page may make of the remote side (none at present). */
  analytics?: () => Promise<WebsiteApi>;
}

export function can(view: ConsoleView, action: ConsoleAction): boolean {
  return allowed(view.config.console, view.user, action);
}

export function frame(view: ConsoleView, current?: string): PageFrame {
  return {
    base: view.base,
    user: view.user,
    csrf: view.csrf,
    readOnly: view.config.console.read_only,
    current,
  };
}

export function render(view: ConsoleView, current: string | undefined, title: string, body: Markup): string {
  return page(frame(view, current), title, body);
}

/** A form that acts: posted to `action`, with the session's CSRF token and a one-time form token. */
export function actionForm(
  view: ConsoleView,
  options: { url: string; title: string; version?: string; button: string; danger?: boolean; id?: string },
  fields: Markup,
): Markup {
  return html`<form method="post" action="${options.url}" class="act"${options.id ? html` id="${options.id}"` : ""}>
<h3>${options.title}</h3>
<input type="hidden" name="_csrf" value="${view.csrf}">
<input type="hidden" name="_form" value="${newToken()}">
${options.version !== undefined ? html`<input type="hidden" name="_version" value="${options.version}">` : ""}
${fields}
<label for="${options.id ?? "f"}-reason">Reason (goes into the ledger)</label>
<textarea id="${options.id ?? "f"}-reason" name="reason" required maxlength="500"></textarea>
<p><button type="submit"${options.danger ? html` class="danger"` : ""}>${options.button}</button></p>
</form>`;
}

export function amount(text: string | null | undefined): string {
  if (text === null || text === undefined || text === "") return "-";
  try {
    return formatAmount(parseMoney(text));
  } catch {
    return text;
  }
}

export function instant(view: ConsoleView, at: Date | null | undefined): string {
  return at ? formatInstant(at, view.config.timezone) : "-";
}

export function notice(kind: "ok" | "error" | "info", text: string | Markup): Markup {
  return html`<div class="notice ${kind === "info" ? "" : kind}" role="${kind === "error" ? "alert" : "status"}">${text}</div>`;
}
