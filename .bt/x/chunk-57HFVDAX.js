import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  big_default
} from "./chunk-TULZGMTI.js";

// dist/money.js
var DECIMAL = /^-?\d+(\.\d+)?$/;
function parseMoney(value) {
  const text = typeof value === "string" ? value.trim().replaceAll(",", "") : String(value);
  if (!DECIMAL.test(text))
    throw new RangeError(`"${String(value)}" is not a decimal amount`);
  return new big_default(text);
}
function isMoneyText(value) {
  return DECIMAL.test(value.trim().replaceAll(",", ""));
}
var ZERO = new big_default(0);
var MONEY_MAX = new big_default("999999999999.99");
function fitsLedger(value) {
  return value.abs().lte(MONEY_MAX);
}
function formatMoney(value) {
  return value.toFixed(2);
}
function sumMoney(values) {
  let total = ZERO;
  for (const v of values)
    total = total.plus(v);
  return total;
}

export {
  parseMoney,
  isMoneyText,
  ZERO,
  MONEY_MAX,
  fitsLedger,
  formatMoney,
  sumMoney
};
