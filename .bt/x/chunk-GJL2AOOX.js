import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  cronNextFire,
  nodeCron,
  restrictsBothDayFields
} from "./chunk-76UW4DC7.js";
import {
  parseSizeMb
} from "./chunk-VAUR3CNU.js";
import {
  require_dist
} from "./chunk-L3UC3SYL.js";
import {
  external_exports
} from "./chunk-WW7OP26R.js";
import {
  formatDuration,
  parseDuration
} from "./chunk-4DGXMM26.js";
import {
  MONEY_MAX,
  fitsLedger,
  parseMoney
} from "./chunk-57HFVDAX.js";
import {
  __toESM
} from "./chunk-V4RWK56N.js";

// dist/config/domain.js
import { domainToASCII } from "node:url";
var SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
var LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
var MAX_DOMAIN_LENGTH = 255;
function normaliseDomain(text2) {
  let host = text2.trim().toLowerCase().replace(SCHEME, "").replace(/^\/\//, "");
  host = host.split(/[/?#]/, 1)[0] ?? "";
  host = host.replace(/\.+$/, "").replace(/^www\./, "");
  if (/[^\p{ASCII}]/u.test(host))
    host = domainToASCII(host) || host;
  return host;
}
function domainProblem(domain) {
  if (domain === "")
    return "is empty";
  if (domain.length > MAX_DOMAIN_LENGTH)
    return `is longer than ${MAX_DOMAIN_LENGTH} characters`;
  if (!domain.includes("."))
    return "needs at least one dot";
  const bad = domain.split(".").find((label) => !LABEL.test(label));
  if (bad !== void 0) {
    return bad === "" ? "has an empty label (two dots in a row)" : `has an invalid label "${bad}" (letters, digits and inner hyphens only, at most 63 characters)`;
  }
  return void 0;
}

// dist/config/files.js
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
async function checkConfigFiles(loaded) {
  const issues = [];
  for (const [index, job] of loaded.config.purchases.entries()) {
    if (job.recipients_file === void 0)
      continue;
    const problem = await fileProblem(job.recipients_file);
    if (problem === void 0)
      continue;
    const where = ["purchases", index, "recipients_file"];
    const { line, column } = loaded.positionOf(where);
    issues.push({
      file: loaded.file,
      line,
      column,
      path: `purchases[${index}].recipients_file (job ${JSON.stringify(job.name)})`,
      message: `${job.recipients_file} ${problem}`
    });
  }
  return issues;
}
async function fileProblem(file) {
  try {
    const found = await stat(file);
    if (found.isDirectory())
      return "is a directory, not a file";
    if (!found.isFile())
      return "is not a regular file";
    await access(file, constants.R_OK);
    return void 0;
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT")
      return "does not exist";
    if (code === "EACCES" || code === "EPERM")
      return "cannot be read (permission denied)";
    return `cannot be used: ${error.message}`;
  }
}

// dist/config/fields.js
import { isIP } from "node:net";
function show(input) {
  if (input === void 0)
    return "nothing";
  if (input === null)
    return "an empty value";
  if (typeof input === "string")
    return JSON.stringify(input);
  if (Array.isArray(input))
    return "a list";
  if (typeof input === "object")
    return "a mapping";
  return String(input);
}
var evenWithFieldIssues = {
  when: (payload) => typeof payload.value === "object" && payload.value !== null
};
function message(make) {
  return (iss) => iss.input === void 0 ? void 0 : make(iss.input);
}
var DURATION_PATTERN = /^\s*(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+\s*$/;
var BARE_NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;
function durationMessage(input) {
  const text2 = typeof input === "number" ? String(input) : typeof input === "string" ? input.trim() : void 0;
  if (text2 !== void 0 && BARE_NUMBER.test(text2)) {
    return `expected a duration with a unit (500ms, 30s, 10m, 24h, 7d), got ${text2}; did you mean "${text2}s"?`;
  }
  return `expected a duration like "500ms", "30s", "10m" or "24h", got ${show(input)}`;
}
function duration(options = {}) {
  const error = message(durationMessage);
  const min = options.min ?? 0;
  return external_exports.string({ error }).regex(DURATION_PATTERN, { error }).transform((text2, ctx) => {
    const ms = parseDuration(text2);
    if (ms < min)
      ctx.addIssue({ code: "custom", input: text2, message: `must be at least ${min}ms, got "${text2}"` });
    return ms;
  }).meta({
    description: 'A duration: a number and a unit (ms, s, m, h, d), e.g. "500ms", "30s", "10m", "24h".'
  });
}
var MONEY_PATTERN = /^\d+(?:\.\d{1,2})?$/;
var MONEY_NUMBER_LIMIT = 1e21;
function moneyMessage(input) {
  const text2 = typeof input === "string" ? input.trim() : typeof input === "number" ? String(input) : void 0;
  if (text2 === void 0)
    return `expected a decimal amount like "350.00", got ${show(input)}`;
  const base = `expected a decimal amount like "350.00", got "${text2}"`;
  if (/^-\d+(?:\.\d+)?$/.test(text2))
    return `${base} (amounts cannot be negative)`;
  return base;
}
function money() {
  const error = message(moneyMessage);
  return external_exports.union([
    external_exports.string({ error }).trim().regex(MONEY_PATTERN, { error }),
    external_exports.number({ error }).min(0, { error }).lt(MONEY_NUMBER_LIMIT, { error }).multipleOf(0.01, { error }).refine((n) => MONEY_PATTERN.test(String(n)), { error })
  ], { error }).transform((value, ctx) => {
    const amount = parseMoney(String(value));
    if (!fitsLedger(amount)) {
      ctx.addIssue({
        code: "custom",
        input: value,
        message: `must be at most ${MONEY_MAX.toFixed(2)} (the most the ledger's money columns hold), got "${String(value)}"`
      });
      return external_exports.NEVER;
    }
    return amount;
  }).meta({
    description: 'An amount of money: at least 0, at most 999999999999.99 (what the ledger holds), with at most two decimal places, e.g. "350.00" (a number written with an exponent, like 1e21, is refused).'
  });
}
var BYTE_SIZE = /^\s*(\d+)\s*(B|KB|KiB|MB|MiB|GB|GiB)?\s*$/;
var BYTES_PER_UNIT = {
  B: 1,
  KB: 1e3,
  KiB: 1024,
  MB: 1e3 ** 2,
  MiB: 1024 ** 2,
  GB: 1e3 ** 3,
  GiB: 1024 ** 3
};
function byteSize(min, max) {
  const wanted = `expected a size like "1MiB", "512KiB" or a number of bytes from ${min} to ${max}`;
  const error = message((input) => `${wanted}, got ${show(input)}`);
  return external_exports.union([
    external_exports.string({ error }).regex(BYTE_SIZE, { error }),
    external_exports.int({ error }).min(min, { error }).max(max, { error })
  ], {
    error
  }).transform((value, ctx) => {
    const match = BYTE_SIZE.exec(String(value));
    const bytes = match ? Number(match[1]) * (BYTES_PER_UNIT[match[2] ?? "B"] ?? 1) : Number.NaN;
    if (!(bytes >= min && bytes <= max)) {
      ctx.addIssue({ code: "custom", input: value, message: `${wanted}, got ${show(value)}` });
      return external_exports.NEVER;
    }
    return bytes;
  }).meta({ description: 'A size: bytes, or a number with B, KB, KiB, MB, MiB, GB or GiB, e.g. "1MiB".' });
}
var INTEGER_TEXT = /^\s*[-+]?\d+\s*$/;
var NUMBER_TEXT = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)\s*$/;
function integer(min, max) {
  const error = message((input) => `expected a whole number from ${min} to ${max}, got ${show(input)}`);
  return external_exports.union([
    external_exports.int({ error }).min(min, { error }).max(max, { error }),
    external_exports.string({ error }).regex(INTEGER_TEXT, { error })
  ], { error }).transform(Number).pipe(external_exports.number().min(min, { error }).max(max, { error }));
}
function positiveNumber() {
  const error = message((input) => `expected a number greater than 0, got ${show(input)}`);
  return external_exports.union([external_exports.number({ error }).positive({ error }), external_exports.string({ error }).regex(NUMBER_TEXT, { error })], {
    error
  }).transform(Number).pipe(external_exports.number().positive({ error }));
}
function boolean() {
  const error = message((input) => `expected true or false, got ${show(input)}`);
  return external_exports.union([external_exports.boolean({ error }), external_exports.enum(["true", "false"], { error })], { error }).transform((value) => value === true || value === "true");
}
function flag() {
  const error = message((input) => `expected true, false, 0 or 1, got ${show(input)}`);
  return external_exports.union([external_exports.boolean({ error }), external_exports.literal([0, 1], { error }), external_exports.enum(["true", "false", "0", "1"], { error })], {
    error
  }).transform((value) => value === true || value === 1 || value === "true" || value === "1" ? 1 : 0);
}
function cronProblem(expression) {
  try {
    if (nodeCron.validate(expression))
      return void 0;
    const reasons = nodeCron.validateDetailed(expression).errors.map((e) => e.message);
    return reasons.length > 0 ? reasons.join("; ") : "not accepted by node-cron";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
function neverFires(expression) {
  return cronNextFire(expression, "UTC", /* @__PURE__ */ new Date()) === void 0 ? "never fires: no day in the next 100 years matches it (node-cron fires only on a day that matches both its day-of-month and its day-of-week)" : void 0;
}
var CRON_SYNTAX = 'five fields (minute hour day-of-month month day-of-week, e.g. "0 8 1 * *") or six with seconds first; in each field *, a number, a range 1-5, a list 1,15, a step */10 or 9-17/2; month and weekday names (jan, mon); in day-of-month L (last day), L-3, 15W and LW (nearest weekday); in day-of-week 5L (last Friday) and 1#2 (second Monday); ? in either day field; or @hourly, @daily, @weekly, @monthly, @yearly';
function cronExpression() {
  return external_exports.string().trim().superRefine((expression, ctx) => {
    const problem = cronProblem(expression);
    if (problem === void 0) {
      const never = neverFires(expression);
      if (never)
        ctx.addIssue({ code: "custom", input: expression, message: `"${expression}" ${never}` });
      return;
    }
    ctx.addIssue({
      code: "custom",
      input: expression,
      message: `"${expression}" is not a valid cron expression (${problem}); use ${CRON_SYNTAX}`
    });
  }).meta({
    description: 'A cron expression as node-cron reads it: minute hour day-of-month month day-of-week, e.g. "0 8 1 * *" (six fields with seconds first; L, W, # and @daily are accepted). When both day-of-month and day-of-week are restricted, a day must match both (node-cron), not either (crontab). An expression that never fires is found by `topsync config check`, not by this schema.'
  });
}
function canonicalTimeZone(name) {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return void 0;
  }
}
function timeZone() {
  return external_exports.string().trim().min(1).transform((name, ctx) => {
    const canonical = canonicalTimeZone(name);
    if (canonical !== void 0)
      return canonical;
    ctx.addIssue({
      code: "custom",
      input: name,
      message: `unknown time zone "${name}" (use an IANA name like "Africa/Lagos" or "UTC")`
    });
    return external_exports.NEVER;
  }).meta({ description: 'An IANA time zone name, e.g. "Africa/Lagos".' });
}
var ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
function isRealDate(year, month, day) {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
function isoInstant() {
  return external_exports.string().trim().regex(ISO_WITH_OFFSET, {
    error: message((input) => `expected an ISO time with an offset, like "2026-12-01T08:00:00+01:00", got ${show(input)}`)
  }).transform((text2, ctx) => {
    const match = ISO_WITH_OFFSET.exec(text2);
    const ms = Date.parse(text2);
    if (match && isRealDate(Number(match[1]), Number(match[2]), Number(match[3])) && !Number.isNaN(ms)) {
      return new Date(ms);
    }
    ctx.addIssue({ code: "custom", input: text2, message: `"${text2}" is not a real date and time` });
    return external_exports.NEVER;
  }).meta({ description: 'An ISO 8601 time with an offset or Z, e.g. "2026-12-01T08:00:00+01:00".' });
}
var HTTP_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]+/;
function isHttpUrl(text2) {
  try {
    const url = new URL(text2);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
function httpUrl() {
  const error = message((input) => `expected an http(s) URL like "http://127.0.0.1:4010", got ${show(input)}`);
  return external_exports.string({ error }).trim().regex(HTTP_URL_PATTERN, { error }).refine(isHttpUrl, { error }).refine((text2) => !/[?#]/.test(text2), {
    error: "must not have a query string or fragment (?\u2026 or #\u2026): topsync appends paths to it and would drop them; give the key as api_key"
  }).transform((text2) => text2.replace(/\/+$/, "")).meta({ description: 'An http(s) base URL, e.g. "http://127.0.0.1:4010".' });
}
var HEADER_SAFE = /^[\x21-\x7e]+$/;
function apiKey() {
  return text().refine((key) => HEADER_SAFE.test(key), {
    error: (iss) => {
      const at = [...String(iss.input)].findIndex((char) => !HEADER_SAFE.test(char));
      return `must be printable ASCII without spaces (it is sent in an HTTP header); character ${at + 1} is not`;
    }
  });
}
function text() {
  return external_exports.string().trim().min(1);
}
function checkedList(problem, description) {
  return external_exports.union([external_exports.array(external_exports.string()), external_exports.string()]).superRefine((value, ctx) => {
    const report = (entry, path2) => {
      const why = entry.trim() === "" ? void 0 : problem(entry.trim());
      if (why !== void 0)
        ctx.addIssue({ code: "custom", path: path2, input: entry, message: why });
    };
    if (!Array.isArray(value)) {
      for (const line of value.split(/\r?\n/))
        report(line, []);
      return;
    }
    value.forEach((entry, index) => {
      if (/[\r\n]/.test(entry)) {
        ctx.addIssue({
          code: "custom",
          path: [index],
          input: entry,
          message: `${show(entry)} contains a line break; write each entry as its own list item`
        });
      } else
        report(entry, [index]);
    });
  }).transform((value) => (Array.isArray(value) ? value : value.split(/\r?\n/)).map((entry) => entry.trim()).filter((entry) => entry !== "")).meta({ description });
}
function ipProblem(entry) {
  const [address = "", prefix, extra] = entry.split("/");
  const version = isIP(address);
  const expected = 'expected an IPv4 or IPv6 address or a CIDR range like "203.0.113.0/24"';
  if (version === 0 || extra !== void 0)
    return `${show(entry)} is not an IP address or CIDR range: ${expected}`;
  if (prefix === void 0)
    return void 0;
  const bits = version === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
    return `${show(entry)} is not a CIDR range: the prefix of an IPv${version} range is 0 to ${bits}`;
  }
  return void 0;
}
function ipList() {
  return checkedList(ipProblem, "IPv4/IPv6 addresses or CIDR ranges, e.g. 203.0.113.7 or 198.51.100.0/24.");
}
function tokenList() {
  return checkedList((entry) => /\s/.test(entry) ? `${show(entry)} contains whitespace: expected a query parameter name like "utm_source"` : void 0, "Query parameter names without whitespace, e.g. utm_source.");
}

// dist/config/privacy.js
var PRIVACY = { public: 0, private: 1, password: 2 };
var PRIVACY_NAMES = Object.keys(PRIVACY);
function privacyCode(value) {
  if (typeof value === "string" && Object.hasOwn(PRIVACY, value))
    return PRIVACY[value];
  const code = typeof value === "string" && /^[0-2]$/.test(value) ? Number(value) : value;
  return code === 0 || code === 1 || code === 2 ? code : void 0;
}
function privacyName(code) {
  return PRIVACY_NAMES[code];
}

// dist/config/schema.js
var DEFAULT_TIMEZONE = "Africa/Lagos";
var retrySchema = external_exports.strictObject({
  max_attempts: integer(1, 100).prefault(5),
  base_delay: duration().prefault("200ms"),
  max_delay: duration().prefault("30s")
}).superRefine((retry, ctx) => {
  if (retry.max_delay < retry.base_delay) {
    ctx.addIssue({ code: "custom", path: ["max_delay"], message: "must not be shorter than base_delay" });
  }
});
var timeoutPartsSchema = external_exports.strictObject({
  connect: duration({ min: 1 }).prefault("5s"),
  headers: duration({ min: 1 }).prefault("15s"),
  body: duration({ min: 1 }).prefault("15s"),
  total: duration({ min: 1 }).prefault("60s").meta({
    description: "A whole call, headers and body, is abandoned past this (a purchase becomes in_doubt)."
  })
});
var DEFAULT_TOTAL_MS = 6e4;
var timeoutSchema = external_exports.union([
  duration({ min: 1 }).transform((ms) => ({
    connect: ms,
    headers: ms,
    body: ms,
    total: Math.max(ms, DEFAULT_TOTAL_MS)
  })),
  timeoutPartsSchema
], {
  error: (iss) => {
    if (iss.input === void 0)
      return void 0;
    if (typeof iss.input === "string" || typeof iss.input === "number")
      return durationMessage(iss.input);
    return `expected a duration like "15s" or a mapping of connect, headers, body and total, got ${show(iss.input)}`;
  }
}).prefault({});
function serviceSchema(defaults) {
  const burst = integer(1, 1e5).meta({
    description: "Requests that may go at once after a quiet spell; a tenth of rate_limit (at least 1) when absent."
  });
  return external_exports.strictObject({
    base_url: httpUrl(),
    api_key: apiKey(),
    timeout: timeoutSchema,
    concurrency: integer(1, 256).prefault(defaults.concurrency),
    rate_limit: positiveNumber().prefault(defaults.rate_limit).meta({ description: "Requests per second." }),
    burst: defaults.burst === void 0 ? burst.optional() : burst.prefault(defaults.burst),
    retry: retrySchema.prefault({}),
    max_body: byteSize(1024, 1024 ** 3).prefault("1MiB").meta({ description: "The most bytes of one answer that are read; a larger answer is unreadable." })
  });
}
var databaseSchema = external_exports.strictObject({
  url: external_exports.string().trim().refine((url) => url === "" || /^postgres(?:ql)?:\/\//.test(url), {
    error: 'expected a PostgreSQL URL like "postgres://user:password@host:5432/topsync", or "" for the embedded database'
  }).prefault("").meta({ description: "PostgreSQL URL; empty for the embedded PGlite database." }),
  pglite_dir: text().prefault("./.topsync/pglite").meta({ description: "Directory of the embedded database, relative to the working directory." })
});
var budgetSchema = external_exports.strictObject({
  daily_limit: money().optional().meta({ description: "Most spent per day (in `timezone`); no limit when absent." }),
  per_run_limit: money().optional().meta({ description: "Most spent by one run; no limit when absent." }),
  min_wallet_balance: money().prefault("0.00")
});
var verificationSchema = external_exports.strictObject({
  initial_delay: duration().prefault("2s"),
  timeout: duration({ min: 1 }).prefault("10m"),
  max_interval: duration({ min: 1 }).prefault("30s"),
  horizon: duration().prefault("72h").meta({ description: "How long later runs keep re-verifying `unverified` purchases." })
});
var JOB_NAME = /^[a-z0-9][a-z0-9._-]*$/;
var PHONE_SEPARATORS = /[\s().-]/g;
var phoneSchema = external_exports.string().trim().refine((phone) => /^\+?\d{7,15}$/.test(phone.replace(PHONE_SEPARATORS, "")), {
  error: 'expected a phone number like "08031234567" or "+2348031234567"'
});
var recipientSchema = external_exports.union([phoneSchema, external_exports.strictObject({ phone: phoneSchema, ported: boolean().prefault(false) })]).transform((recipient) => typeof recipient === "string" ? { phone: recipient, ported: false } : recipient);
var SELECTOR_KEYS = ["size", "type", "name_contains"];
var planSchema = external_exports.strictObject({
  network: text().optional().meta({
    description: "Network id, code or name (MTN, GLO, AIRTEL, 9MOBILE). May be left out with plan_id: the network whose live plans list that id is used (an id listed under two networks is refused)."
  }),
  plan_id: text().optional(),
  size: text().optional().meta({ description: 'Data size, e.g. "500MB", "1GB", "1.5GB".' }),
  type: text().optional().meta({ description: 'Plan type, e.g. "CORPORATE GIFTING".' }),
  name_contains: text().optional()
}).superRefine((plan, ctx) => {
  const selector = SELECTOR_KEYS.filter((key) => plan[key] !== void 0);
  if (plan.plan_id !== void 0 && selector.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: [selector[0]],
      message: "give either plan_id or a selector (size, type, name_contains), not both"
    });
  } else if (plan.plan_id === void 0 && plan.network === void 0) {
    ctx.addIssue({
      code: "custom",
      path: ["network"],
      message: "is required with a selector (size, type, name_contains); only a plan_id finds its own network"
    });
  }
  if (plan.plan_id === void 0 && plan.size === void 0) {
    ctx.addIssue({
      code: "custom",
      message: "needs plan_id, or a selector with size (and optionally type and name_contains)"
    });
  }
  if (typeof plan.size === "string" && parseSizeMb(plan.size) === null) {
    ctx.addIssue({
      code: "custom",
      path: ["size"],
      message: `expected a data size like "500MB", "1GB" or "1.5GB", got ${show(plan.size)}`
    });
  }
}, evenWithFieldIssues).transform((plan) => plan.plan_id !== void 0 ? (
  // An empty network: the network whose live plans list plan_id (src/purchases/resolve.ts).
  { kind: "id", network: plan.network ?? "", plan_id: plan.plan_id }
) : {
  kind: "selector",
  network: plan.network ?? "",
  size: plan.size,
  size_mb: parseSizeMb(plan.size),
  type: plan.type,
  name_contains: plan.name_contains
});
var MAX_INLINE_RECIPIENTS = 5e4;
var purchaseJobSchema = external_exports.strictObject({
  name: external_exports.string().trim().regex(JOB_NAME, {
    error: (iss) => iss.input === void 0 ? void 0 : `job name ${show(iss.input)} must be lower case letters, digits, "-", "_" or ".", starting with a letter or digit`
  }),
  schedule: cronExpression().optional(),
  at: isoInstant().optional(),
  timezone: timeZone().optional().meta({ description: "Time zone of `schedule`; the global `timezone` when absent." }),
  plan: planSchema,
  max_price: money().optional().meta({ description: "Refuse to buy when the live price is higher." }),
  recipients: external_exports.array(recipientSchema).max(MAX_INLINE_RECIPIENTS, {
    error: (iss) => `has ${Array.isArray(iss.input) ? iss.input.length : "too many"} recipients; at most ${MAX_INLINE_RECIPIENTS.toLocaleString("en")} may be written in the config: put them in a recipients_file (a CSV with a phone column), which is streamed`
  }).prefault([]),
  recipients_file: text().optional().meta({ description: "CSV with a `phone` column (and optional `ported`), relative to this file." }),
  catch_up: duration().prefault("6h"),
  max_attempts: integer(1, 100).optional().meta({ description: "Overrides reseller.retry.max_attempts." }),
  enabled: boolean().prefault(true)
}).superRefine((job, ctx) => {
  if (job.schedule !== void 0 && job.at !== void 0) {
    ctx.addIssue({ code: "custom", path: ["at"], message: "give either schedule or at, not both" });
  }
  const hasRecipients = Array.isArray(job.recipients) ? job.recipients.length > 0 : job.recipients !== void 0;
  if (!hasRecipients && job.recipients_file === void 0) {
    ctx.addIssue({ code: "custom", message: "a job needs recipients, a recipients_file, or both" });
  }
}, evenWithFieldIssues);
var intakeSchema = external_exports.strictObject({
  enabled: boolean().prefault(true),
  poll_interval: duration({ min: 1 }).prefault("30s"),
  batch_size: integer(1, 1e5).prefault(500)
});
var serverSchema = external_exports.strictObject({
  host: text().prefault("0.0.0.0"),
  port: integer(1, 65535).prefault(9464),
  shutdown_grace: duration().prefault("30s")
});
var SIGNATURE_ALGORITHMS = ["sha256", "sha512"];
var webhooksSchema = external_exports.strictObject({
  enabled: boolean().prefault(false),
  path: text().regex(/^\/[\x21-\x7e]*$/, "must start with / and hold no spaces").prefault("/webhooks/reseller"),
  auth: external_exports.enum(["hmac", "token"]).prefault("hmac"),
  /** The shared HMAC key or the token; required when enabled. */
  secret: apiKey().optional(),
  signature_header: text().prefault("X-Signature"),
  algorithm: external_exports.enum(SIGNATURE_ALGORITHMS).prefault("sha256"),
  encoding: external_exports.enum(["hex", "base64"]).prefault("hex"),
  /** When set, the delivery's time (Unix seconds) is in this header and signed as `<timestamp>.<body>`. */
  timestamp_header: text().optional(),
  tolerance: duration({ min: 1 }).prefault("5m"),
  token_in: external_exports.enum(["header", "path"]).prefault("header"),
  token_header: text().prefault("X-Webhook-Token"),
  /** Source addresses or CIDR ranges allowed to deliver; empty: any. */
  allow_from: ipList().prefault([]),
  /** How far a notification's date may be from an in_doubt purchase's POST for it to be a candidate. */
  match_window: duration({ min: 1 }).prefault("30m")
}).superRefine((hooks, ctx) => {
  if (hooks.enabled && hooks.secret === void 0)
    ctx.addIssue({ code: "custom", path: ["secret"], message: "webhooks need a secret when enabled" });
}, evenWithFieldIssues);
var LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"];
var logSchema = external_exports.strictObject({ level: external_exports.enum(LOG_LEVELS).prefault("info") });
var privacySchema = external_exports.union([external_exports.enum(PRIVACY_NAMES), external_exports.literal([0, 1, 2]), external_exports.enum(["0", "1", "2"])], {
  error: (iss) => iss.input === void 0 ? void 0 : `unknown privacy ${show(iss.input)} (use public, private or password, or 0, 1, 2)`
}).transform((value) => privacyCode(value));
var passwordSchema = external_exports.string().min(1).max(128).meta({ description: "1\u2013128 characters; used when privacy is password." });
var websiteSettings = {
  privacy: privacySchema.optional(),
  password: passwordSchema.optional(),
  email: flag().optional(),
  exclude_bots: flag().optional(),
  exclude_params: tokenList().optional(),
  exclude_ips: ipList().optional()
};
var domainSchema = external_exports.string().superRefine((domain, ctx) => {
  const problem = domainProblem(normaliseDomain(domain));
  if (problem === void 0)
    return;
  ctx.addIssue({
    code: "custom",
    input: domain,
    message: `${show(domain)} is not a valid domain: it ${problem}`
  });
}).meta({ description: "The website's domain; scheme, www. and any path are stripped." });
var websiteItemSchema = external_exports.strictObject({ domain: domainSchema, ...websiteSettings });
var SERVICE_DEFAULTS = { privacy: 1, email: 0, exclude_bots: 1 };
function resolveWebsite(item, defaults) {
  const privacy = item.privacy ?? defaults.privacy ?? SERVICE_DEFAULTS.privacy;
  return {
    domain: normaliseDomain(item.domain),
    declared_domain: item.domain,
    privacy,
    password: privacy === 2 ? item.password ?? defaults.password : void 0,
    email: item.email ?? defaults.email ?? SERVICE_DEFAULTS.email,
    exclude_bots: item.exclude_bots ?? defaults.exclude_bots ?? SERVICE_DEFAULTS.exclude_bots,
    exclude_params: item.exclude_params ?? defaults.exclude_params ?? [],
    exclude_ips: item.exclude_ips ?? defaults.exclude_ips ?? []
  };
}
var PASSWORD_ONLY_WITH_PASSWORD_PRIVACY = "a password applies only when privacy is password (2)";
function checkWebsitePasswords(websites, ctx) {
  const defaults = websites.defaults ?? {};
  if (defaults.password !== void 0 && defaults.privacy !== void 0 && defaults.privacy !== 2) {
    ctx.addIssue({
      code: "custom",
      path: ["defaults", "password"],
      message: PASSWORD_ONLY_WITH_PASSWORD_PRIVACY
    });
  }
  if (!Array.isArray(websites.items))
    return;
  websites.items.forEach((item, index) => {
    const privacy = item.privacy ?? defaults.privacy ?? SERVICE_DEFAULTS.privacy;
    if (typeof privacy !== "number")
      return;
    if (item.password !== void 0 && privacy !== 2) {
      ctx.addIssue({
        code: "custom",
        path: ["items", index, "password"],
        message: PASSWORD_ONLY_WITH_PASSWORD_PRIVACY
      });
    } else if (privacy === 2 && item.password === void 0 && defaults.password === void 0) {
      ctx.addIssue({
        code: "custom",
        path: ["items", index, "password"],
        message: "is required when privacy is password (2); set it here or under websites.defaults"
      });
    }
  });
}
var websitesSchema = external_exports.strictObject({
  mode: external_exports.enum(["apply", "observe"]).prefault("apply").meta({ description: "observe: plan and report drift every pass without applying." }),
  schedule: cronExpression().optional(),
  prune: boolean().prefault(false).meta({ description: "Delete owned websites that are no longer declared." }),
  max_deletes: integer(0, 1e5).prefault(5),
  defaults: external_exports.strictObject(websiteSettings).prefault({}),
  items: external_exports.array(websiteItemSchema).prefault([])
}).superRefine(checkWebsitePasswords, evenWithFieldIssues).transform((websites) => ({
  ...websites,
  items: websites.items.map((item) => resolveWebsite(item, websites.defaults))
}));
function addDuplicates(ctx, what, entries) {
  const first = /* @__PURE__ */ new Map();
  for (const { key, path: path2 } of entries) {
    if (key === void 0)
      continue;
    const earlier = first.get(key);
    if (earlier === void 0) {
      first.set(key, path2);
      continue;
    }
    const params = { duplicate: { what: `${what} "${key}"`, paths: [earlier, path2] } };
    ctx.addIssue({
      code: "custom",
      path: path2,
      params,
      message: `${what} "${key}" is declared twice: ${formatPath(earlier)} and ${formatPath(path2)}`
    });
  }
}
function checkUnique(config, ctx) {
  const jobs = Array.isArray(config.purchases) ? config.purchases : [];
  addDuplicates(ctx, "job name", jobs.map((job, index) => ({
    key: typeof job?.name === "string" ? job.name : void 0,
    path: ["purchases", index, "name"]
  })));
  const websites = config.websites;
  const items = Array.isArray(websites?.items) ? websites.items : [];
  addDuplicates(ctx, "domain", items.map((item, index) => ({
    key: typeof item?.domain === "string" ? normaliseDomain(item.domain) : void 0,
    path: ["websites", "items", index, "domain"]
  })));
}
var configSchema = external_exports.strictObject({
  reseller: serviceSchema({ concurrency: 8, rate_limit: 20 }),
  // The real service allows 60 requests a minute (Laravel's throttle:60,1): 6 at once, then 0.9 a second,
  // is at most 60 in any minute.
  analytics: serviceSchema({ concurrency: 4, rate_limit: 0.9, burst: 6 }),
  database: databaseSchema.prefault({}),
  timezone: timeZone().prefault(DEFAULT_TIMEZONE),
  budget: budgetSchema.prefault({}),
  verification: verificationSchema.prefault({}),
  purchases: external_exports.array(purchaseJobSchema).prefault([]),
  intake: intakeSchema.prefault({}),
  websites: websitesSchema.prefault({}),
  server: serverSchema.prefault({}),
  webhooks: webhooksSchema.prefault({}),
  log: logSchema.prefault({})
}).superRefine(checkUnique, evenWithFieldIssues);
function formatPath(path2) {
  let out = "";
  for (const segment of path2) {
    if (typeof segment === "number")
      out += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(segment)))
      out += out === "" ? String(segment) : `.${String(segment)}`;
    else
      out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

// dist/config/json-schema.js
var DESCRIPTION = "config.yaml of topsync. ${VAR} and ${VAR:-default} in values are replaced from the environment before the file is checked, so any value may be one. This schema checks the shape, types, ranges and patterns; `topsync config check` also checks what a schema cannot: cron expressions that never fire, time zones, duplicate job names and domains, and the values placeholders stand for.";
var PLACEHOLDER = {
  type: "string",
  pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\\}",
  description: "A ${VAR} or ${VAR:-default} reference, replaced from the environment."
};
var SCALAR_TYPES = /* @__PURE__ */ new Set(["string", "number", "integer", "boolean"]);
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function withPlaceholders(node) {
  if (!isObject(node))
    return node;
  const out = { ...node };
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, withPlaceholders(value)]));
  }
  if (out.items !== void 0)
    out.items = withPlaceholders(out.items);
  if (Array.isArray(out.anyOf)) {
    const members = out.anyOf.map((member) => isScalar(member) ? member : withPlaceholders(member));
    if (members.some(isScalar))
      members.push(PLACEHOLDER);
    out.anyOf = members;
    return out;
  }
  if (!isScalar(out))
    return out;
  const { description, default: byDefault, ...form } = out;
  return {
    ...description === void 0 ? {} : { description },
    ...byDefault === void 0 ? {} : { default: byDefault },
    anyOf: [form, PLACEHOLDER]
  };
}
function isScalar(node) {
  return isObject(node) && typeof node.type === "string" && SCALAR_TYPES.has(node.type);
}
function ifThen(condition, consequence) {
  return { if: condition, then: consequence };
}
var PASSWORD_PRIVACY = { enum: ["password", 2, "2"] };
var OTHER_PRIVACY = { enum: ["public", "private", 0, 1, "0", "1"] };
function notBoth(keys, properties = {}) {
  return {
    not: {
      required: keys,
      properties: { ...Object.fromEntries(keys.map((key) => [key, true])), ...properties }
    }
  };
}
function jobRules(job) {
  const properties = job.properties;
  const plan = {
    ...properties.plan,
    anyOf: [
      { required: ["plan_id"], properties: { plan_id: true } },
      { required: ["network"], properties: { network: true } }
    ]
  };
  return {
    ...job,
    properties: { ...properties, plan },
    allOf: [
      notBoth(["schedule", "at"]),
      {
        anyOf: [
          { required: ["recipients"], properties: { recipients: { type: "array", minItems: 1 } } },
          { required: ["recipients_file"], properties: { recipients_file: true } }
        ]
      }
    ]
  };
}
function websitesRules(websites) {
  const properties = websites.properties;
  const defaults = properties.defaults;
  const items = properties.items;
  const defaultsHave = (key, value = true) => ({
    required: ["defaults"],
    properties: { defaults: { required: [key], properties: { [key]: value } } }
  });
  const eachItem = (rule) => ({ properties: { items: { type: "array", items: rule } } });
  const itemNeedsPassword = (when) => eachItem(ifThen(when, { required: ["password"], properties: { password: true } }));
  const noPrivacy = { not: { required: ["privacy"], properties: { privacy: true } } };
  return {
    ...websites,
    properties: {
      ...properties,
      defaults: { ...defaults, ...notBoth(["password", "privacy"], { privacy: OTHER_PRIVACY }) },
      items: {
        ...items,
        items: { ...items.items, ...notBoth(["password", "privacy"], { privacy: OTHER_PRIVACY }) }
      }
    },
    allOf: [
      // An item with a password and no privacy of its own takes the defaults' privacy: it must be password.
      ifThen({ not: defaultsHave("privacy", { not: OTHER_PRIVACY }) }, eachItem({ not: { required: ["password"], properties: { password: true }, ...noPrivacy } })),
      // Without a default password, privacy password (the item's, or the defaults' for an item without one)
      // needs the item's own password.
      ifThen({ not: defaultsHave("password") }, {
        allOf: [
          itemNeedsPassword({ required: ["privacy"], properties: { privacy: PASSWORD_PRIVACY } }),
          ifThen(defaultsHave("privacy", PASSWORD_PRIVACY), itemNeedsPassword(noPrivacy))
        ]
      })
    ]
  };
}
var SUBSCHEMA_LISTS = ["anyOf", "allOf", "oneOf"];
var SUBSCHEMAS = ["not", "if", "then", "else", "items", "additionalProperties"];
function typed(node) {
  if (!isObject(node))
    return node;
  const out = { ...node };
  if ((out.required !== void 0 || out.properties !== void 0) && out.type === void 0)
    out.type = "object";
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, typed(v)]));
  }
  for (const key of SUBSCHEMAS)
    if (out[key] !== void 0)
      out[key] = typed(out[key]);
  for (const key of SUBSCHEMA_LISTS)
    if (Array.isArray(out[key]))
      out[key] = out[key].map(typed);
  return out;
}
function configJsonSchema() {
  const { $schema: _, ...generated } = external_exports.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" });
  const schema = withPlaceholders(generated);
  const properties = schema.properties;
  const purchases = properties.purchases;
  return typed({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "topsync config",
    description: DESCRIPTION,
    ...schema,
    properties: {
      ...properties,
      purchases: { ...purchases, items: jobRules(purchases.items) },
      websites: websitesRules(properties.websites)
    }
  });
}

