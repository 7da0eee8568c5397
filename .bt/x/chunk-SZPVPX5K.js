import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  stringify
} from "./chunk-R4UDDDHW.js";
import {
  networkOfNumber
} from "./chunk-5653Z76Z.js";
import {
  require_dist
} from "./chunk-L3UC3SYL.js";
import {
  external_exports
} from "./chunk-WW7OP26R.js";
import {
  big_default
} from "./chunk-TULZGMTI.js";
import {
  __toESM
} from "./chunk-V4RWK56N.js";

// dist/sandbox/fault-config.js
var import_yaml = __toESM(require_dist(), 1);
import { readFileSync } from "node:fs";
var ENDPOINT_NAMES = [
  "networks",
  "plans",
  "data",
  "transaction",
  "websites.list",
  "websites.get",
  "websites.create",
  "websites.update",
  "websites.delete"
];
var share = external_exports.number().min(0).max(1);
var FAULT_KINDS = [
  "rate429",
  "rate500Before",
  "rate500After",
  "rateHangAfter",
  "rateResetAfter",
  "rateMalformedAfter"
];
var faultSpecSchema = external_exports.strictObject({
  latencyMs: external_exports.number().int().min(0).optional(),
  rate429: share.optional(),
  retryAfter: external_exports.number().min(0).optional(),
  rate500Before: share.optional(),
  rate500After: share.optional(),
  rateHangAfter: share.optional(),
  rateResetAfter: share.optional(),
  rateMalformedAfter: share.optional()
}).refine((spec) => totalShare(spec) <= 1 + 1e-9, {
  message: "fault rates of one endpoint must sum to at most 1"
});
var faultConfigSchema = external_exports.strictObject({
  seed: external_exports.number().int().optional(),
  endpoints: external_exports.partialRecord(external_exports.enum(ENDPOINT_NAMES), faultSpecSchema)
});
function totalShare(spec) {
  return FAULT_KINDS.reduce((sum, kind) => sum + (spec[kind] ?? 0), 0);
}
function parseFaultConfig(value) {
  const result = faultConfigSchema.safeParse(value);
  if (!result.success)
    throw new Error(`invalid fault config: ${external_exports.prettifyError(result.error)}`);
  return result.data;
}
function loadFaultsFile(path) {
  const text = readFileSync(path, "utf8");
  const value = path.endsWith(".json") ? JSON.parse(text) : (0, import_yaml.parse)(text);
  return parseFaultConfig(value);
}

