// Field-level schemas shared by the config sections: durations, money, counts, flags, cron, time zones.
// Each accepts the text a YAML scalar or an environment variable gives and says in its message what it wanted.
import { isIP } from "node:net";
import cron from "node-cron";
import * as z from "zod";
import { formatDuration, parseDuration } from "../duration.js";
import { fitsLedger, MONEY_MAX, parseMoney } from "../money.js";
import { cronNextFire } from "../time/cron.js";

/** How a value is quoted in a message: strings quoted, collections named, never a whole structure. */
export function show(input: unknown): string {
  if (input === undefined) return "nothing";
  if (input === null) return "an empty value";
  if (typeof input === "string") return JSON.stringify(input);
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return "a mapping";
  return String(input);
}

/**
 * For refinements of a mapping that must run even when one of its fields already failed, so every issue is
 * collected; they skip only a value that is not a mapping at all (its type error says enough).
 */
export const evenWithFieldIssues = {
  when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null,
} as const;

type Issue = { input?: unknown };
/** An error function that leaves "required" to the parse-wide error map. */
function message(make: (input: unknown) => string) {
  return (iss: Issue) => (iss.input === undefined ? undefined : make(iss.input));
}

const DURATION_PATTERN = /^\s*(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+\s*$/;
const BARE_NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;

export function durationMessage(input: unknown): string {
  const text =
    typeof input === "number" ? String(input) : typeof input === "string" ? input.trim() : undefined;
  if (text !== undefined && BARE_NUMBER.test(text)) {
    return `expected a duration with a unit (500ms, 30s, 10m, 24h, 7d), got ${text}; did you mean "${text}s"?`;
  }
  return `expected a duration like "500ms", "30s", "10m" or "24h", got ${show(input)}`;
}

/**
 * The longest duration topsync waits out with a timer: 24 days. Node.js's timers hold at most 2^31 − 1 ms (24.8
 * days) and fire at once, with a warning, when asked for more: a `reseller.timeout` of "9999d" would make every
 * call time out at once.
 */
export const MAX_TIMER_MS = 24 * 86_400_000;
/** The longest of the durations that only date times (a plan's life, a catch-up window): ten years. */
export const MAX_SPAN_MS = 3650 * 86_400_000;

/**
 * A duration string ("500ms", "30s", "1h30m") parsed to milliseconds; bare numbers are refused. At most `max`:
 * MAX_TIMER_MS unless told, since most durations are waited out; MAX_SPAN_MS for those that only date times.
 */
export function duration(options: { min?: number; max?: number } = {}) {
  const error = message(durationMessage);
  const min = options.min ?? 0;
  const max = options.max ?? MAX_TIMER_MS;
  return z
    .string({ error })
    .regex(DURATION_PATTERN, { error })
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms < min)
        ctx.addIssue({ code: "custom", input: text, message: `must be at least ${min}ms, got "${text}"` });
      if (ms > max)
        ctx.addIssue({
          code: "custom",
          input: text,
          message: `must be at most ${formatDuration(max)}, got "${text}"`,
        });
      return ms;
    })
    .meta({
      description: 'A duration: a number and a unit (ms, s, m, h, d), e.g. "500ms", "30s", "10m", "24h".',
    });
}

const MONEY_PATTERN = /^\d+(?:\.\d{1,2})?$/;
/** A YAML number this large or larger is written with an exponent ("1e+21"), which is not an amount. */
const MONEY_NUMBER_LIMIT = 1e21;

function moneyMessage(input: unknown): string {
  const text =
    typeof input === "string" ? input.trim() : typeof input === "number" ? String(input) : undefined;
  if (text === undefined) return `expected a decimal amount like "350.00", got ${show(input)}`;
  const base = `expected a decimal amount like "350.00", got "${text}"`;
  if (/^-\d+(?:\.\d+)?$/.test(text)) return `${base} (amounts cannot be negative)`;
  return base;
}

/**
 * An amount of money: a decimal string with at most two decimal places, at least zero, as big.js.
 * The loader hands YAML numbers over as their source text, so `350.10` stays "350.10".
 */