// dist/config/load.js
var import_yaml2 = __toESM(require_dist(), 1);
import { readFile, stat as stat2 } from "node:fs/promises";
import path from "node:path";

// dist/config/document.js
var import_yaml = __toESM(require_dist(), 1);

// dist/config/interpolate.js
var REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
var INNER = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([\s\S]*))?$/;
function interpolate(text2, env) {
  const problems = [];
  const value = text2.replace(REFERENCE, (match, inner, index) => {
    if (match === "$${")
      return "${";
    if (inner === void 0) {
      problems.push({
        index,
        message: `unterminated "\${" (close it with "}", or write "$\${" for a literal "\${")`
      });
      return match;
    }
    const parts = INNER.exec(inner);
    if (!parts) {
      problems.push({
        index,
        message: `"\${${inner}}" is not a variable reference (use \${NAME} or \${NAME:-default})`
      });
      return match;
    }
    const [, name, operator, fallback] = parts;
    const current = env[name];
    if (operator === ":-")
      return current === void 0 || current === "" ? fallback ?? "" : current;
    if (operator === "-")
      return current ?? fallback ?? "";
    if (current !== void 0)
      return current;
    problems.push({
      index,
      variable: name,
      message: `environment variable ${name} is not set (use \${${name}:-default} for a default)`
    });
    return "";
  });
  return { value, problems };
}

