import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  ZERO,
  formatMoney
} from "./chunk-57HFVDAX.js";

// dist/purchases/guards.js
function applyGuards(amounts, limits, state) {
  let daily = state.dailyCommitted;
  let run = state.runCommitted;
  let spentHere = ZERO;
  return amounts.map((amount) => {
    if (limits.dailyLimit && daily.plus(amount).gt(limits.dailyLimit)) {
      return refuse("daily_budget", `daily budget: ${formatMoney(daily)} committed today + ${formatMoney(amount)} > daily_limit ${formatMoney(limits.dailyLimit)}`);
    }
    if (limits.perRunLimit && run.plus(amount).gt(limits.perRunLimit)) {
      return refuse("run_budget", `per-run budget: ${formatMoney(run)} this run + ${formatMoney(amount)} > per_run_limit ${formatMoney(limits.perRunLimit)}`);
    }
    if (state.walletBalance !== void 0) {
      const after = state.walletBalance.minus(state.inFlight).minus(spentHere).minus(amount);
      if (after.lt(limits.minWalletBalance)) {
        return refuse("wallet_floor", `wallet floor: balance ${formatMoney(state.walletBalance)} less ${formatMoney(state.inFlight.plus(spentHere))} in flight less ${formatMoney(amount)} would be ${formatMoney(after)}, below min_wallet_balance ${formatMoney(limits.minWalletBalance)}`);
      }
    }
    daily = daily.plus(amount);
    run = run.plus(amount);
    spentHere = spentHere.plus(amount);
    return { ok: true };
  });
}
function refuse(code, reason) {
  return { ok: false, code, reason };
}
function budgetDay(instant, timeZone) {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit"
    });
    dayFormats.set(timeZone, format);
  }
  return format.format(instant);
}
var dayFormats = /* @__PURE__ */ new Map();

export {
  applyGuards,
  budgetDay
};