export function money() {
  const error = message(moneyMessage);
  return z
    .union(
      [
        z.string({ error }).trim().regex(MONEY_PATTERN, { error }),
        z
          .number({ error })
          .min(0, { error })
          .lt(MONEY_NUMBER_LIMIT, { error })
          .multipleOf(0.01, { error })
          .refine((n) => MONEY_PATTERN.test(String(n)), { error }),
      ],
      { error },
    )
    .transform((value, ctx) => {
      const amount = parseMoney(String(value));
      if (!fitsLedger(amount)) {
        ctx.addIssue({
          code: "custom",
          input: value,
          message: `must be at most ${MONEY_MAX.toFixed(2)} (the most the ledger's money columns hold), got "${String(value)}"`,
        });
        return z.NEVER;
      }
      return amount;
    })
    .meta({
      description:
        "An amount of money: at least 0, at most 999999999999.99 (what the ledger holds), with at most two " +
        'decimal places, e.g. "350.00" (a number written with an exponent, like 1e21, is refused).',
    });
}

const BYTE_SIZE = /^\s*(\d+)\s*(B|KB|KiB|MB|MiB|GB|GiB)?\s*$/;
const BYTES_PER_UNIT: Record<string, number> = {
  B: 1,
  KB: 1000,
  KiB: 1024,
  MB: 1000 ** 2,
  MiB: 1024 ** 2,
  GB: 1000 ** 3,
  GiB: 1024 ** 3,
};

/** A size in bytes: a whole number of bytes or a number and a unit ("512KiB", "1MiB", "2MB"), in [min, max]. */
export function byteSize(min: number, max: number) {
  const wanted = `expected a size like "1MiB", "512KiB" or a number of bytes from ${min} to ${max}`;
  const error = message((input) => `${wanted}, got ${show(input)}`);
  return z
    .union(
      [
        z.string({ error }).regex(BYTE_SIZE, { error }),
        z.int({ error }).min(min, { error }).max(max, { error }),
      ],
      {
        error,
      },
    )
    .transform((value, ctx) => {
      const match = BYTE_SIZE.exec(String(value));
      const bytes = match ? Number(match[1]) * (BYTES_PER_UNIT[match[2] ?? "B"] ?? 1) : Number.NaN;
      if (!(bytes >= min && bytes <= max)) {
        ctx.addIssue({ code: "custom", input: value, message: `${wanted}, got ${show(value)}` });
        return z.NEVER;
      }
      return bytes;
    })
    .meta({ description: 'A size: bytes, or a number with B, KB, KiB, MB, MiB, GB or GiB, e.g. "1MiB".' });
}

const INTEGER_TEXT = /^\s*[-+]?\d+\s*$/;
const NUMBER_TEXT = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)\s*$/;

/** A whole number in [min, max]; numeric text (from `${VAR}`) is accepted. */
export function integer(min: number, max: number) {
  const error = message((input) => `expected a whole number from ${min} to ${max}, got ${show(input)}`);
  return z
    .union(
      [
        z.int({ error }).min(min, { error }).max(max, { error }),
        z.string({ error }).regex(INTEGER_TEXT, { error }),
      ],
      { error },
    )
    .transform(Number)
    .pipe(z.number().min(min, { error }).max(max, { error }));
}

/** A number greater than zero; numeric text is accepted. */
export function positiveNumber() {
  const error = message((input) => `expected a number greater than 0, got ${show(input)}`);
  return z
    .union([z.number({ error }).positive({ error }), z.string({ error }).regex(NUMBER_TEXT, { error })], {
      error,
    })
    .transform(Number)
    .pipe(z.number().positive({ error }));
}

/** true/false; the text "true"/"false" (from `${VAR}`) is accepted. */
export function boolean() {
  const error = message((input) => `expected true or false, got ${show(input)}`);
  return z
    .union([z.boolean({ error }), z.enum(["true", "false"], { error })], { error })
    .transform((value) => value === true || value === "true");
}

/** A 0/1 switch as the analytics service sends it; true/false and their text are accepted. */
export function flag() {
  const error = message((input) => `expected true, false, 0 or 1, got ${show(input)}`);
  return z
    .union(
      [z.boolean({ error }), z.literal([0, 1], { error }), z.enum(["true", "false", "0", "1"], { error })],
      {
        error,
      },
    )
    .transform((value): 0 | 1 =>
      value === true || value === 1 || value === "true" || value === "1" ? 1 : 0,
    );
}

