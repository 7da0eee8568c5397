import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  summaryLine
} from "./chunk-AGXQD3VJ.js";
import {
  counted,
  formatAmount,
  formatInstant,
  phoneView
} from "./chunk-JZURMT7Q.js";
import "./chunk-CTB3ORUE.js";
import {
  everyDay,
  left,
  right,
  table,
  text
} from "./chunk-R6NDLW6F.js";
import {
  budgetDay
} from "./chunk-TEJ6QTWI.js";
import {
  formatDuration
} from "./chunk-4DGXMM26.js";
import {
  ZERO
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";

// dist/report/forecast-purchase-blocks.js
function jobBlocks(jobs, at) {
  if (jobs.length === 0)
    return [text("No purchase jobs are configured.")];
  return [
    table("jobs", [
      left("Job"),
      left("When"),
      left("Plan"),
      right("Live price"),
      right("Max price"),
      right("Fires in window"),
      left("Next fire after"),
      left("Status")
    ], jobs.map((job) => [
      job.job,
      when(job, at),
      job.planId ? `${job.network} ${job.planId} ${job.planName}` : job.requested,
      amount(job.price),
      amount(job.maxPrice),
      String(job.fires.length),
      job.nextFire ? at(job.nextFire) : "-",
      job.status === "ok" ? "ok" : `${job.status}: ${job.reason ?? ""}`
    ]))
  ];
}
function when(job, at) {
  if (!job.enabled)
    return "disabled";
  if (job.schedule)
    return `${job.schedule} (${job.timezone})`;
  if (job.at)
    return `at ${at(job.at)}${job.willNotFire ? ` (will not fire: ${job.willNotFire})` : ""}`;
  return "on demand only";
}
function runLabel(run, at) {
  if (run.kind === "fire")
    return `job ${run.job} fire ${at(run.fireTime)}`;
  return run.kind === "queued" ? "queued in the ledger" : "intake requests";
}
function runBlocks(report, at, view) {
  const runs = report.purchases.runs;
  if (runs.length === 0)
    return [text("Nothing is due in this window: no fire, no queued purchase, no intake request.")];
  return [
    table("runs", [
      left("When"),
      left("Run"),
      right("Recipients"),
      right("Buy"),
      right("Reject"),
      right("In ledger"),
      right("Duplicate"),
      right("Cost"),
      left("Note")
    ], runs.map((run) => [
      run.time.getTime() === report.from.getTime() ? `now (${at(run.time)})` : at(run.time),
      runLabel(run, at),
      String(run.candidates),
      String(run.toBuy),
      String(run.rejected),
      String(run.existing),
      String(run.duplicates),
      formatAmount(run.cost),
      view.text(runNote(run))
    ]))
  ];
}
function runNote(run) {
  const notes = [];
  if (run.error)
    notes.push(run.error);
  if (run.unknown > 0)
    notes.push(`${run.unknown} unknown (catalogue unavailable)`);
  if (run.refusedBy.length > 0)
    notes.push(`refused by ${run.refusedBy.join(", ")}`);
  return notes.join("; ");
}
function networkBlocks(p) {
  if (p.byNetwork.length === 0)
    return [text("Nothing would be bought.")];
  return [
    table("networks", [left("Network"), right("Purchases"), right("Cost")], [
      ...p.byNetwork.map((n) => [n.network, String(n.count), formatAmount(n.cost)]),
      ["total", String(p.totals.toBuy), formatAmount(p.totals.cost)]
    ])
  ];
}
function amount(value) {
  return value ? formatAmount(value) : "-";
}

// dist/report/forecast-money-blocks.js
function budgetChart(report) {
  const p = report.purchases;
  const days = everyDay(budgetDay(report.from, report.timezone), budgetDay(report.to, report.timezone));
  const byDay = new Map(p.byDay.map((d) => [d.day, d]));
  const limit = p.budget.dailyLimit;
  const span = days.length === 1 ? `on ${days[0]}` : `on any of the ${days.length} days from ${days[0]} to ${days.at(-1)}`;
  return {
    kind: "chart",
    name: "spend-by-day",
    title: "Budget by day: committed in the ledger and what this plan would buy",
    layers: [
      { name: "committed", label: "committed" },
      { name: "planned", label: "this plan" }
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
          { value: planned, text: formatAmount(planned) }
        ]
      };
    }),
    ...limit ? { limit: { label: "daily limit", value: limit, text: formatAmount(limit) } } : {},
    whenEmpty: `Nothing is committed or planned ${span}` + (limit ? `; the daily limit is ${formatAmount(limit)} a day.` : "; there is no daily limit.")
  };
}
function budgetBlocks(report, at) {
  const p = report.purchases;
  const runAt = (index) => index === null ? "-" : runLabel(p.runs[index], at);
  const blocks = [
    budgetChart(report),
    table("budget", [
      left("Day"),
      right("Committed"),
      right("This plan"),
      right("Purchases"),
      right("Daily limit"),
      right("Headroom"),
      left("Budget runs out at")
    ], p.byDay.map((d) => [
      d.day,
      formatAmount(d.committed),
      formatAmount(d.projected),
      String(d.count),
      d.dailyLimit ? formatAmount(d.dailyLimit) : "no limit",
      d.headroom ? formatAmount(d.headroom) : "-",
      runAt(d.runsOutAt)
    ]))
  ];
  const perRun = p.budget.perRunLimit;
  const refused = p.runs.filter((r) => r.refusedBy.includes("run_budget"));
  blocks.push(text(perRun ? `per_run_limit ${formatAmount(perRun)}: ${refused.length === 0 ? "no run reaches it" : `reached in ${refused.map((r) => runLabel(r, at)).join("; ")}`}.` : "per_run_limit: none.", refused.length > 0 ? "warning" : void 0));
  for (const d of p.byDay) {
    if (d.runsOutAt !== null) {
      blocks.push(text(`The daily budget of ${d.day} runs out at ${runAt(d.runsOutAt)}: later purchases that day are refused.`, "warning"));
    }
  }
  return blocks;
}
function walletBlocks(report, at) {
  const w = report.purchases.wallet;
  const floor = `min_wallet_balance ${formatAmount(w.minBalance)}`;
  if (!w.balance) {
    return [
      text(`The wallet balance is not known yet (the reseller reports it with each purchase); this plan would spend ${formatAmount(w.projectedSpend)}. The ${floor} is checked from the first purchase on.`, "note")
    ];
  }
  const blocks = [
    table("wallet", [left("Wallet"), right("Amount")], [
      [`last known balance${w.asOf ? ` (${at(w.asOf)})` : ""}`, formatAmount(w.balance)],
      ["in flight (not in that balance yet)", formatAmount(w.inFlight)],
      ["this plan would spend", formatAmount(w.projectedSpend)],
      ["projected balance", formatAmount(w.projectedBalance)],
      ["min_wallet_balance", formatAmount(w.minBalance)],
      ["headroom above the floor", formatAmount(w.headroom)]
    ])
  ];
  if (w.runsOutAt !== null) {
    const run = report.purchases.runs[w.runsOutAt];
    blocks.push(text(`The wallet floor (${floor}) stops purchases at ${runLabel(run, at)}.`, "warning"));
  }
  return blocks;
}
function priceBlocks(p, at) {
  const prices = p.prices;
  const blocks = [];
  if (!prices.recordedAt) {
    blocks.push(text("No earlier prices are recorded yet (each purchase run records the prices it bought at)."));
  } else if (prices.changes.length === 0) {
    blocks.push(text(`No plan this window uses changed price since the last run (${at(prices.recordedAt)}).`));
  } else {
    blocks.push(text(`Prices changed since the last run (${at(prices.recordedAt)}):`, "warning"));
    blocks.push(table("price-changes", [left("Network"), left("Plan"), right("Was"), right("Now"), right("Change")], prices.changes.map((c) => [
      c.network,
      `${c.planId} ${c.name}`,
      formatAmount(c.from),
      formatAmount(c.to),
      signed(c.to.minus(c.from))
    ])));
  }
  if (prices.otherChanges > 0)
    blocks.push(text(`${counted(prices.otherChanges, "other plan")} changed price.`));
  if (p.aboveMax.length === 0) {
    blocks.push(text("No live price is above a max_price."));
  } else {
    blocks.push(table("above-max", [left("Job"), left("Why"), right("Recipients")], p.aboveMax.map((a) => [a.job ?? a.source, a.reason, String(a.count)])));
  }
  if (p.unusablePlans.length > 0) {
    blocks.push(text("Listed plans that cannot be bought (never picked, never sent):", "warning"));
    blocks.push(table("unusable-plans", [left("Network"), left("Plan"), left("Why")], p.unusablePlans.map((u) => [u.network, u.planId, u.reason])));
  }
  return blocks;
}
function signed(value) {
  return value.gt(0) ? `+${formatAmount(value)}` : formatAmount(value);
}