// dist/config/document.js
var MAX_ALIAS_NODES = 1e4;
var SECRET_KEY = /(?:^|_)(?:api_?key|password|secret|token)$/i;
var URL_KEY = /(?:^|_)url$/i;
function isSecret(key, value) {
  if (typeof key !== "string" || value === "")
    return false;
  return SECRET_KEY.test(key) || URL_KEY.test(key) && value.includes("@");
}
function toPlain(doc, source, env) {
  const problems = [];
  const secrets = [];
  const resolving = /* @__PURE__ */ new Set();
  let aliasDepth = 0;
  let expanded = 0;
  let exhausted;
  let outermost = { path: [], offset: 0 };
  function scalar(node, path2) {
    const { value: value2 } = node;
    if (typeof value2 === "number" || typeof value2 === "bigint")
      return node.source ?? String(value2);
    if (typeof value2 !== "string")
      return value2;
    const result = interpolate(value2, env);
    const start = node.range?.[0] ?? 0;
    const raw = source.slice(start, node.range?.[1] ?? start);
    for (const problem of result.problems) {
      const needle = problem.variable !== void 0 ? `\${${problem.variable}` : "${";
      const at = raw.indexOf(needle);
      problems.push({ path: path2, offset: at >= 0 ? start + at : start, message: problem.message });
    }
    if (isSecret(path2[path2.length - 1], result.value))
      secrets.push(result.value);
    return result.value;
  }
  function convert(node, path2) {
    if (exhausted)
      return null;
    if (aliasDepth > 0 && ++expanded > MAX_ALIAS_NODES) {
      exhausted = {
        ...outermost,
        message: `aliases expand to more than ${MAX_ALIAS_NODES} values; write the values out or use fewer nested aliases`
      };
      return null;
    }
    if ((0, import_yaml.isAlias)(node)) {
      if (aliasDepth === 0)
        outermost = { path: path2, offset: node.range?.[0] ?? 0 };
      const target = node.resolve(doc);
      if (target === void 0) {
        problems.push({ path: path2, offset: node.range?.[0] ?? 0, message: `unknown anchor "*${node.source}"` });
        return null;
      }
      if (resolving.has(target))
        return null;
      resolving.add(target);
      aliasDepth++;
      const value2 = convert(target, path2);
      aliasDepth--;
      resolving.delete(target);
      return value2;
    }
    if ((0, import_yaml.isScalar)(node))
      return scalar(node, path2);
    if ((0, import_yaml.isMap)(node)) {
      const out = {};
      for (const pair of node.items) {
        if (isEmpty(pair.value))
          continue;
        const key = keyText(pair.key);
        define(out, key, convert(pair.value, [...path2, key]));
      }
      return out;
    }
    if ((0, import_yaml.isSeq)(node))
      return node.items.map((item, index) => convert(item, [...path2, index]));
    if ((0, import_yaml.isPair)(node)) {
      const key = keyText(node.key);
      return define({}, key, convert(node.value, [...path2, key]));
    }
    return node ?? null;
  }
  const value = convert(doc.contents, []);
  return exhausted ? { value, problems, secrets, exhausted } : { value, problems, secrets };
}
function isEmpty(node) {
  return node === null || node === void 0 || (0, import_yaml.isScalar)(node) && node.value === null;
}
function keyText(key) {
  if ((0, import_yaml.isScalar)(key))
    return typeof key.value === "string" ? key.value : key.source ?? String(key.value);
  return String(key);
}
function define(target, key, value) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}
function locate(doc, path2) {
  let node = doc.contents;
  let nearest = offsetOf(node) ?? 0;
  let keyOffset;
  let depth = 0;
  for (const segment of path2) {
    if ((0, import_yaml.isAlias)(node))
      node = node.resolve(doc);
    const next = step(node, segment);
    if (!next)
      break;
    node = next.value;
    keyOffset = offsetOf(next.key);
    nearest = keyOffset ?? offsetOf(node) ?? nearest;
    depth++;
  }
  const found = depth === path2.length;
  const empty = found && isEmpty(node);
  const offset = found && !empty ? offsetOf(node) ?? nearest : nearest;
  return { offset, found, empty, keyOffset: found ? keyOffset : void 0 };
}
function offsetOf(node) {
  return isNodeLike(node) ? node.range?.[0] : void 0;
}
function step(node, segment) {
  if ((0, import_yaml.isMap)(node)) {
    const pair = node.items.find((item) => keyText(item.key) === String(segment));
    if (!pair)
      return void 0;
    return { value: pair.value, key: isNodeLike(pair.key) ? pair.key : void 0 };
  }
  if ((0, import_yaml.isSeq)(node) && typeof segment === "number") {
    const item = node.items[segment];
    return item === void 0 ? void 0 : { value: item };
  }
  return void 0;
}
function isNodeLike(value) {
  return typeof value === "object" && value !== null && "range" in value;
}