/** Why node-cron refuses an expression, or undefined when it accepts it. */
function cronProblem(expression: string): string | undefined {
  try {
    if (cron.validate(expression)) return undefined;
    const reasons = cron.validateDetailed(expression).errors.map((e) => e.message);
    return reasons.length > 0 ? reasons.join("; ") : "not accepted by node-cron";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** "it never fires" when no day in node-cron's 100-year horizon matches it (e.g. "0 0 1 * 5#2"). */
function neverFires(expression: string): string | undefined {
  return cronNextFire(expression, "UTC", new Date()) === undefined
    ? "never fires: no day in the next 100 years matches it (node-cron fires only on a day that matches both its day-of-month and its day-of-week)"
    : undefined;
}

/** What node-cron accepts, for the message about an expression it refuses. */
export const CRON_SYNTAX =
  'five fields (minute hour day-of-month month day-of-week, e.g. "0 8 1 * *") or six with seconds first; ' +
  "in each field *, a number, a range 1-5, a list 1,15, a step */10 or 9-17/2; month and weekday names " +
  "(jan, mon); in day-of-month L (last day), L-3, 15W and LW (nearest weekday); in day-of-week 5L (last " +
  "Friday) and 1#2 (second Monday); ? in either day field; or @hourly, @daily, @weekly, @monthly, @yearly";

/** A cron expression node-cron accepts (five fields, or six with seconds first). */
export function cronExpression() {
  return z
    .string()
    .trim()
    .superRefine((expression, ctx) => {
      const problem = cronProblem(expression);
      if (problem === undefined) {
        const never = neverFires(expression);
        if (never) ctx.addIssue({ code: "custom", input: expression, message: `"${expression}" ${never}` });
        return;
      }
      ctx.addIssue({
        code: "custom",
        input: expression,
        message: `"${expression}" is not a valid cron expression (${problem}); use ${CRON_SYNTAX}`,
      });
    })
    .meta({
      description:
        'A cron expression as node-cron reads it: minute hour day-of-month month day-of-week, e.g. "0 8 1 * *" ' +
        "(six fields with seconds first; L, W, # and @daily are accepted). When both day-of-month and " +
        "day-of-week are restricted, a day must match both (node-cron), not either (crontab). An expression " +
        "that never fires is found by `topsync config check`, not by this schema.",
    });
}

/**
 * The time zones Intl lists, by lower-case name: each is its own canonical name (Intl.DateTimeFormat gives it
 * back as listed). Looking a name up here costs microseconds; the first Intl.DateTimeFormat of a process costs
 * 20–30 ms (ICU's date formats), which a command that formats no date need not pay.
 */
let listedZones: Map<string, string> | undefined;

/** The canonical IANA name of a time zone, or undefined when this Node does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  listedZones ??= new Map(
    [...Intl.supportedValuesOf("timeZone"), "UTC"].map((zone) => [zone.toLowerCase(), zone] as const),
  );
  const listed = listedZones.get(name.toLowerCase());
  if (listed !== undefined) return listed;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** An IANA time zone ("Africa/Lagos"), validated with Intl and output in its canonical spelling. */
export function timeZone() {
  return z
    .string()
    .trim()
    .min(1)
    .transform((name, ctx) => {
      const canonical = canonicalTimeZone(name);
      if (canonical !== undefined) return canonical;
      ctx.addIssue({
        code: "custom",
        input: name,
        message: `unknown time zone "${name}" (use an IANA name like "Africa/Lagos" or "UTC")`,
      });
      return z.NEVER;
    })
    .meta({ description: 'An IANA time zone name, e.g. "Africa/Lagos".' });
}

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** One instant written in ISO 8601 with an explicit offset or Z, output as a Date. */
export function isoInstant() {
  return z
    .string()
    .trim()
    .regex(ISO_WITH_OFFSET, {
      error: message(
        (input) =>
          `expected an ISO time with an offset, like "2026-12-01T08:00:00+01:00", got ${show(input)}`,
      ),
    })
    .transform((text, ctx) => {
      const match = ISO_WITH_OFFSET.exec(text);
      const ms = Date.parse(text);
      if (match && isRealDate(Number(match[1]), Number(match[2]), Number(match[3])) && !Number.isNaN(ms)) {
        return new Date(ms);
      }
      ctx.addIssue({ code: "custom", input: text, message: `"${text}" is not a real date and time` });
      return z.NEVER;
    })
    .meta({ description: 'An ISO 8601 time with an offset or Z, e.g. "2026-12-01T08:00:00+01:00".' });
}

/** The start of an http(s) URL with a host, for the JSON Schema; `isHttpUrl` decides. */
const HTTP_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]+/;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** An http(s) base URL, output without trailing slashes so paths can be appended. */
export function httpUrl() {
  const error = message(
    (input) => `expected an http(s) URL like "http://127.0.0.1:4010", got ${show(input)}`,
  );
  return (
    z
      .string({ error })
      .trim()
      .regex(HTTP_URL_PATTERN, { error })
      .refine(isHttpUrl, { error })
      // Paths are appended to the base URL, so a query or fragment would be dropped silently (and a key there
      // would travel where it should not); the value is not echoed, as it may carry one.
      .refine((text) => !/[?#]/.test(text), {
        error:
          "must not have a query string or fragment (?… or #…): topsync appends paths to it and would drop them; give the key as api_key",
      })
      .transform((text) => text.replace(/\/+$/, ""))
      .meta({ description: 'An http(s) base URL, e.g. "http://127.0.0.1:4010".' })
  );
}

/** Printable ASCII: what an HTTP header value can carry. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** An API key: sent as `Authorization: Bearer <key>`, so printable ASCII without spaces; never echoed. */
export function apiKey() {
  return text().refine((key) => HEADER_SAFE.test(key), {
    error: (iss) => {
      const at = [...String(iss.input)].findIndex((char) => !HEADER_SAFE.test(char));
      return `must be printable ASCII without spaces (it is sent in an HTTP header); character ${at + 1} is not`;
    },
  });
}

/** Non-empty text, trimmed. */
export function text() {
  return z.string().trim().min(1);
}

/**
 * A list whose every entry is checked: a YAML list (an entry with a line break in it is an error, never two
 * entries) or one string with an entry per line. `problem` says why an entry (trimmed) cannot be used.
 */
function checkedList(problem: (entry: string) => string | undefined, description: string) {
  return z
    .union([z.array(z.string()), z.string()])
    .superRefine((value, ctx) => {
      const report = (entry: string, path: number[]) => {
        const why = entry.trim() === "" ? undefined : problem(entry.trim());
        if (why !== undefined) ctx.addIssue({ code: "custom", path, input: entry, message: why });
      };
      if (!Array.isArray(value)) {
        for (const line of value.split(/\r?\n/)) report(line, []);
        return;
      }
      value.forEach((entry, index) => {
        if (/[\r\n]/.test(entry)) {
          ctx.addIssue({
            code: "custom",
            path: [index],
            input: entry,
            message: `${show(entry)} contains a line break; write each entry as its own list item`,
          });
        } else report(entry, [index]);
      });
    })
    .transform((value) =>
      (Array.isArray(value) ? value : value.split(/\r?\n/))
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ""),
    )
    .meta({ description });
}

