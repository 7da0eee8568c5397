import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  maskPhone,
  maskPhonesIn
} from "./chunk-CTB3ORUE.js";
import {
  formatDuration
} from "./chunk-4DGXMM26.js";

// dist/report/format.js
var CURRENCY = "NGN";
function formatAmount(value) {
  const [whole, fraction] = value.abs().toFixed(2).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${CURRENCY} ${value.lt(0) ? "-" : ""}${grouped}.${fraction}`;
}
function formatInstant(instant, timeZone) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  }).formatToParts(instant).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}
function formatLatency(ms) {
  if (ms < 1e3)
    return `${Math.round(ms)}ms`;
  if (ms < 6e4)
    return `${(Math.round(Math.round(ms) / 100) / 10).toFixed(1)}s`;
  return formatDuration(ms);
}
function formatAge(ms) {
  if (ms < 6e4)
    return formatDuration(Math.max(0, ms));
  const minutes = Math.floor(ms / 6e4);
  if (minutes >= 2 * 24 * 60)
    return formatDuration(Math.floor(minutes / 60) * 36e5);
  return formatDuration(minutes * 6e4);
}
function formatPercent(part, whole) {
  if (whole === 0)
    return void 0;
  return `${(Math.round(part * 1e3 / whole) / 10).toFixed(1)}%`;
}
function counted(n, noun, plural = `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}
function phoneView(showPhone) {
  if (showPhone)
    return { phone: (value) => value, text: (value) => value };
  return { phone: maskPhone, text: maskPhonesIn };
}

export {
  CURRENCY,
  formatAmount,
  formatInstant,
  formatLatency,
  formatAge,
  formatPercent,
  counted,
  phoneView
};
