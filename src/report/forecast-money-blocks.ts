// The money parts of the plan document: the budget by day (chart and table), the per-run limit, the wallet
// projection against min_wallet_balance, and the prices that changed or are above max_price.
import { type Money, ZERO } from "../money.js";
import { budgetDay } from "../purchases/guards.js";
import { type Block, everyDay, left, right, table, text } from "./document.js";
import type { Forecast, PurchaseForecast } from "./forecast-model.js";
import { runLabel } from "./forecast-purchase-blocks.js";
import { counted, formatAmount } from "./format.js";

/**
 * Every budget day of the window: what the ledger has committed and what this plan would buy, stacked, with
 * the daily limit as a line; a sentence instead when nothing is committed or planned on any of them.
 */
function budgetChart(report: Forecast): Block {
  const p = report.purchases;
  const days = everyDay(budgetDay(report.from, report.timezone), budgetDay(report.to, report.timezone));
  const byDay = new Map(p.byDay.map((d) => [d.day, d]));
  const limit = p.budget.dailyLimit;
  const span =
    days.length === 1
      ? `on ${days[0]}`
      : `on any of the ${days.length} days from ${days[0]} to ${days.at(-1)}`;
  return {
    kind: "chart",
    name: "spend-by-day",
    title: "Budget by day: committed in the ledger and what this plan would buy",
    layers: [
      { name: "committed", label: "committed" },
      { name: "planned", label: "this plan" },
    ],
    bars: days.map((day) => {
      const committed = byDay.get(day)?.committed ?? ZERO;
      const planned = byDay.get(day)?.projected ?? ZERO;
      const total = committed.plus(planned);
      return {
        label: day,
        value: total,
        text: formatAmount(total),
        parts: [
          { value: committed, text: formatAmount(committed) },
          { value: planned, text: formatAmount(planned) },
        ],
      };
    }),
    ...(limit ? { limit: { label: "daily limit", value: limit, text: formatAmount(limit) } } : {}),
    whenEmpty:
      `Nothing is committed or planned ${span}` +
      (limit ? `; the daily limit is ${formatAmount(limit)} a day.` : "; there is no daily limit."),
  };
}

export function budgetBlocks(report: Forecast, at: (d: Date) => string): Block[] {
  const p = report.purchases;
  const runAt = (index: number | null) => (index === null ? "-" : runLabel(p.runs[index]!, at));
  const blocks: Block[] = [
    budgetChart(report),
    table(
      "budget",
      [
        left("Day"),
        right("Committed"),
        right("This plan"),
        right("Purchases"),
        right("Daily limit"),
        right("Headroom"),
        left("Budget runs out at"),
      ],
      p.byDay.map((d) => [
        d.day,
        formatAmount(d.committed),
        formatAmount(d.projected),
        String(d.count),
        d.dailyLimit ? formatAmount(d.dailyLimit) : "no limit",
        d.headroom ? formatAmount(d.headroom) : "-",
        runAt(d.runsOutAt),
      ]),
    ),
  ];
  // Approved plans not yet applied hold their totals back from today's budget (the claim counts them as spent).
  const reserved = (report.approvals?.open ?? []).reduce((sum, plan) => sum.plus(plan.reserved), ZERO);
  if (reserved.gt(0))
    blocks.push(
      text(
        `Committed today includes ${formatAmount(reserved)} reserved by approved plans not yet applied (under Approvals): counted as spent until they are applied or expire.`,
        "note",
      ),
    );
  const perRun = p.budget.perRunLimit;
  const refused = p.runs.filter((r) => r.refusedBy.includes("run_budget"));
  blocks.push(
    text(
      perRun
        ? `per_run_limit ${formatAmount(perRun)}: ${refused.length === 0 ? "no run reaches it" : `reached in ${refused.map((r) => runLabel(r, at)).join("; ")}`}.`
        : "per_run_limit: none.",
      refused.length > 0 ? "warning" : undefined,
    ),
  );
  for (const d of p.byDay) {
    if (d.runsOutAt !== null) {
      blocks.push(
        text(
          `The daily budget of ${d.day} runs out at ${runAt(d.runsOutAt)}: later purchases that day are refused.`,
          "warning",
        ),
      );
    }
  }
  return blocks;
}

export function walletBlocks(report: Forecast, at: (d: Date) => string): Block[] {
  const w = report.purchases.wallet;
  const floor = `min_wallet_balance ${formatAmount(w.minBalance)}`;
  if (!w.balance) {
    return [
      text(
        `The wallet balance is not known yet (the reseller reports it with each purchase); this plan would spend ${formatAmount(w.projectedSpend)}. The ${floor} is checked from the first purchase on.`,
        "note",
      ),
    ];
  }
  const blocks: Block[] = [
    table(
      "wallet",
      [left("Wallet"), right("Amount")],
      [
        [`last known balance${w.asOf ? ` (${at(w.asOf)})` : ""}`, formatAmount(w.balance)],
        ["in flight (not in that balance yet)", formatAmount(w.inFlight)],
        ["this plan would spend", formatAmount(w.projectedSpend)],
        ["projected balance", formatAmount(w.projectedBalance!)],
        ["min_wallet_balance", formatAmount(w.minBalance)],
        ["headroom above the floor", formatAmount(w.headroom!)],
      ],
    ),
  ];
  if (w.runsOutAt !== null) {
    const run = report.purchases.runs[w.runsOutAt]!;
    blocks.push(text(`The wallet floor (${floor}) stops purchases at ${runLabel(run, at)}.`, "warning"));
  }
  return blocks;
}

export function priceBlocks(p: PurchaseForecast, at: (d: Date) => string): Block[] {
  const prices = p.prices;
  const blocks: Block[] = [];
  if (!prices.recordedAt) {
    blocks.push(
      text("No earlier prices are recorded yet (each purchase run records the prices it bought at)."),
    );
  } else if (prices.changes.length === 0) {
    blocks.push(
      text(`No plan this window uses changed price since the last run (${at(prices.recordedAt)}).`),
    );
  } else {
    blocks.push(text(`Prices changed since the last run (${at(prices.recordedAt)}):`, "warning"));
    blocks.push(
      table(
        "price-changes",
        [left("Network"), left("Plan"), right("Was"), right("Now"), right("Change")],
        prices.changes.map((c) => [
          c.network,
          `${c.planId} ${c.name}`,
          formatAmount(c.from),
          formatAmount(c.to),
          signed(c.to.minus(c.from)),
        ]),
      ),
    );
  }
  if (prices.otherChanges > 0)
    blocks.push(text(`${counted(prices.otherChanges, "other plan")} changed price.`));
  if (p.aboveMax.length === 0) {
    blocks.push(text("No live price is above a max_price."));
  } else {
    blocks.push(
      table(
        "above-max",
        [left("Job"), left("Why"), right("Recipients")],
        p.aboveMax.map((a) => [a.job ?? a.source, a.reason, String(a.count)]),
      ),
    );
  }
  if (p.unusablePlans.length > 0) {
    blocks.push(text("Listed plans that cannot be bought (never picked, never sent):", "warning"));
    blocks.push(
      table(
        "unusable-plans",
        [left("Network"), left("Plan"), left("Why")],
        p.unusablePlans.map((u) => [u.network, u.planId, u.reason]),
      ),
    );
  }
  return blocks;
}

function signed(value: Money): string {
  return value.gt(0) ? `+${formatAmount(value)}` : formatAmount(value);
}
