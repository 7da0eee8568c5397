// Every notification's words, in one place: a message value (message.ts) rendered as plain text (email,
// Telegram), Slack blocks, or the JSON a webhook receives. Money is naira, phones are masked (the outbox holds them
// masked; every text is masked again here), and no secret survives: the last steps of each rendering redact the
// secrets it is given, in any encoding, then mask phones.
import { maskPhonesDeep } from "../log/mask.js";
import { parseMoney } from "../money.js";
import { inert } from "../text/inert.js";
import { redactSecretsDeep } from "../text/secrets.js";
import { cutText } from "../text/storable.js";
import { type NotifyMessage, openSinceOf } from "./message.js";

export interface RenderContext {
  /** The console's public URL: messages link to what they are about. */
  consoleUrl?: string;
  /** When the message is rendered (ages are counted to it). */
  now: Date;
  /** Secrets no rendering may carry (API keys, channel tokens and URLs, webhook secrets). */
  secrets: readonly string[];
  /**
   * The delivery's id (one message to one channel): the same on every try of it, so a receiver that got a message
   * whose answer was lost (a timeout) can tell the next try is the same message. Absent for `notify test`.
   */
  delivery?: string;
}

export interface RenderedText {
  subject: string;
  text: string;
}

/** "₦1,220", "₦1,220.50": whole naira without kobo. */
export function formatNaira(amount: string | null | undefined): string {
  if (amount === null || amount === undefined || !/^-?\d+(\.\d+)?$/.test(amount)) return "₦?";
  const fixed = parseMoney(amount).toFixed(2);
  const [whole = "0", kobo = "00"] = fixed.replace("-", "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${fixed.startsWith("-") ? "-" : ""}₦${grouped}${kobo === "00" ? "" : `.${kobo}`}`;
}

/** "17 min", "3 h 5 min", "2 d 4 h", "40 s". */
export function formatAge(fromIso: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(fromIso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type Facts = Record<string, unknown>;
/**
 * A fact as text. Facts hold text from outside (a provider's reason, a reference, a domain): shown as data, its
 * control characters, line breaks and bidi marks written out as escapes, so it cannot make lines of its own.
 */
const str = (value: unknown): string | undefined =>
  typeof value === "string" && value !== ""
    ? inert(value)
    : typeof value === "number"
      ? String(value)
      : undefined;

/** The headline: what happened, how much money, how old. */
export function headline(message: NotifyMessage, now: Date): string {
  const first = message.events[0]?.facts ?? {};
  const n = message.count;
  const money = message.total === null ? "" : `, ${formatNaira(message.total)}`;
  const oldest = n > 1 ? `, oldest ${formatAge(message.openSince ?? message.oldest, now)}` : "";
  const still = message.kind === "repeat" ? "Still open: " : "";
  if (message.test) return `topsync test message for channel ${message.test.channel}`;
  const resolved = message.kind === "resolved";
  switch (message.trigger) {
    case "in_doubt":
      return resolved
        ? `${plural(n, "in_doubt purchase")} resolved${money}`
        : `${still}${plural(n, "purchase")} in_doubt${message.total === null ? "" : `, ${formatNaira(message.total)} at risk`}${oldest}`;
    case "unverified":
      return resolved
        ? `${plural(n, "unverified purchase")} settled${money}`
        : `${still}${plural(n, "purchase")} unverified (bought, no final status)${money}${oldest}`;
    case "verify_mismatch":
      return resolved
        ? `${plural(n, "verify mismatch", "verify mismatches")} settled${money}`
        : `${still}${plural(n, "purchase")} whose verify answer disagrees${money}${oldest}`;
    case "price_mismatch":
      return `${still}${plural(n, "purchase")} charged above the listed price${money}`;
    case "reversed":
      return `${still}${plural(n, "purchase")} reversed by the provider after ${n === 1 ? "it" : "they"} succeeded${money}`;
    case "delivered_after_failure":
      return `${still}${plural(n, "purchase")} delivered and charged for by the provider after ${n === 1 ? "it" : "they"} failed${money}`;
    case "earlier_attempt_delivered":
      return `${still}${plural(n, "requeued purchase")} charged for an earlier attempt the provider delivered after all (the customer may have the data twice)${money}`;
    case "run_failed":
      return n === 1
        ? `${still}A purchase run stopped: ${str(first.reason) ?? "unknown reason"}`
        : `${still}${n} purchase runs stopped; the last: ${str(message.events[message.events.length - 1]?.facts.reason) ?? "unknown reason"}`;
    case "budget": {
      const top = message.events.reduce((best, e) => Math.max(best, Number(e.facts.threshold ?? 0)), 0);
      const last = message.events.find((e) => Number(e.facts.threshold) === top)?.facts ?? first;
      const spent = top >= 100 ? "spent" : `past ${top}%`;
      return `${still}Daily budget ${spent} on ${str(last.day) ?? "?"}: ${formatNaira(str(last.committed))} of ${formatNaira(str(last.limit))}`;
    }
    case "wallet_low":
      return resolved
        ? `Wallet back above ${formatNaira(str(first.clear_above))}: ${formatNaira(str(first.balance))}`
        : `${still}Wallet low: ${formatNaira(str(first.balance))}, below ${formatNaira(str(first.below))}`;
    case "website_drift":
      return `${still}Website drift: ${str(first.summary) ?? plural(n, "pass", "passes")}`;
    case "website_apply_failed":
      return `${still}Website pass: ${plural(Number(first.failed ?? n), "website")} failed to apply`;
    case "mass_delete_refused":
      return `${still}Website deletes refused: ${str(first.reason) ?? "too many deletes"}`;
    case "notification_unmatched":
      return `${still}${plural(n, "provider notification")} matched no purchase${money}`;
    case "missed_fire":
      return `${still}${plural(n, "job fire")} skipped`;
    case "digest":
      return `topsync daily digest ${str(first.day) ?? ""}`.trim();
    case "approval_needed":
      return `${still}${plural(n, "plan")} awaiting approval${money}`;
    case "approval_expiring":
      return `${still}${plural(n, "plan")} expiring before ${n === 1 ? "it is" : "they are"} applied${money}`;
    case "plan_expired":
      return `${plural(n, "plan")} expired${money}`;
  }
}

/** One line per listed event. */
function eventLine(message: NotifyMessage, facts: Facts, createdAt: string, now: Date): string {
  switch (message.trigger) {
    case "in_doubt":
    case "unverified":
    case "verify_mismatch":
    case "price_mismatch":
    case "reversed":
    case "delivered_after_failure":
    case "earlier_attempt_delivered":
      return purchaseLine(message, facts, createdAt, now);
    case "run_failed":
      return `run ${short(str(facts.run))}${facts.job ? ` (job ${str(facts.job)})` : ""}: ${str(facts.reason) ?? "?"}; claimed ${str(facts.claimed) ?? 0}, in_doubt ${str(facts.in_doubt) ?? 0}`;
    case "budget":
      return `${str(facts.threshold)}% of ${formatNaira(str(facts.limit))} on ${str(facts.day)}: ${formatNaira(str(facts.committed))} committed${facts.refused === true ? ", purchases refused" : ""}`;
    case "wallet_low":
      return `balance ${formatNaira(str(facts.balance))}; told below ${formatNaira(str(facts.below))}, all clear above ${formatNaira(str(facts.clear_above))}`;
    case "website_drift":
    case "website_apply_failed":
    case "mass_delete_refused": {
      const details = Array.isArray(facts.details) ? facts.details.map((d) => inert(String(d))) : [];
      return details.length > 0
        ? details.join("\n")
        : `pass ${str(facts.pass) ?? "?"}: ${str(facts.summary) ?? "?"}`;
    }
    case "approval_needed":
    case "approval_expiring":
    case "plan_expired":
      return `plan ${str(facts.plan) ?? "?"} (${str(facts.kind) ?? "?"}) by ${str(facts.author) ?? "?"}: ${formatNaira(str(facts.amount))}, ${plural(Number(facts.approvals_required ?? 0), "approval")} required${facts.expires_at ? `, expires ${str(facts.expires_at)}` : ""}`;
    case "notification_unmatched":
      return `notification ${str(facts.notification)}: reference ${str(facts.reference) ?? "?"}, ${formatNaira(str(facts.amount))}, phone ${str(facts.phone) ?? "?"}${facts.reason ? ` — ${str(facts.reason)}` : ""}`;
    case "missed_fire":
      return `job ${str(facts.job)}: fire ${str(facts.fire_time)} skipped — ${str(facts.reason) ?? "?"}`;
    case "digest":
      return digestLines(facts).join("\n");
    default:
      return Object.entries(facts)
        .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
        .join(", ");
  }
}

function short(id: string | undefined): string {
  return id ? id.slice(0, 8) : "?";
}

function purchaseLine(message: NotifyMessage, facts: Facts, createdAt: string, now: Date): string {
  const what = [str(facts.network), str(facts.plan)].filter(Boolean).join(" ");
  const parts = [
    `#${str(facts.purchase) ?? "?"}`,
    what,
    str(facts.phone),
    formatNaira(str(facts.amount)),
    facts.job ? `job ${str(facts.job)}` : undefined,
    facts.reference ? `ref ${str(facts.reference)}` : undefined,
  ].filter(Boolean);
  const why =
    message.kind === "resolved" ? `now ${str(facts.state)}` : (str(facts.note) ?? str(facts.reason));
  return `${parts.join(" · ")} (${formatAge(createdAt, now)} ago)${why ? ` — ${why}` : ""}`;
}

function digestLines(facts: Facts): string[] {
  const lines = [
    `spent today: ${formatNaira(str(facts.spent_today))}${facts.daily_limit ? ` of ${formatNaira(str(facts.daily_limit))} (${str(facts.budget_used_percent) ?? "?"}%)` : ""}`,
    `wallet: ${facts.wallet ? formatNaira(str(facts.wallet)) : "not reported yet"}`,
    `in_doubt: ${str(facts.in_doubt) ?? 0}, unverified: ${str(facts.unverified) ?? 0}, noted: ${str(facts.noted) ?? 0}`,
    `notifications failed (24 h): ${str(facts.notifications_failed) ?? 0}`,
  ];
  if (facts.alive) lines.push(`alive: ${str(facts.alive)}`);
  return lines;
}

/** Where a message's subject is in the console, when it has one. */
export function linkFor(
  message: NotifyMessage,
  consoleUrl: string | undefined,
  subject?: string,
): string | undefined {
  if (!consoleUrl) return undefined;
  const base = consoleUrl.replace(/\/+$/, "");
  const [kind, id] = (subject ?? "").split(/:(.*)/s);
  if (kind === "purchase" && id) return `${base}/purchases/${encodeURIComponent(id)}`;
  if (kind === "plan" && id) return `${base}/plans/${encodeURIComponent(id)}`;
  if (message.trigger.startsWith("website") || message.trigger === "mass_delete_refused")
    return `${base}/websites`;
  return base;
}

function lines(message: NotifyMessage, now: Date): string[] {
  // A repeat's ages count from when its episode opened, not from when the repeat was written.
  const listed = message.events.flatMap((event) =>
    eventLine(message, event.facts, openSinceOf(event.facts) ?? event.created_at, now).split("\n"),
  );
  const more = message.count - message.events.length;
  if (more > 0) listed.push(`… and ${more} more`);
  return message.test ? ["If you can read this, the channel works."] : listed;
}

/**
 * Redacted, then masked, whatever the renderer produced. In that order: a secret holding a run of digits shaped like
 * a phone number, masked first, was no longer the secret the redaction looks for, and went out all but four digits.
 */
function clean<T>(value: T, secrets: readonly string[]): T {
  return maskPhonesDeep(redactSecretsDeep(value, secrets)) as T;
}

/** Plain text (email, Telegram): the headline, one line per event, the console link. */
export function renderText(message: NotifyMessage, ctx: RenderContext): RenderedText {
  const subject = headline(message, ctx.now);
  const body = lines(message, ctx.now).map((line) => (message.trigger === "digest" ? line : `- ${line}`));
  const link = linkFor(message, ctx.consoleUrl, message.count === 1 ? message.events[0]?.subject : undefined);
  const ids = purchaseIds(message);
  const text = [
    subject,
    "",
    ...body,
    ...(ids.length > 0 ? ["", `purchases: ${ids.join(", ")}${message.count > ids.length ? ", …" : ""}`] : []),
    ...(link ? ["", link] : []),
  ].join("\n");
  return clean({ subject: `[topsync] ${subject}`, text }, ctx.secrets);
}

function purchaseIds(message: NotifyMessage): string[] {
  return message.events
    .map((e) => /^purchase:(\d+)$/.exec(e.subject)?.[1])
    .filter((id): id is string => id !== undefined);
}

const SLACK_SECTION_CHARS = 2900;

/** Slack's `{text, blocks}`: the headline as the notification text, then the list and the link as blocks. */
export function renderSlack(message: NotifyMessage, ctx: RenderContext): { text: string; blocks: unknown[] } {
  const title = headline(message, ctx.now);
  const body = lines(message, ctx.now)
    .map((line) => `• ${slackEscape(line)}`)
    .join("\n");
  const link = linkFor(message, ctx.consoleUrl, message.count === 1 ? message.events[0]?.subject : undefined);
  const blocks: unknown[] = [
    { type: "section", text: { type: "mrkdwn", text: `*${slackEscape(title)}*` } },
    ...(body ? [{ type: "section", text: { type: "mrkdwn", text: cut(body, SLACK_SECTION_CHARS) } }] : []),
    {
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: `${message.trigger}${message.kind === "open" ? "" : ` (${message.kind})`} · ${message.count} event${message.count === 1 ? "" : "s"}${link ? ` · <${link}|open in the console>` : ""}`,
        },
      ],
    },
  ];
  // The top-level text is what a phone's notification shows, and Slack reads it as mrkdwn too: escaped like the
  // blocks, or a provider's "<!channel>" in a headline pinged everyone and "<https://…|…>" showed a disguised link.
  return clean({ text: slackEscape(title), blocks }, ctx.secrets);
}

function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${cutText(text, max - 1)}…`;
}

/** The JSON a webhook receives: the message value, its headline and text, and the link. */
export function renderWebhook(message: NotifyMessage, ctx: RenderContext): Record<string, unknown> {
  const text = renderText(message, ctx);
  return clean(
    {
      type: "topsync.notification",
      ...(ctx.delivery === undefined ? {} : { id: ctx.delivery }),
      trigger: message.trigger,
      kind: message.kind,
      test: message.test !== undefined,
      count: message.count,
      total: message.total,
      oldest: message.oldest,
      newest: message.newest,
      headline: headline(message, ctx.now),
      text: text.text,
      events: message.events,
      link:
        linkFor(message, ctx.consoleUrl, message.count === 1 ? message.events[0]?.subject : undefined) ??
        null,
    },
    ctx.secrets,
  );
}