// dist/report/forecast-websites.js
function websiteBlocks(report) {
  if (!report.websites) {
    const why = report.unknown.find((u) => u.part === "websites")?.reason ?? "the remote listing could not be read";
    return [text(`Unknown: ${why}. Nothing about the websites is planned.`, "error")];
  }
  const { plan, refusal } = report.websites;
  const shown = plan.entries.filter((entry) => entry.action !== "noop");
  const blocks = [];
  if (shown.length === 0)
    blocks.push(text("No changes: the analytics websites match the declared list."));
  else {
    blocks.push(table("websites", [left("Action"), left("Domain"), left("Id"), left("Detail")], shown.map((entry) => [entry.action, entry.domain, ids(entry), detail(entry)])));
  }
  if (refusal)
    blocks.push(text(`${refusal.message}.`, "warning"));
  blocks.push(text(summaryLine(plan.summary)));
  return blocks;
}
function ids(entry) {
  if ("ids" in entry)
    return entry.ids.join(", ");
  return "id" in entry ? String(entry.id) : "-";
}
function detail(entry) {
  if (entry.action === "create")
    return [entry.reason, diffText(entry.diff, false)].filter(Boolean).join("; ");
  if (entry.action === "update")
    return diffText(entry.diff, true);
  return "reason" in entry ? entry.reason ?? "" : "";
}
function diffText(diff, withFrom) {
  return Object.entries(diff).map(([field, change]) => withFrom ? `${field}: ${show(change.from)} \u2192 ${show(change.to)}` : `${field}: ${show(change.to)}`).join("; ");
}
function show(value) {
  if (value === null)
    return "(none)";
  if (value === "(sensitive)")
    return value;
  return Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
}

