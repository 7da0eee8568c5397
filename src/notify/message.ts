// A message as a value: the outbox rows of one trigger and kind grouped together, with what a person reads first
// (how many, the money, the oldest) and the first rows listed. Templates render it; the delivery row stores it.
import { type Money, parseMoney, sumMoney } from "../money.js";
import type { NoticeKind, Trigger } from "./outbox/triggers.js";

/** Events listed in a message; the rest are counted ("and 980 more"). */
export const LISTED_EVENTS = 20;

export interface OutboxEvent {
  id: number;
  trigger: Trigger;
  subject: string;
  episode: string;
  kind: NoticeKind;
  facts: Record<string, unknown>;
  created_at: string;
}

export interface NotifyMessage {
  trigger: Trigger;
  kind: NoticeKind;
  /** Events grouped into this message. */
  count: number;
  /** The first LISTED_EVENTS events, oldest first. */
  events: Array<Pick<OutboxEvent, "subject" | "episode" | "created_at" | "facts">>;
  /** The sum of the events' `amount` facts (purchase triggers), as a decimal string; null when none has one. */
  total: string | null;
  oldest: string;
  newest: string;
  /**
   * A repeat's: when the earliest of its episodes opened (their `open_since` fact), which its ages are counted from —
   * `oldest` is when the repeat rows were written.
   */
  openSince?: string;
  /** A message `notify test` sends, naming the channel. */
  test?: { channel: string };
}

/** Groups events of one trigger and kind (any order) into one message. */
export function groupMessage(
  trigger: Trigger,
  kind: NoticeKind,
  events: readonly OutboxEvent[],
): NotifyMessage {
  const sorted = [...events].sort((a, b) => a.id - b.id);
  const amounts: Money[] = [];
  for (const event of sorted) {
    const amount = event.facts.amount;
    if (typeof amount === "string" && /^\d+(\.\d+)?$/.test(amount)) amounts.push(parseMoney(amount));
  }
  const times = sorted.map((e) => e.created_at).sort();
  const opened = sorted
    .map((e) => openSinceOf(e.facts))
    .filter((at): at is string => at !== undefined)
    .sort();
  return {
    trigger,
    kind,
    count: sorted.length,
    events: sorted.slice(0, LISTED_EVENTS).map(({ subject, episode, created_at, facts }) => ({
      subject,
      episode,
      created_at,
      facts,
    })),
    total: amounts.length > 0 ? sumMoney(amounts).toFixed(2) : null,
    oldest: times[0] ?? new Date(0).toISOString(),
    newest: times[times.length - 1] ?? new Date(0).toISOString(),
    ...(opened.length > 0 ? { openSince: opened[0] } : {}),
  };
}

/** A repeat's `open_since` fact (the ledger's timestamp) as an ISO instant, or undefined. */
export function openSinceOf(facts: Record<string, unknown>): string | undefined {
  const at = typeof facts.open_since === "string" ? Date.parse(facts.open_since) : Number.NaN;
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}
