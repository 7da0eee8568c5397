// One simulated service over node:http: the request pipeline shared by both services — admin, log,
// latency, auth, routing, faults, then the endpoint — and starting and stopping the server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleAdmin } from "./admin.js";
import { deliverFaultAfter, drawFault, faultBeforeReply, faultSpecOf, isFaultBefore } from "./faults.js";
import { type Fields, parseFields, readBody, sendJson, sendText, sleep } from "./http-util.js";
import { deliverSlowly, deliversSlowly } from "./lies.js";
import type { ResolvedOptions } from "./options.js";
import type { RequestLogEntry, ServiceName } from "./records.js";
import { matchRoute, type Reply, type Route } from "./route.js";
import type { SandboxState } from "./state.js";
import { throttle } from "./throttle.js";
import { isoMicros } from "./time.js";

/** What one request was, for a service's own bookkeeping once its answer (or none) is known. */
export interface Exchange {
  method: string;
  path: string;
  fields: Fields;
  at: string;
}

export interface ServiceDefinition {
  service: ServiceName;
  routes: readonly Route[];
  apiKey(options: ResolvedOptions): string;
  unauthenticated: Reply;
  notFound: Reply;
  /** Whether the API answers under the configured throttle (Laravel's, on the analytics service). */
  throttled?: boolean;
  /** Called once per request with the status answered, or null when no response was sent. */
  onAnswered?(state: SandboxState, exchange: Exchange, status: number | null): void;
}

export function createServiceServer(state: SandboxState, definition: ServiceDefinition): Server {
  const server = createServer((req, res) => {
    handleRequest(state, definition, req, res).catch((error: unknown) => {
      console.error(`sandbox ${definition.service}: ${String(error)}`);
      sendJson(res, 500, { message: "Server Error" });
    });
  });
  server.keepAliveTimeout = 30_000;
  return server;
}

function isAuthorized(req: IncomingMessage, apiKey: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  return match?.[1]?.trim() === apiKey;
}

async function handleRequest(
  state: SandboxState,
  definition: ServiceDefinition,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://sandbox");
  const method = req.method ?? "GET";
  const body = await readBody(req);
  if (url.pathname.startsWith("/__admin/")) {
    const reply = handleAdmin(state, method, url.pathname, body);
    return sendJson(res, reply.status, reply.body, reply.headers);
  }
  const fields = parseFields(req.headers["content-type"], body);
  const exchange: Exchange = { method, path: url.pathname, fields, at: isoMicros(state.clock()) };
  const entry: RequestLogEntry = {
    service: definition.service,
    method,
    path: url.pathname,
    query: url.search,
    status: null,
    at: exchange.at,
  };
  state.requests.push(entry);
  const answered = (status: number | null) => {
    entry.status = status;
    definition.onAnswered?.(state, exchange, status);
  };
  let limits: Record<string, string> = {};
  const answer = (reply: Reply) => {
    answered(reply.status);
    const headers = { ...limits, ...reply.headers };
    if (reply.text !== undefined) sendText(res, reply.status, reply.text, headers);
    else sendJson(res, reply.status, reply.body, headers);
  };

  const match = matchRoute(definition.routes, method, url.pathname);
  const spec = match.kind === "found" ? faultSpecOf(state, match.route.endpoint) : undefined;
  const waited = await sleep(state.options.latencyMs + (spec?.latencyMs ?? 0), state.closing.signal);
  if (!waited) return void res.destroy();

  if (definition.throttled) {
    const throttled = throttle(state, state.clock().getTime());
    limits = throttled.headers;
    if (throttled.refused) return answer(throttled.refused);
  }

  if (!isAuthorized(req, definition.apiKey(state.options))) return answer(definition.unauthenticated);
  if (match.kind === "not-found") return answer(definition.notFound);
  if (match.kind === "method-not-allowed") {
    return answer({
      status: 405,
      body: { message: `The ${method} method is not supported for this route.` },
    });
  }

  const fault = drawFault(state, match.route.endpoint);
  if (fault) entry.fault = fault;
  if (fault && isFaultBefore(fault)) return answer(faultBeforeReply(fault, spec));
  const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
  const reply = match.route.handle({
    state,
    params: match.params,
    query: url.searchParams,
    fields,
    origin,
    path: url.pathname,
  });
  if (!fault && deliversSlowly(state.options.lies, match.route.endpoint)) {
    answered(reply.status);
    const text = reply.text ?? JSON.stringify(reply.body);
    await deliverSlowly(res, reply.status, text, state.options.lies, state.closing.signal);
    return;
  }
  if (!fault) return answer(reply);
  answered(await deliverFaultAfter(fault, res, spec, state.closing.signal));
}

/** Listens on host:port (0 = random) and resolves with the base URL. */
export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}

/** Stops listening and destroys every open connection, hanging ones included, so it resolves promptly. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
