// Where topsync's notifications land in the sandbox: Slack-, Telegram- and webhook-compatible endpoints on one
// loopback server, recording every request they got (time, headers, body, what they answered), with scripted
// 429 and 5xx answers. Tests, the demo and the benchmark read what arrived here.
//
//   POST /slack/<anything>             Slack incoming webhook: "ok"; 429 with Retry-After
//   POST /bot<token>/sendMessage       Telegram Bot API: {"ok":true,…}; 429 as {"ok":false,"error_code":429,…}
//   POST /hooks/<anything>             a generic webhook: {"received":true}
//   GET  /__admin/received             every request recorded
//   POST /__admin/faults               [{kind?, status, retryAfter?, times?}], answered in order
//   POST /__admin/reset                forget what was received and the faults
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readBody } from "./http-util.js";

export type ReceiverKind = "slack" | "telegram" | "webhook";

export interface ReceivedRequest {
  kind: ReceiverKind;
  path: string;
  /** When the request's body had arrived (ms since the epoch). */
  at: number;
  headers: Record<string, string>;
  body: string;
  /** What the endpoint answered: 200, a scripted fault's status, or 400 for a request it cannot read. */
  status: number;
}

export interface ReceiverFault {
  /** Which endpoint answers it (any when absent). */
  kind?: ReceiverKind;
  status: number;
  /** Seconds, for a 429: Retry-After (Slack, webhook) or parameters.retry_after (Telegram). */
  retryAfter?: number;
  /** How many requests in a row get it (default 1). */
  times?: number;
  /** The answer's body, as text (any: a NUL, control characters); the endpoint's own words when absent. */
  answer?: string;
}

export interface Receivers {
  url: string;
  /** Every request recorded, in order of arrival. */
  requests(): ReceivedRequest[];
  /** The requests an endpoint accepted (2xx): what a person would have seen. */
  received(kind?: ReceiverKind): ReceivedRequest[];
  setFaults(faults: ReceiverFault[]): void;
  reset(): void;
  close(): Promise<void>;
}

interface State {
  requests: ReceivedRequest[];
  faults: Array<
    Required<Omit<ReceiverFault, "kind" | "retryAfter" | "answer">> &
      Pick<ReceiverFault, "kind" | "retryAfter" | "answer">
  >;
  telegramIds: number;
}

function kindOf(path: string): ReceiverKind | undefined {
  if (path.startsWith("/slack/")) return "slack";
  if (/^\/bot[^/]+\/sendMessage$/.test(path)) return "telegram";
  if (path.startsWith("/hooks/")) return "webhook";
  return undefined;
}

function takeFault(state: State, kind: ReceiverKind): State["faults"][number] | undefined {
  const index = state.faults.findIndex((fault) => fault.kind === undefined || fault.kind === kind);
  if (index < 0) return undefined;
  const fault = state.faults[index]!;
  fault.times--;
  if (fault.times <= 0) state.faults.splice(index, 1);
  return fault;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): number {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    ...headers,
  });
  res.end(text);
  return status;
}

function answerFault(res: ServerResponse, kind: ReceiverKind, fault: State["faults"][number]): number {
  const retry = fault.retryAfter ?? 1;
  if (fault.answer !== undefined) return send(res, fault.status, fault.answer);
  if (kind === "telegram") {
    const description =
      fault.status === 429 ? `Too Many Requests: retry after ${retry}` : "Internal Server Error";
    return send(res, fault.status, {
      ok: false,
      error_code: fault.status,
      description,
      ...(fault.status === 429 ? { parameters: { retry_after: retry } } : {}),
    });
  }
  const headers: Record<string, string> = fault.status === 429 ? { "retry-after": String(retry) } : {};
  if (kind === "slack")
    return send(res, fault.status, fault.status === 429 ? "rate_limited" : "internal_error", headers);
  return send(res, fault.status, { error: fault.status === 429 ? "rate limited" : "server error" }, headers);
}

function answer(res: ServerResponse, kind: ReceiverKind, body: string, state: State): number {
  if (kind === "slack") return send(res, 200, "ok");
  if (kind === "webhook") return send(res, 200, { received: true });
  let chat: unknown = null;
  let text: unknown = null;
  try {
    ({ chat_id: chat, text } = JSON.parse(body) as { chat_id?: unknown; text?: unknown });
  } catch {
    return send(res, 400, { ok: false, error_code: 400, description: "Bad Request: can't parse JSON" });
  }
  if (typeof text !== "string" || text === "")
    return send(res, 400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" });
  state.telegramIds++;
  return send(res, 200, {
    ok: true,
    result: { message_id: state.telegramIds, chat: { id: chat }, date: Math.floor(Date.now() / 1000), text },
  });
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<number> {
  const path = new URL(req.url ?? "/", "http://receivers").pathname;
  const body = (await readBody(req)).toString("utf8");
  if (req.method === "GET" && path === "/__admin/received")
    return send(res, 200, { requests: state.requests });
  if (req.method === "POST" && path === "/__admin/faults") {
    setFaults(state, JSON.parse(body || "[]") as ReceiverFault[]);
    return send(res, 200, { ok: true });
  }
  if (req.method === "POST" && path === "/__admin/reset") {
    reset(state);
    return send(res, 200, { ok: true });
  }
  const kind = kindOf(path);
  if (req.method !== "POST" || kind === undefined) return send(res, 404, { error: "not found" });
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(", ") : (value ?? ""),
    ]),
  );
  const fault = takeFault(state, kind);
  const entry: ReceivedRequest = { kind, path, at: Date.now(), headers, body, status: 0 };
  state.requests.push(entry);
  entry.status = fault ? answerFault(res, kind, fault) : answer(res, kind, body, state);
  return entry.status;
}

function setFaults(state: State, faults: ReceiverFault[]): void {
  state.faults = faults.map((fault) => ({ ...fault, times: fault.times ?? 1 }));
}

function reset(state: State): void {
  state.requests = [];
  state.faults = [];
}

export async function startReceivers(host: string, port: number): Promise<Receivers> {
  const state: State = { requests: [], faults: [], telegramIds: 0 };
  const server: Server = createServer((req, res) => {
    handle(state, req, res).catch(() => send(res, 500, { error: "receiver error" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const shownHost = typeof address === "object" && address?.family === "IPv6" ? `[${address.address}]` : host;
  const url = `http://${shownHost}:${typeof address === "object" && address ? address.port : port}`;
  return {
    url,
    requests: () => [...state.requests],
    received: (kind) =>
      state.requests.filter(
        (r) => r.status >= 200 && r.status < 300 && (kind === undefined || r.kind === kind),
      ),
    setFaults: (faults) => setFaults(state, faults),
    reset: () => reset(state),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
