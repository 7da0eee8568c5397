// The simulated analytics service (a phpAnalytics installation): website routes, bearer check,
// its 404/422 bodies, and the record of every website mutation request.
import { fieldsAsText } from "./http-util.js";
import { type FieldErrors, summarise } from "./laravel-errors.js";
import type { WebsiteRecord } from "./records.js";
import type { Call, Reply, Route } from "./route.js";
import type { Exchange, ServiceDefinition } from "./server.js";
import type { SandboxState } from "./state.js";
import { isoMicros } from "./time.js";
import { websitePage } from "./website-page.js";
import { checkCreate, checkUpdate } from "./website-rules.js";
import { deleteWebsite, insertWebsite, updateWebsite } from "./website-store.js";
import { websiteView } from "./website-view.js";

const NOT_FOUND: Reply = { status: 404, body: { message: "Resource not found.", status: 404 } };

function invalid(state: SandboxState, errors: FieldErrors): Reply {
  if (state.options.validationShape === "message-object") {
    return { status: 422, body: { message: errors, status: 422 } };
  }
  return { status: 422, body: { message: summarise(errors), errors } };
}

/** A single website as the resource class wraps it, or bare as builds with the bare paginator answer. */
function shown(state: SandboxState, record: WebsiteRecord, status = 200): Reply {
  const view = websiteView(record, state.options.stringInts);
  return { status, body: state.options.recordShape === "bare" ? view : { data: view, status: 200 } };
}

function findWebsite({ state, params }: Call): WebsiteRecord | undefined {
  return state.websites.byId.get(Number(params[0]));
}

function listWebsites({ state, query, origin, path }: Call): Reply {
  return { status: 200, body: websitePage(state.websites, query, `${origin}${path}`, state.options) };
}

function showWebsite(call: Call): Reply {
  const record = findWebsite(call);
  return record ? shown(call.state, record) : NOT_FOUND;
}

function createWebsite({ state, fields }: Call): Reply {
  const checked = checkCreate(fields, state.websites, state.options);
  if (!checked.ok) return invalid(state, checked.errors);
  return shown(state, insertWebsite(state.websites, checked.value, isoMicros(state.clock())), 201);
}

function changeWebsite(call: Call): Reply {
  const { state, fields } = call;
  const record = findWebsite(call);
  if (!record) return NOT_FOUND;
  const checked = checkUpdate(fields, record);
  if (!checked.ok) return invalid(state, checked.errors);
  return shown(state, updateWebsite(state.websites, record, checked.value, isoMicros(state.clock())));
}

function removeWebsite(call: Call): Reply {
  const record = findWebsite(call);
  if (!record) return NOT_FOUND;
  deleteWebsite(call.state.websites, record);
  return { status: 200, body: { id: record.id, object: "website", deleted: true, status: 200 } };
}

const ONE = /^\/api\/v1\/websites\/(\d+)\/?$/;
const ALL = /^\/api\/v1\/websites\/?$/;

const ROUTES: readonly Route[] = [
  { method: "GET", pattern: ALL, endpoint: "websites.list", handle: listWebsites },
  { method: "POST", pattern: ALL, endpoint: "websites.create", handle: createWebsite },
  { method: "GET", pattern: ONE, endpoint: "websites.get", handle: showWebsite },
  { method: "PUT", pattern: ONE, endpoint: "websites.update", handle: changeWebsite },
  { method: "DELETE", pattern: ONE, endpoint: "websites.delete", handle: removeWebsite },
];

/** Every non-GET request to /api/v1/websites*, whatever was answered, so tests can count mutations. */
function recordMutation(state: SandboxState, exchange: Exchange, status: number | null): void {
  if (exchange.method === "GET" || exchange.method === "HEAD") return;
  if (!exchange.path.startsWith("/api/v1/websites")) return;
  state.websiteMutations.push({
    method: exchange.method,
    path: exchange.path,
    fields: fieldsAsText(exchange.fields),
    status,
    at: exchange.at,
  });
}

export const ANALYTICS_SERVICE: ServiceDefinition = {
  service: "analytics",
  routes: ROUTES,
  apiKey: (options) => options.analyticsApiKey,
  unauthenticated: { status: 401, body: { message: "Unauthenticated." } },
  notFound: NOT_FOUND,
  onAnswered: recordMutation,
  throttled: true,
};