// dist/text/secrets.js
var MIN_LENGTH = 4;
var patterns = /* @__PURE__ */ new Map();
function escapeRegExp(text2) {
  return text2.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
function characterForm(char) {
  const bytes = [...Buffer.from(char, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  const forms = [escapeRegExp(char), bytes];
  if (char === " ")
    forms.push("\\+");
  return `(?:${forms.join("|")})`;
}
function base64Forms(secret) {
  const forms = [`Bearer ${secret}`, secret].flatMap((value) => {
    const buffer = Buffer.from(value, "utf8");
    return [buffer.toString("base64").replace(/=+$/, ""), buffer.toString("base64url")];
  });
  return [...new Set(forms)].sort((a, b) => b.length - a.length).map((form) => `${escapeRegExp(form)}={0,2}`);
}
function patternsOf(secret) {
  let found = patterns.get(secret);
  if (!found) {
    found = [
      new RegExp(base64Forms(secret).join("|"), "g"),
      new RegExp([...secret].map(characterForm).join(""), "gi")
    ];
    patterns.set(secret, found);
  }
  return found;
}
function redactSecretForms(text2, secret, replacement = "[redacted]") {
  if (secret.length < MIN_LENGTH || text2 === "")
    return text2;
  return patternsOf(secret).reduce((out, pattern) => out.replace(pattern, replacement), text2);
}

// dist/config/messages.js
var NOUNS = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a mapping",
  array: "a list"
};
function plural(count, word) {
  return `${count} ${word}${Number(count) === 1 ? "" : "s"}`;
}
function configErrorMap(issue) {
  const got = show(issue.input);
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === void 0)
        return "is required";
      return `expected ${NOUNS[issue.expected] ?? `a ${issue.expected}`}, got ${got}`;
    case "too_small":
      if (issue.origin === "string")
        return issue.minimum === 1 ? "must not be empty" : `must be at least ${plural(issue.minimum, "character")}`;
      if (issue.origin === "array")
        return `must have at least ${plural(issue.minimum, "item")}`;
      return `must be ${issue.inclusive === false ? "greater than" : "at least"} ${issue.minimum}, got ${got}`;
    case "too_big":
      if (issue.origin === "string")
        return `must be at most ${plural(issue.maximum, "character")}`;
      if (issue.origin === "array")
        return `must have at most ${plural(issue.maximum, "item")}`;
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}, got ${got}`;
    case "invalid_value": {
      const values = issue.values.map((value) => JSON.stringify(value));
      return `expected ${values.length === 1 ? values[0] : `one of ${values.join(", ")}`}, got ${got}`;
    }
    case "invalid_union":
      return `does not match any allowed form, got ${got}`;
    case "invalid_format":
      return `has the wrong format, got ${got}`;
    default:
      return void 0;
  }
}
function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}
function closestKey(key, known) {
  const simple = (text2) => text2.toLowerCase().replaceAll("-", "_");
  const limit = Math.max(1, Math.floor(key.length / 3));
  let best;
  for (const candidate of known) {
    const d = distance(simple(key), simple(candidate));
    if (d <= limit && (best === void 0 || d < best.distance))
      best = { key: candidate, distance: d };
  }
  return best?.key;
}
function unknownKeyMessage(key, known) {
  const suggestion = closestKey(key, known);
  if (suggestion !== void 0)
    return `unknown key (did you mean "${suggestion}"?)`;
  return known.length > 0 ? `unknown key (allowed here: ${known.join(", ")})` : "unknown key";
}
function objectsAt(schema, path2) {
  const def = schema._zod.def;
  const inner = def.innerType ?? def.in ?? def.getter?.();
  if (inner)
    return objectsAt(inner, path2);
  if (def.type === "union")
    return (def.options ?? []).flatMap((option) => objectsAt(option, path2));
  if (path2.length === 0)
    return def.type === "object" ? [def] : [];
  const [head, ...rest] = path2;
  if (def.type === "object") {
    const child = def.shape?.[String(head)];
    return child ? objectsAt(child, rest) : [];
  }
  if (def.type === "array" && def.element && typeof head === "number")
    return objectsAt(def.element, rest);
  return [];
}
function knownKeys(schema, path2) {
  const keys = objectsAt(schema, path2).flatMap((def) => Object.keys(def.shape ?? {}));
  return [...new Set(keys)];
}
function redact(message2, secrets) {
  let out = message2;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 3)
      out = redactSecretForms(out.replaceAll(secret, "***"), secret, "***");
  }
  return out;
}

// dist/config/load.js
function formatIssue(issue) {
  if (issue.line === 0)
    return issue.message;
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.path === "" ? `${where}: ${issue.message}` : `${where}: ${issue.path}: ${issue.message}`;
}
var ConfigError = class extends Error {
  issues;
  code = "CONFIG_INVALID";
  exitCode = 78;
  constructor(issues) {
    super(issues.map(formatIssue).join("\n"));
    this.issues = issues;
    this.name = "ConfigError";
  }
};
var MAX_CONFIG_BYTES = 2 * 1024 * 1024;
var READ_ERRORS = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "is a directory"
};
async function loadConfig(file, env = process.env) {
  let text2;
  try {
    const size = (await stat2(file)).size;
    if (size > MAX_CONFIG_BYTES) {
      const message2 = `config file ${file} is ${size} bytes, more than the ${MAX_CONFIG_BYTES} a config may have; put long recipient lists in a recipients_file (CSV)`;
      throw new ConfigError([{ file, line: 0, column: 0, path: "", message: message2 }]);
    }
    text2 = await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof ConfigError)
      throw error;
    const code = error.code ?? "";
    const reason = READ_ERRORS[code] ?? (error instanceof Error ? error.message : String(error));
    throw new ConfigError([
      { file, line: 0, column: 0, path: "", message: `cannot read config file ${file}: ${reason}` }
    ]);
  }
  return parseConfig(text2, file, env);
}
function parseConfig(text2, file, env = process.env) {
  const lines = new import_yaml2.LineCounter();
  const doc = (0, import_yaml2.parseDocument)(text2, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const plain = toPlain(doc, text2, env);
  const at = (offset, issuePath, message2) => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col, path: issuePath + subjectOf(issuePath, plain.value), message: message2 };
  };
  const finish = (issues2) => issues2.map((issue) => ({
    ...issue,
    path: redact(issue.path, plain.secrets),
    message: redact(issue.message, plain.secrets)
  })).sort((a, b) => a.line - b.line || a.column - b.column);
  const yamlWarnings = doc.warnings.map((warning) => at(warning.pos[0], "", warning.message));
  if (doc.errors.length > 0) {
    throw new ConfigError(finish(doc.errors.map((error) => at(error.pos[0], "", error.message))));
  }
  if (doc.contents === null)
    throw new ConfigError([at(0, "", "the config file is empty")]);
  if (plain.exhausted) {
    const { offset, path: where, message: message2 } = plain.exhausted;
    throw new ConfigError(finish([at(offset, formatPath(where), message2)]));
  }
  const envIssues = plain.problems.map((problem) => at(problem.offset, formatPath(problem.path), problem.message));
  const result = configSchema.safeParse(plain.value, { error: configErrorMap });
  const schemaIssues = result.success ? [] : withoutEchoes(result.error.issues, plain.problems).flatMap((issue) => describeIssue(issue, doc, at));
  const issues = [...envIssues, ...schemaIssues];
  if (!result.success || issues.length > 0)
    throw new ConfigError(finish(issues));
  const config = anchorPaths(result.data, path.dirname(path.resolve(file)));
  const warnings = [...yamlWarnings, ...domainWarnings(config, doc, at)];
  const positionOf = (valuePath) => {
    const { line, col } = lines.linePos(locate(doc, valuePath).offset);
    return { line, column: col };
  };
  return { config, file: path.resolve(file), warnings: finish(warnings), positionOf };
}
function subjectOf(issuePath, value) {
  const match = /^(purchases|websites\.items)\[(\d+)\]/.exec(issuePath);
  if (!match)
    return "";
  const list = match[1] === "purchases" ? field(value, "purchases") : field(field(value, "websites"), "items");
  const item = Array.isArray(list) ? list[Number(match[2])] : void 0;
  const [kind, key] = match[1] === "purchases" ? ["job", "name"] : ["website", "domain"];
  if (issuePath.slice(match[0].length) === `.${key}`)
    return "";
  const name = field(item, key);
  return typeof name === "string" && name.trim() !== "" ? ` (${kind} ${JSON.stringify(name.trim())})` : "";
}
function field(value, key) {
  return value !== null && typeof value === "object" ? value[key] : void 0;
}
function withoutEchoes(found, problems) {
  const issues = found.flatMap(throughUnions);
  const misspelt = /* @__PURE__ */ new Set();
  for (const issue of issues) {
    if (issue.code !== "unrecognized_keys")
      continue;
    const known = knownKeys(configSchema, issue.path);
    for (const key of issue.keys) {
      const meant = closestKey(key, known);
      if (meant !== void 0)
        misspelt.add(formatPath([...issue.path, meant]));
    }
  }
  return issues.filter((issue) => !isUnder(issue.path, problems) && !(issue.code === "invalid_type" && issue.message === "is required" && misspelt.has(formatPath(issue.path))));
}
function throughUnions(issue) {
  if (issue.code !== "invalid_union")
    return [issue];
  const typed2 = issue.errors.filter((branch) => branch.length > 0 && !branch.some((inner) => inner.path.length === 0 && inner.code === "invalid_type"));
  if (typed2.length !== 1)
    return [issue];
  return typed2[0].flatMap((inner) => throughUnions({ ...inner, path: [...issue.path, ...inner.path] }));
}
function isUnder(issuePath, problems) {
  return problems.some((problem) => problem.path.length <= issuePath.length && problem.path.every((segment, i) => segment === issuePath[i]));
}
function describeIssue(issue, doc, at) {
  if (issue.code === "unrecognized_keys") {
    const known = knownKeys(configSchema, issue.path);
    return issue.keys.map((key) => {
      const keyPath = [...issue.path, key];
      const place2 = locate(doc, keyPath);
      return at(place2.keyOffset ?? place2.offset, formatPath(keyPath), unknownKeyMessage(key, known));
    });
  }
  const place = locate(doc, issue.path);
  let message2 = issue.message;
  if (message2 === "is required" && place.empty)
    message2 = "is empty, but a value is required";
  const duplicate = issue.code === "custom" ? issue.params?.duplicate : void 0;
  if (duplicate) {
    const [first, second] = duplicate.paths.map((p) => `line ${at(locate(doc, p).offset, "", "").line} (${formatPath(p)})`);
    message2 = `${duplicate.what} is declared twice: ${first} and ${second}`;
  }
  return [at(place.offset, formatPath(issue.path), message2)];
}
function bothDayFieldsWarning(expression, timeZone2) {
  if (!restrictsBothDayFields(expression))
    return void 0;
  const next = cronNextFire(expression, timeZone2, /* @__PURE__ */ new Date());
  return `"${expression}" restricts both day-of-month and day-of-week: topsync (node-cron) fires only on days that match both, not on days that match either as crontab does` + (next ? ` (next fire ${next.toISOString()})` : " (it never fires)") + "; for either, write two jobs, one per day field";
}
function atPassedWarning(at, catchUpMs, now) {
  if (at.getTime() > now.getTime())
    return void 0;
  const tooLate = now.getTime() - at.getTime() >= catchUpMs;
  return `${at.toISOString()} has passed: ` + (tooLate ? `it is more than catch_up (${formatDuration(catchUpMs)}) ago, so it will not fire` : `it will not fire for a job topsync first sees now (a one-off time before the job was first seen never fires); a job seen before it fires once, within catch_up (${formatDuration(catchUpMs)})`);
}
function anchorPaths(config, directory) {
  return {
    ...config,
    purchases: config.purchases.map((job) => job.recipients_file === void 0 ? job : { ...job, recipients_file: path.resolve(directory, job.recipients_file) })
  };
}
function domainWarnings(config, doc, at) {
  const websites = config.websites.items.flatMap((item, index) => {
    if (item.declared_domain === item.domain)
      return [];
    const itemPath = ["websites", "items", index, "domain"];
    const message2 = `${JSON.stringify(item.declared_domain)} is normalised to ${JSON.stringify(item.domain)}`;
    return [at(locate(doc, itemPath).offset, formatPath(itemPath), message2)];
  });
  const warn = (issuePath, message2) => at(locate(doc, issuePath).offset, formatPath(issuePath), message2);
  const schedules = config.purchases.flatMap((job, index) => {
    const found = [];
    if (job.schedule !== void 0) {
      const message2 = bothDayFieldsWarning(job.schedule, job.timezone ?? config.timezone);
      if (message2)
        found.push(warn(["purchases", index, "schedule"], message2));
    }
    if (job.at !== void 0) {
      const message2 = atPassedWarning(job.at, job.catch_up, /* @__PURE__ */ new Date());
      if (message2)
        found.push(warn(["purchases", index, "at"], message2));
    }
    return found;
  });
  const loop = config.websites.schedule === void 0 ? void 0 : bothDayFieldsWarning(config.websites.schedule, config.timezone);
  return [...websites, ...schedules, ...loop ? [warn(["websites", "schedule"], loop)] : []];
}

export {
  normaliseDomain,
  domainProblem,
  checkConfigFiles,
  privacyName,
  configJsonSchema,
  redactSecretForms,
  ConfigError,
  loadConfig
};