/** Why an entry is not an IPv4 or IPv6 address or a CIDR range (node:net's isIP, prefix within bounds). */
export function ipProblem(entry: string): string | undefined {
  const [address = "", prefix, extra] = entry.split("/");
  const version = isIP(address);
  const expected = 'expected an IPv4 or IPv6 address or a CIDR range like "203.0.113.0/24"';
  if (version === 0 || extra !== undefined)
    return `${show(entry)} is not an IP address or CIDR range: ${expected}`;
  if (prefix === undefined) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
    return `${show(entry)} is not a CIDR range: the prefix of an IPv${version} range is 0 to ${bits}`;
  }
  return undefined;
}

/** Addresses and CIDR ranges, one per entry. */
export function ipList() {
  return checkedList(ipProblem, "IPv4/IPv6 addresses or CIDR ranges, e.g. 203.0.113.7 or 198.51.100.0/24.");
}

/** Non-empty tokens without whitespace (query parameter names), one per entry. */
export function tokenList() {
  return checkedList(
    (entry) =>
      /\s/.test(entry)
        ? `${show(entry)} contains whitespace: expected a query parameter name like "utm_source"`
        : undefined,
    "Query parameter names without whitespace, e.g. utm_source.",
  );
}

/**
 * A config section whose schema is built only when a config has the section. Building zod schemas is a good part
 * of every command's start (the approvals, notifications and console sections took some 15–25 ms of it together),
 * and most configs leave those sections out. Absent, the section is `absent()`: what its schema makes of `{}`, which
 * test/config/sections.test.ts checks it stays. Present, it is the schema's, issues and paths alike. For an editor
 * (`config schema`), it reads as the section's own schema with a default of `{}` (src/config/json-schema.ts).
 */
export function optionalSection<S extends z.ZodType>(build: () => S, absent: () => z.output<S>) {
  // `.default` answers an absent value itself, without the inner schema (`.optional` and `.prefault` ask it).
  return z.lazy(build).default(absent as () => z.util.NoUndefined<z.output<S>>);
}