// dist/report/forecast-document.js
function forecastDocument(report, options) {
  const view = phoneView(options.showPhone);
  const at = (d) => formatInstant(d, report.timezone);
  const p = report.purchases;
  const sections = [];
  if (!report.complete)
    sections.push(unknownSection(report));
  sections.push({ id: "jobs", title: "Jobs", blocks: jobBlocks(p.jobs, at) }, { id: "runs", title: "Purchases due", blocks: runBlocks(report, at, view) }, { id: "networks", title: "Totals by network", blocks: networkBlocks(p) }, { id: "budget", title: "Budget by day", blocks: budgetBlocks(report, at) }, { id: "wallet", title: "Wallet", blocks: walletBlocks(report, at) }, { id: "prices", title: "Prices", blocks: priceBlocks(p, at) }, { id: "rejected", title: "Recipients that would be rejected", blocks: rejectedBlocks(report, at, view) }, { id: "websites", title: "Websites", blocks: websiteBlocks(report) });
  return {
    title: `topsync plan: the next ${windowText(report.to.getTime() - report.from.getTime())}`,
    facts: [
      ["window", `${at(report.from)} \u2192 ${at(report.to)} (${report.timezone})`],
      ["would buy", wouldBuy(report)],
      ["would not buy", `${p.totals.rejected} rejected, ${counted(p.totals.duplicates, "duplicate")}`],
      [
        "websites",
        report.websites ? summaryLine(report.websites.plan.summary).replace(/^Plan: /, "") : "unknown"
      ]
    ],
    status: status(report),
    sections
  };
}
function wouldBuy(report) {
  if (report.unknown.some((u) => u.part === "purchases"))
    return "unknown: the reseller could not be read";
  const t = report.purchases.totals;
  const unknown = t.unknown > 0 ? `, and ${t.unknown} unknown` : "";
  return `${counted(t.toBuy, "purchase")} for ${formatAmount(t.cost)}${unknown}`;
}
function windowText(ms) {
  return ms % 36e5 === 0 && ms <= 48 * 36e5 ? `${ms / 36e5}h` : formatDuration(ms);
}
function status(report) {
  if (!report.complete) {
    const parts = report.unknown.map((u) => u.part).join(", ");
    return {
      tone: "error",
      text: `this plan is incomplete: ${parts} could not be known (see "Unknown"). Do not treat it as the whole plan. Nothing was bought or changed.`
    };
  }
  const p = report.purchases;
  const changes = report.websites ? websiteChanges(report) : 0;
  if (!report.pending) {
    return {
      tone: "ok",
      text: "Nothing to do in this window: no purchase would be bought and no website changed."
    };
  }
  return {
    tone: "note",
    text: `Dry run, nothing was bought or changed: ${counted(p.totals.toBuy, "purchase")} for ${formatAmount(p.totals.cost)} and ${counted(changes, "website change")} are pending.`
  };
}
function websiteChanges(report) {
  const s = report.websites.plan.summary;
  return s.create + s.update + s.delete;
}
function unknownSection(report) {
  return {
    id: "unknown",
    title: "Unknown",
    blocks: [
      text("These parts could not be read, so the plan below leaves them out or marks them unknown:", "error"),
      table("unknown", [left("Part"), left("Why")], report.unknown.map((u) => [u.part, u.reason]))
    ]
  };
}
function rejectedBlocks(report, at, view) {
  const rejected = report.purchases.items.filter((i) => i.outcome === "reject" || i.outcome === "duplicate");
  const omitted = report.purchases.itemsOmitted;
  const more = omitted > 0 ? [text(`Only the first candidates are listed: ${omitted} more are counted in the totals.`)] : [];
  if (rejected.length === 0)
    return [text("None."), ...more];
  return [
    ...more,
    table("rejected", [left("Phone"), left("Run"), left("Code"), left("Why")], rejected.map((item) => [
      view.phone(item.phone),
      runLabel(report.purchases.runs[item.run], at),
      item.code ?? "",
      view.text(item.reason ?? "")
    ]))
  ];
}
export {
  forecastDocument
};