// dist/sandbox/http-util.js
import { setTimeout as delay } from "node:timers/promises";
var MAX_BODY_BYTES = 1024 * 1024;
async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new RangeError("request body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
function parseFields(contentType, body) {
  if (body.length === 0)
    return {};
  const text = body.toString("utf8");
  if ((contentType ?? "").includes("json")) {
    try {
      const value = JSON.parse(text);
      return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}
function textField(fields, name) {
  if (!(name in fields))
    return void 0;
  const value = fields[name];
  if (value === null || value === void 0 || value === "")
    return null;
  if (typeof value === "string")
    return value;
  if (typeof value === "number" || typeof value === "boolean")
    return String(value);
  return JSON.stringify(value);
}
function fieldsAsText(fields) {
  const out = {};
  for (const name of Object.keys(fields))
    out[name] = textField(fields, name) ?? "";
  return out;
}
function sendJson(res, status, body, headers = {}) {
  sendText(res, status, JSON.stringify(body), headers);
}
function sendText(res, status, text, headers = {}) {
  if (res.writableEnded || res.destroyed)
    return;
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers
  });
  res.end(text);
}
async function sleep(ms, signal) {
  if (signal.aborted)
    return false;
  if (ms <= 0)
    return true;
  try {
    await delay(ms, void 0, { signal });
    return true;
  } catch {
    return false;
  }
}

// dist/sandbox/laravel-errors.js
function summarise(errors) {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? "The given data was invalid.";
  const more = messages.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more > 1 ? "s" : ""})` : first;
}

// dist/sandbox/time.js
function isoMicros(date) {
  const micros = String(Math.floor(performance.now() % 1 * 1e3)).padStart(3, "0");
  return date.toISOString().replace(/Z$/, `${micros}Z`);
}

// dist/sandbox/website-store.js
function createWebsiteStore() {
  return { byId: /* @__PURE__ */ new Map(), byDomain: /* @__PURE__ */ new Map(), nextId: 1, version: 0, sorted: /* @__PURE__ */ new Map() };
}
function insertWebsite(store, input, at) {
  const record = { id: store.nextId, ...input, favorite: 0, created_at: at, updated_at: at };
  store.nextId += 1;
  store.byId.set(record.id, record);
  store.byDomain.set(record.domain, record.id);
  store.version += 1;
  return record;
}
function updateWebsite(store, record, changes, at) {
  const entries = Object.entries(changes);
  const dirty = entries.filter(([key, value]) => record[key] !== value);
  if (dirty.length === 0)
    return record;
  Object.assign(record, Object.fromEntries(dirty), { updated_at: at });
  store.version += 1;
  return record;
}
function deleteWebsite(store, record) {
  store.byId.delete(record.id);
  store.byDomain.delete(record.domain);
  store.version += 1;
}
function sortedWebsites(store, sortBy, sort) {
  const key = `${sortBy}:${sort}`;
  const cached = store.sorted.get(key);
  if (cached && cached.version === store.version)
    return cached.list;
  const list = [...store.byId.values()];
  if (sortBy === "domain")
    list.sort((a, b) => a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0);
  else
    list.sort((a, b) => a.id - b.id);
  if (sort === "desc")
    list.reverse();
  store.sorted.set(key, { version: store.version, list });
  return list;
}

// dist/sandbox/website-view.js
function websiteView(record, stringInts) {
  const int = (value) => stringInts ? String(value) : value;
  return {
    id: int(record.id),
    domain: record.domain,
    privacy: int(record.privacy),
    email: int(record.email),
    password: record.password !== null,
    exclude_bots: int(record.exclude_bots),
    exclude_ips: record.exclude_ips,
    created_at: record.created_at,
    updated_at: record.updated_at,
    favorite: int(record.favorite)
  };
}

// dist/sandbox/website-page.js
var PER_PAGE = [10, 25, 50, 100];
function readListQuery(query, perPageCap) {
  const perPage = Number(query.get("per_page"));
  const chosen = PER_PAGE.find((allowed) => allowed === perPage) ?? 10;
  const page = Number(query.get("page"));
  return {
    search: query.get("search") || void 0,
    searchBy: "domain",
    sortBy: query.get("sort_by") === "domain" ? "domain" : "id",
    sort: query.get("sort") === "asc" ? "asc" : "desc",
    perPage: perPageCap === void 0 ? chosen : Math.min(chosen, perPageCap),
    page: Number.isInteger(page) && page >= 1 ? page : 1
  };
}
function matching(store, q) {
  const all = sortedWebsites(store, q.sortBy, q.sort);
  if (!q.search)
    return all;
  const needle = q.search.toLowerCase();
  return all.filter((record) => record.domain.includes(needle));
}
function pageUrl(path, q, page) {
  const params = new URLSearchParams();
  if (q.search)
    params.set("search", q.search);
  params.set("search_by", q.searchBy);
  params.set("sort_by", q.sortBy);
  params.set("sort", q.sort);
  params.set("per_page", String(q.perPage));
  params.set("page", String(page));
  return `${path}?${params.toString()}`;
}
function websitePage(store, query, path, options) {
  const q = readListQuery(query, options.perPageCap);
  const rows = matching(store, q);
  const total = rows.length;
  const lastPage = Math.max(1, Math.ceil(total / q.perPage));
  const start = (q.page - 1) * q.perPage;
  const data = rows.slice(start, start + q.perPage).map((record) => websiteView(record, options.stringInts));
  const from = data.length > 0 ? start + 1 : null;
  const to = data.length > 0 ? start + data.length : null;
  const first = pageUrl(path, q, 1);
  const last = pageUrl(path, q, lastPage);
  const prev = q.page > 1 ? pageUrl(path, q, q.page - 1) : null;
  const next = q.page < lastPage ? pageUrl(path, q, q.page + 1) : null;
  if (options.pageShape === "bare") {
    return {
      current_page: q.page,
      data,
      first_page_url: first,
      from,
      last_page: lastPage,
      last_page_url: last,
      next_page_url: next,
      path,
      per_page: q.perPage,
      prev_page_url: prev,
      to,
      total
    };
  }
  return {
    data,
    links: { first, last, prev, next },
    meta: { current_page: q.page, from, last_page: lastPage, path, per_page: q.perPage, to, total },
    status: 200
  };
}

// dist/sandbox/website-rules.js
var HOSTNAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;
function normaliseDomain(domain) {
  return domain.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, "");
}
function domainError(domain, store, installation) {
  const limit = installation.maxWebsites;
  if (limit !== void 0 && store.byId.size >= limit)
    return "You created too many websites.";
  if (domain == null)
    return "The domain field is required.";
  const normal = normaliseDomain(domain);
  if (normal.length > 255)
    return "The domain must not be greater than 255 characters.";
  if (!HOSTNAME.test(normal))
    return "The domain format is invalid.";
  if (store.byDomain.has(normal) || installation.takenDomains.includes(normal)) {
    return "The domain has already been taken.";
  }
  return void 0;
}
function readSettings(fields, errors) {
  const changes = {};
  const choice = (name, allowed, label) => {
    const text = textField(fields, name);
    if (text === void 0)
      return void 0;
    const value = allowed.find((option) => String(option) === text);
    if (value === void 0)
      errors[name] = [`The selected ${label} is invalid.`];
    return value;
  };
  const privacy = choice("privacy", [0, 1, 2], "privacy");
  const email = choice("email", [0, 1], "email");
  const excludeBots = choice("exclude_bots", [0, 1], "exclude bots");
  if (privacy !== void 0)
    changes.privacy = privacy;
  if (email !== void 0)
    changes.email = email;
  if (excludeBots !== void 0)
    changes.exclude_bots = excludeBots;
  const password = textField(fields, "password");
  if (password != null) {
    if (password.length > 128)
      errors.password = ["The password must not be greater than 128 characters."];
    else
      changes.password = password;
  }
  for (const name of ["exclude_params", "exclude_ips"]) {
    const text = textField(fields, name);
    if (text !== void 0)
      changes[name] = text;
  }
  return changes;
}
function requirePassword(privacy, password, errors) {
  if (privacy === 2 && password == null && !errors.password) {
    errors.password = ["The password field is required when privacy is 2."];
  }
}
function checkCreate(fields, store, installation) {
  const errors = {};
  const domain = textField(fields, "domain");
  const problem = domainError(domain, store, installation);
  if (problem)
    errors.domain = [problem];
  const settings = readSettings(fields, errors);
  const privacy = settings.privacy ?? 1;
  requirePassword(privacy, settings.password, errors);
  if (Object.keys(errors).length > 0)
    return { ok: false, errors };
  return {
    ok: true,
    value: {
      domain: normaliseDomain(domain ?? ""),
      privacy,
      password: settings.password ?? null,
      email: settings.email ?? 0,
      exclude_bots: settings.exclude_bots ?? 1,
      exclude_params: settings.exclude_params ?? null,
      exclude_ips: settings.exclude_ips ?? null
    }
  };
}
function checkUpdate(fields, current) {
  const errors = {};
  const changes = readSettings(fields, errors);
  requirePassword(changes.privacy ?? current.privacy, changes.password ?? current.password, errors);
  if (Object.keys(errors).length > 0)
    return { ok: false, errors };
  return { ok: true, value: changes };
}

// dist/sandbox/analytics.js
var NOT_FOUND = { status: 404, body: { message: "Resource not found.", status: 404 } };
function invalid(state, errors) {
  if (state.options.validationShape === "message-object") {
    return { status: 422, body: { message: errors, status: 422 } };
  }
  return { status: 422, body: { message: summarise(errors), errors } };
}
function shown(state, record, status = 200) {
  const view = websiteView(record, state.options.stringInts);
  return { status, body: state.options.recordShape === "bare" ? view : { data: view, status: 200 } };
}
function findWebsite({ state, params }) {
  return state.websites.byId.get(Number(params[0]));
}
function listWebsites({ state, query, origin, path }) {
  return { status: 200, body: websitePage(state.websites, query, `${origin}${path}`, state.options) };
}
function showWebsite(call) {
  const record = findWebsite(call);
  return record ? shown(call.state, record) : NOT_FOUND;
}
function createWebsite({ state, fields }) {
  const checked = checkCreate(fields, state.websites, state.options);
  if (!checked.ok)
    return invalid(state, checked.errors);
  return shown(state, insertWebsite(state.websites, checked.value, isoMicros(state.clock())), 201);
}
function changeWebsite(call) {
  const { state, fields } = call;
  const record = findWebsite(call);
  if (!record)
    return NOT_FOUND;
  const checked = checkUpdate(fields, record);
  if (!checked.ok)
    return invalid(state, checked.errors);
  return shown(state, updateWebsite(state.websites, record, checked.value, isoMicros(state.clock())));
}
function removeWebsite(call) {
  const record = findWebsite(call);
  if (!record)
    return NOT_FOUND;
  deleteWebsite(call.state.websites, record);
  return { status: 200, body: { id: record.id, object: "website", deleted: true, status: 200 } };
}
var ONE = /^\/api\/v1\/websites\/(\d+)\/?$/;
var ALL = /^\/api\/v1\/websites\/?$/;
var ROUTES = [
  { method: "GET", pattern: ALL, endpoint: "websites.list", handle: listWebsites },
  { method: "POST", pattern: ALL, endpoint: "websites.create", handle: createWebsite },
  { method: "GET", pattern: ONE, endpoint: "websites.get", handle: showWebsite },
  { method: "PUT", pattern: ONE, endpoint: "websites.update", handle: changeWebsite },
  { method: "DELETE", pattern: ONE, endpoint: "websites.delete", handle: removeWebsite }
];
function recordMutation(state, exchange, status) {
  if (exchange.method === "GET" || exchange.method === "HEAD")
    return;
  if (!exchange.path.startsWith("/api/v1/websites"))
    return;
  state.websiteMutations.push({
    method: exchange.method,
    path: exchange.path,
    fields: fieldsAsText(exchange.fields),
    status,
    at: exchange.at
  });
}
var ANALYTICS_SERVICE = {
  service: "analytics",
  routes: ROUTES,
  apiKey: (options) => options.analyticsApiKey,
  unauthenticated: { status: 401, body: { message: "Unauthenticated." } },
  notFound: NOT_FOUND,
  onAnswered: recordMutation,
  throttled: true
};

// dist/sandbox/kobo.js
function toKobo(naira) {
  const text = naira.trim();
  if (!/^\d+(\.\d{1,2})?$/.test(text))
    throw new RangeError(`"${naira}" is not a naira amount`);
  return new big_default(text).times(100).toNumber();
}
function nairaText(kobo) {
  const sign = kobo < 0 ? "-" : "";
  const abs = Math.abs(kobo);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
function nairaNumber(kobo) {
  return Number(nairaText(kobo));
}

// dist/sandbox/lies.js
import { setTimeout as delay2 } from "node:timers/promises";
var liesSchema = external_exports.strictObject({
  /** Plan id → the price text listed for it (anything: "-5.00", "₦500", "0"); the debit stays the real price. */
  prices: external_exports.record(external_exports.string(), external_exports.string()).optional(),
  /** New references are 20 digits, written unquoted (a JSON number beyond 2^53) in purchase and verify answers. */
  referenceAsNumber: external_exports.boolean().optional(),
  /** The purchase answer's `wallet_balance`, written as this JSON number text (e.g. "10000000000000"). */
  walletBalance: external_exports.string().regex(/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/).optional(),
  /** The purchase answer's `amount`, written as this text (the debit stays the real price). */
  amount: external_exports.string().optional(),
  /** Answers of `endpoints` are sent one byte every `trickleMs` milliseconds. */
  trickleMs: external_exports.number().int().min(1).optional(),
  /** Answers of `endpoints` are padded to this many bytes, streamed as the reader takes them. */
  hugeBodyBytes: external_exports.number().int().min(1).optional(),
  /** Where trickling and padding apply; the buy-data endpoint by default. */
  endpoints: external_exports.array(external_exports.enum(ENDPOINT_NAMES)).optional()
});
function answerText(lies, body) {
  let text = JSON.stringify(body);
  if (lies.referenceAsNumber)
    text = text.replace(/"reference":"(\d{16,})"/g, '"reference":$1');
  if (lies.walletBalance !== void 0) {
    text = text.replace(/"wallet_balance":-?[\d.eE+-]+/, `"wallet_balance":${lies.walletBalance}`);
  }
  return text;
}
function deliversSlowly(lies, endpoint) {
  if (lies.trickleMs === void 0 && lies.hugeBodyBytes === void 0)
    return false;
  return (lies.endpoints ?? ["data"]).includes(endpoint);
}
async function deliverSlowly(res, status, text, lies, closing) {
  res.writeHead(status, { "content-type": "application/json" });
  const gone = () => res.destroyed || res.writableEnded || closing.aborted;
  let sent = 0;
  const write = async (chunk) => {
    sent += Buffer.byteLength(chunk);
    if (!res.write(chunk)) {
      await new Promise((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  };
  const bytes = Buffer.from(text);
  if (lies.hugeBodyBytes !== void 0) {
    await write(bytes.subarray(0, 1));
    const pad = Buffer.alloc(64 * 1024, " ");
    let left = lies.hugeBodyBytes - bytes.length;
    while (left > 0 && !gone()) {
      await write(left >= pad.length ? pad : pad.subarray(0, left));
      left -= pad.length;
    }
    if (!gone())
      res.end(bytes.subarray(1));
    return sent;
  }
  for (let i = 0; i < bytes.length && !gone(); i++) {
    await write(bytes.subarray(i, i + 1));
    try {
      await delay2(lies.trickleMs ?? 0, void 0, { signal: closing });
    } catch {
      break;
    }
  }
  if (!gone())
    res.end();
  return sent;
}

// dist/sandbox/options.js
var share2 = external_exports.number().min(0).max(1);
var count = external_exports.number().int().min(0);
var sandboxOptionsSchema = external_exports.strictObject({
  resellerPort: external_exports.number().int().min(0).max(65535).optional(),
  analyticsPort: external_exports.number().int().min(0).max(65535).optional(),
  host: external_exports.string().min(1).optional(),
  apiKey: external_exports.string().min(1).optional(),
  analyticsApiKey: external_exports.string().min(1).optional(),
  latencyMs: count.optional(),
  seed: external_exports.number().int().optional(),
  walletBalance: external_exports.string().regex(/^\d+(\.\d{1,2})?$/, "a decimal naira amount such as 1000000.00").optional(),
  failRate: share2.optional(),
  reverseRate: share2.optional(),
  verifyNotFoundPolls: count.optional(),
  verifyPendingPolls: count.optional(),
  pageShape: external_exports.enum(["laravel", "bare"]).optional(),
  validationShape: external_exports.enum(["laravel", "message-object"]).optional(),
  stringInts: external_exports.boolean().optional(),
  maxWebsites: count.optional(),
  /** A lying provider: it debits (and answers with) the listed price times this. */
  overchargeFactor: external_exports.number().positive().max(1e3).optional(),
  /** A lying provider: verify answers name another phone, amount or reference, or say `status: false`. */
  verifyLie: external_exports.enum(["none", "phone", "amount", "reference", "status_false", "failed_huge_refund"]).optional(),
  /** Single-record answers (create, show, update): wrapped in `{data, status}` or the bare model. */
  recordShape: external_exports.enum(["wrapped", "bare"]).optional(),
  /** An installation configured with smaller pages: per_page is answered at most this. */
  perPageCap: external_exports.number().int().min(1).optional(),
  /** Domains another account on the installation holds: never listed, a create of one is a 422 "taken". */
  takenDomains: external_exports.array(external_exports.string().min(1)).optional(),
  /** Laravel's throttle on the analytics API: `limit` requests per window; null or absent is off. */
  throttle: external_exports.strictObject({ limit: external_exports.number().int().min(1), windowSeconds: external_exports.number().positive() }).nullable().optional(),
  /** Where each debit's notification (seed §6 `webhook_response`) is POSTed; empty: nowhere. */
  notifyUrl: external_exports.union([external_exports.url({ protocol: /^https?$/ }), external_exports.literal("")]).optional(),
  /** The HMAC-SHA256 key of the `X-Signature` header (hex of the raw body). */
  notifySecret: external_exports.string().min(1).optional(),
  /** Extra deliveries of each notification (a provider retrying or repeating itself). */
  notifyDuplicates: count.max(10).optional(),
  /** Keep notifications until `deliverNotifications()` (tests decide when they arrive). */
  notifyHold: external_exports.boolean().optional(),
  faults: faultConfigSchema.optional(),
  /** Answers the reseller gets wrong on purpose (see lies.ts); replaced whole when set. */
  lies: liesSchema.optional()
});
var DEFAULT_OPTIONS = {
  resellerPort: 0,
  analyticsPort: 0,
  host: "127.0.0.1",
  apiKey: "sandbox-reseller-key",
  analyticsApiKey: "sandbox-analytics-key",
  latencyMs: 0,
  seed: 1,
  walletBalance: "1000000.00",
  failRate: 0,
  reverseRate: 0,
  verifyNotFoundPolls: 1,
  verifyPendingPolls: 1,
  pageShape: "laravel",
  validationShape: "laravel",
  stringInts: false,
  maxWebsites: void 0,
  overchargeFactor: 1,
  verifyLie: "none",
  recordShape: "wrapped",
  perPageCap: void 0,
  takenDomains: [],
  throttle: null,
  lies: {},
  notifyUrl: "",
  notifySecret: "sandbox-webhook-secret",
  notifyDuplicates: 1,
  notifyHold: false
};
function parseOptions(value) {
  const result = sandboxOptionsSchema.safeParse(value ?? {});
  if (!result.success)
    throw new Error(`invalid sandbox options: ${external_exports.prettifyError(result.error)}`);
  return result.data;
}
function mergeOptions(base, change) {
  const merged = { ...base };
  for (const [key, value] of Object.entries(change)) {
    if (value !== void 0 && key !== "faults")
      merged[key] = value;
  }
  merged.takenDomains = merged.takenDomains.map((domain) => domain.trim().toLowerCase());
  if (merged.failRate + merged.reverseRate > 1) {
    throw new Error("invalid sandbox options: failRate + reverseRate must be at most 1");
  }
  return merged;
}

// dist/sandbox/prng.js
function createPrng(seed2) {
  let a = seed2 >>> 0;
  return () => {
    a = a + 1831565813 >>> 0;
    let t = a;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  };
}
function createNamedPrng(seed2, name) {
  let hash = 2166136261 ^ seed2 >>> 0;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return createPrng(hash >>> 0);
}

// dist/sandbox/state.js
import { setMaxListeners } from "node:events";
function createState(initial, faults, clock) {
  return {
    initial,
    options: initial,
    clock,
    walletKobo: toKobo(initial.walletBalance),
    debits: [],
    refunds: [],
    transactions: /* @__PURE__ */ new Map(),
    websites: createWebsiteStore(),
    websiteMutations: [],
    requests: [],
    faults,
    faultStreams: /* @__PURE__ */ new Map(),
    outcomes: createPrng(initial.seed),
    heldNotifications: [],
    deliveries: /* @__PURE__ */ new Set(),
    closing: closingController()
  };
}
function closingController() {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
function resetState(state, options, faults) {
  state.options = options;
  state.walletKobo = toKobo(options.walletBalance);
  state.debits = [];
  state.refunds = [];
  state.transactions = /* @__PURE__ */ new Map();
  state.websites = createWebsiteStore();
  state.websiteMutations = [];
  state.requests = [];
  state.faults = faults;
  state.faultStreams = /* @__PURE__ */ new Map();
  state.outcomes = createPrng(options.seed);
  state.throttle = void 0;
  state.heldNotifications = [];
}

// dist/sandbox/controls.js
var NO_FAULTS = { endpoints: {} };
function walletText(state) {
  return nairaText(state.walletKobo);
}
function websiteRecords(state) {
  return [...state.websites.byId.values()].map((record) => ({ ...record }));
}
function debitRecords(state) {
  return state.debits.map((debit) => ({ ...debit }));
}
function refundRecords(state) {
  return state.refunds.map((refund) => ({ ...refund }));
}
function mutationRecords(state) {
  return state.websiteMutations.map((mutation) => ({ ...mutation, fields: { ...mutation.fields } }));
}
function requestRecords(state) {
  return state.requests.map((entry) => ({ ...entry }));
}
function stateSnapshot(state) {
  return {
    wallet: walletText(state),
    debits: debitRecords(state),
    refunds: refundRecords(state),
    websiteMutations: mutationRecords(state),
    websites: websiteRecords(state),
    requestCount: state.requests.length
  };
}
function setFaults(state, faults) {
  state.faults = parseFaultConfig(faults);
  state.faultStreams = /* @__PURE__ */ new Map();
}
function setOptions(state, change) {
  const options = parseOptions(change);
  state.options = mergeOptions(state.options, options);
  if (options.walletBalance !== void 0)
    state.walletKobo = toKobo(options.walletBalance);
  if (options.seed !== void 0) {
    state.outcomes = createPrng(options.seed);
    state.faultStreams = /* @__PURE__ */ new Map();
  }
  if (options.faults !== void 0)
    setFaults(state, options.faults);
}
function resetSandbox(state, change) {
  const options = parseOptions(change);
  resetState(state, mergeOptions(state.initial, options), options.faults ?? NO_FAULTS);
}
function seedWebsites(state, seeds) {
  const at = isoMicros(state.clock());
  return seeds.map((seed2) => {
    const domain = normaliseDomain(seed2.domain);
    if (!domain.includes("."))
      throw new Error(`seed website "${seed2.domain}" is not a domain`);
    if (state.websites.byDomain.has(domain))
      throw new Error(`seed website "${domain}" already exists`);
    const input = {
      domain,
      privacy: seed2.privacy ?? 1,
      password: seed2.password ?? null,
      email: seed2.email ?? 0,
      exclude_bots: seed2.exclude_bots ?? 1,
      exclude_params: seed2.exclude_params ?? null,
      exclude_ips: seed2.exclude_ips ?? null
    };
    return { ...insertWebsite(state.websites, input, at) };
  });
}
function seedNumberedWebsites(state, count2, prefix) {
  const seeds = [];
  for (let n = 1; seeds.length < count2; n++) {
    const domain = `${prefix}-${String(n).padStart(5, "0")}.example.com`;
    if (!state.websites.byDomain.has(domain))
      seeds.push({ domain });
  }
  return seedWebsites(state, seeds);
}

// dist/sandbox/catalogue.js
var SANDBOX_NETWORKS = Object.freeze([
  Object.freeze({ code: "1", name: "MTN", other_name: "mtn" }),
  Object.freeze({ code: "2", name: "GLO", other_name: "glo" }),
  Object.freeze({ code: "3", name: "9MOBILE", other_name: "t2" }),
  Object.freeze({ code: "4", name: "AIRTEL", other_name: "airtel" })
]);
var SME = "SME";
var CG = "CORPORATE GIFTING";
var DG = "DIRECT GIFTING";
var PLAN_ROWS = {
  "1": [
    ["101", "168.00", "500MB", "500MB for 30 Days", CG],
    ["102", "305.00", "1GB", "1GB for 30 Days", CG],
    ["103", "580.00", "2GB", "2GB for 30 Days", CG],
    ["104", "1405.00", "5GB", "5GB for 30 Days", CG],
    ["105", "2780.00", "10GB", "10GB for 30 Days", CG],
    ["106", "140.00", "500", "500MB SME 30 Days", SME],
    ["107", "270.00", "1.0GB", "1.0GB SME 30 Days", SME],
    ["108", "810.00", "3GB", "3GB SME 30 Days", SME],
    ["109", "490.00", "1.5GB", "1.5GB 2 Days", DG],
    ["110", "1470.00", "2.6GB", "2.6GB 30 Days (1.1GB + 1.5GB Night)", DG],
    ["111", "500.00", "1GB+1GB", "1GB+1GB Day and Night 7 Days", DG],
    ["112", "5400.00", "20GB", "20GB for 30 Days", DG]
  ],
  "2": [
    ["201", "95.00", "200", "200MB for 14 Days", CG],
    ["202", "235.00", "500MB", "500MB for 30 Days", CG],
    ["203", "465.00", "1GB", "1GB for 30 Days", CG],
    ["204", "930.00", "2GB", "2GB for 30 Days", CG],
    ["205", "1395.00", "3GB", "3GB for 30 Days", CG],
    ["206", "2325.00", "5GB", "5GB for 30 Days", CG],
    ["207", "4650.00", "10GB", "10GB for 30 Days", CG],
    ["208", "430.00", "1.0GB", "1.0GB SME 7 Days", SME],
    ["209", "1000.00", "2.9GB", "2.9GB 30 Days (1.9GB + 1GB Night)", DG]
  ],
  "3": [
    ["301", "165.00", "500MB", "500MB for 30 Days", CG],
    ["302", "330.00", "1GB", "1GB for 30 Days", CG],
    ["303", "495.00", "1.5GB", "1.5GB for 30 Days", CG],
    ["304", "660.00", "2GB", "2GB for 30 Days", CG],
    ["305", "990.00", "3GB", "3GB for 30 Days", CG],
    ["306", "1485.00", "4.5GB", "4.5GB for 30 Days", CG],
    ["307", "1650.00", "5GB", "5GB for 30 Days", CG],
    ["308", "3300.00", "10GB", "10GB for 30 Days", CG],
    ["309", "310.00", "1.0GB", "1.0GB SME 30 Days", SME]
  ],
  "4": [
    ["401", "105.00", "100", "100MB for 1 Day", CG],
    ["402", "320.00", "300MB", "300MB for 2 Days", CG],
    ["403", "505.00", "500MB", "500MB for 7 Days", CG],
    ["404", "822.00", "1GB", "1GB for 7 Days", CG],
    ["405", "1480.00", "2GB", "2GB for 30 Days", CG],
    ["406", "1970.00", "3GB", "3GB for 30 Days", CG],
    ["407", "2460.00", "4GB", "4GB for 30 Days", CG],
    ["408", "4900.00", "10GB", "10GB for 30 Days", CG],
    ["409", "1000.00", "1.5GB", "1.5GB for 30 Days", DG],
    ["410", "1500.00", "Unlimited", "Unlimited Social 30 Days", DG]
  ]
};
function buildPlans(network) {
  const networkObject = Object.freeze({
    id: network.code,
    name: network.name,
    other_name: network.other_name,
    code: network.code
  });
  return (PLAN_ROWS[network.code] ?? []).map(([id, price, size, name, type]) => Object.freeze({ id, price, size, name, type, network: networkObject }));
}
var SANDBOX_PLANS = Object.freeze(SANDBOX_NETWORKS.flatMap(buildPlans));
function findNetwork(code) {
  return SANDBOX_NETWORKS.find((network) => network.code === code);
}
function plansOfNetwork(code) {
  return SANDBOX_PLANS.filter((plan) => plan.network.code === code);
}
function findPlan(id) {
  return SANDBOX_PLANS.find((plan) => plan.id === id);
}
function sizeLabel(plan) {
  return /^\d+$/.test(plan.size) ? `${plan.size}MB` : plan.size;
}

// dist/sandbox/notify.js
import { createHmac } from "node:crypto";
import { setTimeout as delay3 } from "node:timers/promises";

// dist/sandbox/transactions.js
import { randomBytes } from "node:crypto";
var ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
function newReference(taken, digits = false) {
  for (; ; ) {
    const bytes = randomBytes(20);
    let reference = "";
    for (const byte of bytes) {
      reference += digits ? String(reference === "" ? 1 + byte % 9 : byte % 10) : ALPHABET[byte % ALPHABET.length];
    }
    if (!taken.has(reference))
      return reference;
  }
}
function maskPhone(phone) {
  return `${phone.slice(0, 4)}****${phone.slice(-3)}`;
}
function successMessage(tx) {
  return `Dear Customer, You have successfully gifted ${tx.phone} with ${sizeLabel(tx.plan)} of data. Reference: ${tx.reference}`;
}
function providerText(tx, delivered) {
  const international = `234${tx.phone.slice(1)}`;
  return delivered ? `SUCCESSFUL: You have gifted ${sizeLabel(tx.plan)} to ${international}. Thank you.` : `FAILED: Gifting ${sizeLabel(tx.plan)} to ${international} was not completed by the network.`;
}
function payloadData(tx, message, walletKobo, delivered) {
  const network = tx.plan.network.name;
  return {
    service: `${network} Data`,
    amount: nairaText(tx.amountKobo),
    plan: sizeLabel(tx.plan),
    phone_number: tx.phone,
    date: tx.createdAt,
    message,
    reference: tx.reference,
    network,
    wallet_balance: nairaNumber(walletKobo),
    true_response: providerText(tx, delivered)
  };
}
function purchaseResult(tx) {
  const message = successMessage(tx);
  return {
    success: true,
    code: 200,
    status: "successful",
    message,
    data: payloadData(tx, message, tx.finalKobo, true)
  };
}
function failedPayload(tx) {
  const verb = tx.finalStatus === "reversed" ? "was reversed" : "failed";
  const message = `Transaction ${tx.reference} ${verb}. N${nairaText(tx.amountKobo)} has been refunded to your wallet.`;
  return {
    success: false,
    code: 400,
    status: "failed",
    message,
    data: payloadData(tx, message, tx.initialKobo, false)
  };
}
function notificationPayload(tx) {
  return tx.finalStatus === "success" ? purchaseResult(tx) : failedPayload(tx);
}
function transactionView(tx, status) {
  const delivered = status !== "failed" && status !== "reversed";
  const network = tx.plan.network.name;
  return {
    service_plan_id: Number(tx.plan.id),
    service: network,
    phone_number: maskPhone(tx.phone),
    service_type: "Data Topup",
    description: `${network} ${sizeLabel(tx.plan)} data topup to ${maskPhone(tx.phone)}`,
    amount: nairaText(tx.amountKobo),
    initial_balance: nairaText(tx.initialKobo),
    final_balance: nairaText(tx.finalKobo),
    reference: tx.reference,
    status,
    created_at: tx.createdAt,
    true_response: providerText(tx, delivered),
    webhook_response: delivered ? purchaseResult(tx) : failedPayload(tx)
  };
}
function statementRows(transactions) {
  const rows = [["reference", "phone", "amount", "date", "status"]];
  for (const tx of transactions)
    rows.push([
      tx.reference,
      tx.phone,
      nairaText(tx.amountKobo),
      tx.createdAt,
      tx.finalStatus === "success" ? "successful" : tx.finalStatus
    ]);
  return rows;
}

// dist/sandbox/notify.js
var ATTEMPTS = 3;
function notifyTransaction(state, tx) {
  if (!state.options.notifyUrl)
    return;
  if (state.options.notifyHold)
    state.heldNotifications.push(tx);
  else
    track(state, deliver(state, tx));
}
async function deliverNotifications(state) {
  for (const tx of state.heldNotifications.splice(0))
    track(state, deliver(state, tx));
  while (state.deliveries.size > 0)
    await Promise.all(state.deliveries);
}
function track(state, delivery) {
  const followed = delivery.catch(() => {
  });
  state.deliveries.add(followed);
  void followed.finally(() => state.deliveries.delete(followed));
}
async function deliver(state, tx) {
  const { notifyUrl, notifySecret, notifyDuplicates } = state.options;
  const body = JSON.stringify(notificationPayload(tx));
  const signature = createHmac("sha256", notifySecret).update(body).digest("hex");
  const signal = state.closing.signal;
  for (let copy = 0; copy <= notifyDuplicates; copy++) {
    for (let attempt = 1; attempt <= ATTEMPTS && !signal.aborted; attempt++) {
      try {
        const answer = await fetch(notifyUrl, {
          method: "POST",
          headers: { "content-type": "application/json", "x-signature": signature },
          body,
          signal
        });
        await answer.arrayBuffer();
        if (answer.ok)
          break;
      } catch {
      }
      if (attempt < ATTEMPTS)
        await delay3(20 * attempt, void 0, { signal }).catch(() => {
        });
    }
  }
}

// dist/sandbox/wallet.js
function debitWallet(state, tx) {
  state.walletKobo -= tx.amountKobo;
  const debit = {
    reference: tx.reference,
    network_id: tx.networkId,
    plan_id: tx.plan.id,
    phone_number: tx.phone,
    amount: nairaText(tx.amountKobo),
    at: isoMicros(state.clock())
  };
  state.debits.push(debit);
  return debit;
}
function refundOnce(state, tx) {
  if (tx.refunded)
    return;
  tx.refunded = true;
  state.walletKobo += tx.amountKobo;
  state.refunds.push({
    reference: tx.reference,
    amount: nairaText(tx.amountKobo),
    at: isoMicros(state.clock())
  });
}

// dist/sandbox/purchase.js
var REQUIRED = ["network_id", "plan_id", "phone_number"];
function failed(httpStatus, code, message, extra = {}) {
  return { status: httpStatus, body: { success: false, code, status: "failed", message, ...extra } };
}
function validationErrors(fields) {
  const errors = {};
  for (const name of REQUIRED) {
    if (textField(fields, name) == null)
      errors[name] = [`The ${name.replace("_", " ")} field is required.`];
  }
  const phone = textField(fields, "phone_number");
  if (phone != null && !/^0\d{10}$/.test(phone)) {
    errors.phone_number = ["The phone number must be 11 digits starting with 0."];
  }
  return errors;
}
function isPorted(fields) {
  const value = fields.ported_number;
  return value === true || value === 1 || ["true", "1", "yes", "on"].includes(String(value).toLowerCase());
}
function drawOutcome(state) {
  const draw = state.outcomes();
  if (draw < state.options.failRate)
    return "failed";
  if (draw < state.options.failRate + state.options.reverseRate)
    return "reversed";
  return "success";
}
function accept(state, networkId, plan, phone) {
  const amountKobo = Math.round(toKobo(plan.price) * state.options.overchargeFactor);
  const tx = {
    reference: newReference(state.transactions, state.options.lies.referenceAsNumber === true),
    networkId,
    plan,
    phone,
    amountKobo,
    initialKobo: state.walletKobo,
    finalKobo: state.walletKobo - amountKobo,
    createdAt: isoMicros(state.clock()),
    finalStatus: drawOutcome(state),
    verifyCalls: 0,
    refunded: false
  };
  state.transactions.set(tx.reference, tx);
  debitWallet(state, tx);
  return tx;
}
function buyData({ state, fields }) {
  const errors = validationErrors(fields);
  if (Object.keys(errors).length > 0)
    return failed(422, 422, summarise(errors), { errors });
  const networkId = textField(fields, "network_id");
  const phone = textField(fields, "phone_number");
  const plan = findPlan(textField(fields, "plan_id"));
  if (!plan || plan.network.code !== networkId)
    return failed(400, 400, "Invalid plan.");
  const numberNetwork = networkOfNumber(phone);
  if (numberNetwork !== void 0 && numberNetwork !== plan.network.name && !isPorted(fields)) {
    return failed(200, 400, `Number ${phone} is not a valid ${plan.network.name} number.`);
  }
  if (state.walletKobo < toKobo(plan.price))
    return failed(402, 402, "Insufficient balance.");
  const tx = accept(state, networkId, plan, phone);
  notifyTransaction(state, tx);
  const body = purchaseResult(tx);
  if (state.options.lies.amount !== void 0)
    body.data.amount = state.options.lies.amount;
  return { status: 200, body, text: answerText(state.options.lies, body) };
}

// dist/sandbox/verify.js
var NOT_FOUND2 = { status: 404, body: { status: false, message: "Transaction not found." } };
function verifyTransaction({ state, params }) {
  const tx = state.transactions.get(decodeURIComponent(params[0] ?? ""));
  if (!tx)
    return NOT_FOUND2;
  tx.verifyCalls += 1;
  const { verifyNotFoundPolls, verifyPendingPolls } = state.options;
  if (tx.verifyCalls <= verifyNotFoundPolls)
    return NOT_FOUND2;
  let status = "pending";
  if (tx.verifyCalls > verifyNotFoundPolls + verifyPendingPolls) {
    status = tx.finalStatus;
    if (status !== "success")
      refundOnce(state, tx);
  }
  const body = lie(state.options.verifyLie, {
    status: true,
    data: { transaction: transactionView(tx, status) }
  });
  return {
    status: 200,
    body,
    text: answerText({ referenceAsNumber: state.options.lies.referenceAsNumber }, body)
  };
}
function lie(kind, body) {
  const tx = body.data.transaction;
  if (kind === "phone")
    tx.phone_number = "0809****999";
  if (kind === "amount")
    tx.amount = "1.00";
  if (kind === "reference")
    tx.reference = `${String(tx.reference)}X`;
  if (kind === "status_false")
    body.status = false;
  if (kind === "failed_huge_refund")
    Object.assign(tx, { status: "failed", amount: "99999.00" });
  return body;
}

// dist/sandbox/reseller.js
function listNetworks() {
  return { status: 200, body: { status: true, data: { networks: SANDBOX_NETWORKS } } };
}
function listPlans({ params, state }) {
  const code = decodeURIComponent(params[0] ?? "");
  if (!findNetwork(code))
    return { status: 404, body: { status: false, message: "Network not found." } };
  const prices = state.options.lies.prices ?? {};
  const plans = plansOfNetwork(code).map((plan) => prices[plan.id] === void 0 ? plan : { ...plan, price: prices[plan.id] });
  return { status: 200, body: { status: true, data: { plans } } };
}
var ROUTES2 = [
  { method: "GET", pattern: /^\/public\/api\/networks\/?$/, endpoint: "networks", handle: listNetworks },
  { method: "GET", pattern: /^\/public\/api\/plans\/([^/]+)\/?$/, endpoint: "plans", handle: listPlans },
  { method: "POST", pattern: /^\/public\/api\/data\/?$/, endpoint: "data", handle: buyData },
  {
    method: "GET",
    pattern: /^\/public\/api\/transaction\/([^/]+)\/?$/,
    endpoint: "transaction",
    handle: verifyTransaction
  }
];
var RESELLER_SERVICE = {
  service: "reseller",
  routes: ROUTES2,
  apiKey: (options) => options.apiKey,
  unauthenticated: { status: 401, body: { status: false, message: "Unauthenticated." } },
  notFound: { status: 404, body: { status: false, message: "Not found." } }
};

// dist/sandbox/server.js
import { createServer } from "node:http";

// dist/sandbox/admin.js
var flag = external_exports.union([external_exports.literal(0), external_exports.literal(1)]);
var seedRequestSchema = external_exports.union([
  external_exports.object({
    records: external_exports.array(external_exports.object({
      domain: external_exports.string().min(1),
      privacy: external_exports.union([external_exports.literal(0), external_exports.literal(1), external_exports.literal(2)]).optional(),
      password: external_exports.string().nullable().optional(),
      email: flag.optional(),
      exclude_bots: flag.optional(),
      exclude_params: external_exports.string().nullable().optional(),
      exclude_ips: external_exports.string().nullable().optional()
    }))
  }),
  external_exports.object({ count: external_exports.number().int().min(1).max(1e6), prefix: external_exports.string().min(1).default("site") })
]);
var ok = (body) => ({ status: 200, body });
function readJson(body) {
  return body.length === 0 ? {} : JSON.parse(body.toString("utf8"));
}
function seed(state, value) {
  const request = seedRequestSchema.parse(value);
  const created = "records" in request ? seedWebsites(state, request.records) : seedNumberedWebsites(state, request.count, request.prefix);
  return ok({ created: created.length, websites: created });
}
function route(state, method, path, body) {
  const key = `${method} ${path.replace(/\/+$/, "")}`;
  switch (key) {
    case "GET /__admin/state":
      return ok(stateSnapshot(state));
    case "GET /__admin/debits":
      return ok({ debits: debitRecords(state) });
    case "GET /__admin/refunds":
      return ok({ refunds: refundRecords(state) });
    case "GET /__admin/wallet":
      return ok({ wallet: walletText(state) });
    case "GET /__admin/website-mutations":
      return ok({ websiteMutations: mutationRecords(state) });
    case "GET /__admin/requests":
      return ok({ requests: requestRecords(state) });
    case "POST /__admin/reset":
      resetSandbox(state, readJson(body));
      return ok({ ok: true });
    case "POST /__admin/faults":
      setFaults(state, readJson(body));
      return ok({ ok: true });
    case "POST /__admin/options":
      setOptions(state, readJson(body));
      return ok({ ok: true });
    case "POST /__admin/websites":
      return seed(state, readJson(body));
    default:
      return { status: 404, body: { message: `No admin route ${key}.` } };
  }
}
function handleAdmin(state, method, path, body) {
  try {
    return route(state, method, path, body);
  } catch (error) {
    const message = error instanceof external_exports.ZodError ? external_exports.prettifyError(error) : String(error);
    return { status: 400, body: { message } };
  }
}

// dist/sandbox/faults.js
function faultSpecOf(state, endpoint) {
  return state.faults.endpoints[endpoint];
}
function drawFault(state, endpoint) {
  const spec = faultSpecOf(state, endpoint);
  if (!spec)
    return void 0;
  let stream = state.faultStreams.get(endpoint);
  if (!stream) {
    stream = createNamedPrng(state.faults.seed ?? state.options.seed, endpoint);
    state.faultStreams.set(endpoint, stream);
  }
  const draw = stream();
  let bound = 0;
  for (const kind of FAULT_KINDS) {
    bound += spec[kind] ?? 0;
    if (draw < bound)
      return kind;
  }
  return void 0;
}
function isFaultBefore(kind) {
  return kind === "rate429" || kind === "rate500Before";
}
function faultBeforeReply(kind, spec) {
  if (kind === "rate500Before")
    return { status: 500, body: { message: "Server Error" } };
  const retryAfter = spec?.retryAfter;
  return {
    status: 429,
    body: { message: "Too Many Attempts." },
    headers: retryAfter ? { "retry-after": String(retryAfter) } : {}
  };
}
var MALFORMED_BODY = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gat";
function deliverFaultAfter(kind, res) {
  switch (kind) {
    case "rate500After":
      sendJson(res, 500, { message: "Server Error" });
      return 500;
    case "rateHangAfter":
      return null;
    case "rateResetAfter":
      resetConnection(res);
      return null;
    case "rateMalformedAfter":
      sendText(res, 200, MALFORMED_BODY);
      return 200;
  }
}
function resetConnection(res) {
  const socket = res.socket;
  if (!socket)
    return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

// dist/sandbox/route.js
function matchRoute(routes, method, path) {
  let pathKnown = false;
  for (const route2 of routes) {
    const match = route2.pattern.exec(path);
    if (!match)
      continue;
    if (route2.method === method)
      return { kind: "found", route: route2, params: match.slice(1) };
    pathKnown = true;
  }
  return pathKnown ? { kind: "method-not-allowed" } : { kind: "not-found" };
}

// dist/sandbox/throttle.js
function throttle(state, now) {
  const settings = state.options.throttle;
  if (!settings)
    return { headers: {} };
  const limit = settings.limit;
  if (state.throttle === void 0 || now >= state.throttle.closesAt) {
    state.throttle = { hits: 0, closesAt: now + settings.windowSeconds * 1e3 };
  }
  const window = state.throttle;
  if (window.hits >= limit) {
    const retryAfter = Math.max(1, Math.ceil((window.closesAt - now) / 1e3));
    return {
      refused: { status: 429, body: { message: "Too Many Attempts." } },
      headers: {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": "0",
        "retry-after": String(retryAfter),
        "x-ratelimit-reset": String(Math.ceil(window.closesAt / 1e3))
      }
    };
  }
  window.hits += 1;
  return {
    headers: { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": String(limit - window.hits) }
  };
}

// dist/sandbox/server.js
function createServiceServer(state, definition) {
  const server = createServer((req, res) => {
    handleRequest(state, definition, req, res).catch((error) => {
      console.error(`sandbox ${definition.service}: ${String(error)}`);
      sendJson(res, 500, { message: "Server Error" });
    });
  });
  server.keepAliveTimeout = 3e4;
  return server;
}
function isAuthorized(req, apiKey) {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  return match?.[1]?.trim() === apiKey;
}
async function handleRequest(state, definition, req, res) {
  const url = new URL(req.url ?? "/", "http://sandbox");
  const method = req.method ?? "GET";
  const body = await readBody(req);
  if (url.pathname.startsWith("/__admin/")) {
    const reply2 = handleAdmin(state, method, url.pathname, body);
    return sendJson(res, reply2.status, reply2.body, reply2.headers);
  }
  const fields = parseFields(req.headers["content-type"], body);
  const exchange = { method, path: url.pathname, fields, at: isoMicros(state.clock()) };
  const entry = {
    service: definition.service,
    method,
    path: url.pathname,
    query: url.search,
    status: null,
    at: exchange.at
  };
  state.requests.push(entry);
  const answered = (status) => {
    entry.status = status;
    definition.onAnswered?.(state, exchange, status);
  };
  let limits = {};
  const answer = (reply2) => {
    answered(reply2.status);
    const headers = { ...limits, ...reply2.headers };
    if (reply2.text !== void 0)
      sendText(res, reply2.status, reply2.text, headers);
    else
      sendJson(res, reply2.status, reply2.body, headers);
  };
  const match = matchRoute(definition.routes, method, url.pathname);
  const spec = match.kind === "found" ? faultSpecOf(state, match.route.endpoint) : void 0;
  const waited = await sleep(state.options.latencyMs + (spec?.latencyMs ?? 0), state.closing.signal);
  if (!waited)
    return void res.destroy();
  if (definition.throttled) {
    const throttled = throttle(state, state.clock().getTime());
    limits = throttled.headers;
    if (throttled.refused)
      return answer(throttled.refused);
  }
  if (!isAuthorized(req, definition.apiKey(state.options)))
    return answer(definition.unauthenticated);
  if (match.kind === "not-found")
    return answer(definition.notFound);
  if (match.kind === "method-not-allowed") {
    return answer({
      status: 405,
      body: { message: `The ${method} method is not supported for this route.` }
    });
  }
  const fault = drawFault(state, match.route.endpoint);
  if (fault)
    entry.fault = fault;
  if (fault && isFaultBefore(fault))
    return answer(faultBeforeReply(fault, spec));
  const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
  const reply = match.route.handle({
    state,
    params: match.params,
    query: url.searchParams,
    fields,
    origin,
    path: url.pathname
  });
  if (!fault && deliversSlowly(state.options.lies, match.route.endpoint)) {
    answered(reply.status);
    const text = reply.text ?? JSON.stringify(reply.body);
    await deliverSlowly(res, reply.status, text, state.options.lies, state.closing.signal);
    return;
  }
  if (!fault)
    return answer(reply);
  answered(deliverFaultAfter(fault, res));
}
function listen(server, host, port) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}
function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

// dist/sandbox/index.js
async function startSandbox(opts = {}) {
  const given = parseOptions(opts);
  const options = mergeOptions(DEFAULT_OPTIONS, given);
  const state = createState(options, parseFaultConfig(given.faults ?? { endpoints: {} }), () => /* @__PURE__ */ new Date());
  const reseller = createServiceServer(state, RESELLER_SERVICE);
  const analytics = createServiceServer(state, ANALYTICS_SERVICE);
  const closeAll = async () => {
    state.closing.abort();
    await Promise.all([closeServer(reseller), closeServer(analytics)]);
  };
  try {
    const resellerUrl = await listen(reseller, options.host, options.resellerPort);
    const analyticsUrl = await listen(analytics, options.host, options.analyticsPort);
    return {
      resellerUrl,
      analyticsUrl,
      get apiKey() {
        return state.options.apiKey;
      },
      get analyticsApiKey() {
        return state.options.analyticsApiKey;
      },
      debits: () => debitRecords(state),
      refunds: () => refundRecords(state),
      wallet: () => walletText(state),
      websiteMutations: () => mutationRecords(state),
      requests: () => requestRecords(state),
      websites: () => websiteRecords(state),
      setFaults: (f) => setFaults(state, f),
      setOptions: (o) => setOptions(state, o),
      seedWebsites: (records) => seedWebsites(state, records),
      reset: (o) => resetSandbox(state, o ?? {}),
      deliverNotifications: () => deliverNotifications(state),
      statementCsv: () => stringify(statementRows(state.transactions.values())),
      close: closeAll
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

export {
  loadFaultsFile,
  startSandbox
};
