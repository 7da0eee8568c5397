// The daemon's HTTP endpoints on server.host:server.port: /healthz (the process is alive), /readyz (see
// readiness.ts; 503 until ready), /metrics (Prometheus text), and the webhook receiver when enabled. A port already
// in use is a clear error. The port is open to anyone who can reach it: connections are capped, in all
// (server.max_connections) and per source address (server.max_connections_per_source), a request's headers must
// come within server.headers_timeout (and the whole request within that and webhooks.body_timeout), and a request
// that is not HTTP, or whose target is not a URL, is answered 4xx and closed. Each such refusal is counted and
// logged, never with the request's target.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { TopsyncError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { sourceKey } from "../source-address.js";
import type { Readiness } from "./readiness.js";
import { RefusalLog } from "./refusal-log.js";
import type { WebhookReceiver } from "./webhook.js";

/** Why the server itself refused a request or connection: the `reason` of topsync_http_refusals_total. */
export type ServerRefusal =
  | "max_connections"
  | "source_connections"
  | "request_timeout"
  | "bad_request"
  | "headers_too_large"
  | "bad_url"
  | "method"
  | "unauthenticated";

export interface ServerLimits {
  maxConnections: number;
  /** Connections open at once from one source (sourceKey: an address, or an IPv6 /64). */
  maxConnectionsPerSource: number;
  /** The request line and headers must arrive within this (ms). */
  headersTimeout: number;
  /** The whole request, body included, must arrive within this (ms); the webhook path has its own, shorter. */
  requestTimeout: number;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  readiness: Readiness;
  /** The Prometheus exposition: its content type and text. */
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** When set, /metrics needs `Authorization: Bearer <token>` (`server.metrics_token`). */
  metricsToken?: string;
  logger: Logger;
  /** The provider-notification receiver (webhook.ts), when webhooks are enabled. */
  webhook?: WebhookReceiver;
  /** A part served under its own path (the operations console), when enabled: it answers every method itself. */
  mounted?: MountedHandler;
  /** Defaults: those of the config's `server` section. */
  limits?: Partial<ServerLimits>;
  /** Counts a refusal (metrics). */
  onRefused?: (reason: ServerRefusal) => void;
}

export interface MountedHandler {
  owns(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 512,
  maxConnectionsPerSource: 128,
  headersTimeout: 10_000,
  requestTimeout: 21_000,
};

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const refusals = new RefusalLog(options.logger, Date.now);
  const refuse = (reason: ServerRefusal, message: string) => {
    options.onRefused?.(reason);
    refusals.warn(reason, message);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeout,
      requestTimeout: Math.max(limits.requestTimeout, limits.headersTimeout),
      // How often those two are checked (Node's default, 30 s, would let them run late by as much).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeout),
    },
    (request, response) => {
      handle(options, request, response, refuse).catch((error: unknown) => {
        options.logger.warn({ err: error }, `${request.method} request failed: ${(error as Error).message}`);
        if (!response.headersSent) send(response, 500, "text/plain", "internal error\n");
        else response.end();
      });
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on("drop", () =>
    refuse(
      "max_connections",
      `a connection was closed at once: ${limits.maxConnections} are open (server.max_connections)`,
    ),
  );
  capPerSource(server, limits.maxConnectionsPerSource, refuse);
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) =>
    clientError(error, socket, refuse),
  );
  await listen(server, options.host, options.port);
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${options.port}`;
  options.logger.info(
    `serving /healthz, /readyz and /metrics${options.webhook ? ", and the webhook receiver," : ""}${options.mounted ? ", and the console," : ""} on ${url}`,
  );
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Closes at once a connection from a source that has `cap` open already (counted when one is accepted, until it
 * closes). The global cap (server.maxConnections) is checked by Node.js before this.
 */
function capPerSource(
  server: Server,
  cap: number,
  refuse: (reason: ServerRefusal, message: string) => void,
): void {
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const key = sourceKey(socket.remoteAddress ?? "");
    const count = open.get(key) ?? 0;
    if (count >= cap) {
      refuse(
        "source_connections",
        `a connection was closed at once: its source has ${cap} open (server.max_connections_per_source)`,
      );
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/** A request Node.js could not read as HTTP, or that came too slowly: answered (when it can be) and closed. */
function clientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  refuse: (reason: ServerRefusal, message: string) => void,
): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message]: [string, ServerRefusal, string] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [
          "408 Request Timeout",
          "request_timeout",
          "a request did not arrive in time (server.headers_timeout)",
        ]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? ["431 Request Header Fields Too Large", "headers_too_large", "a request's headers were too large"]
        : ["400 Bad Request", "bad_request", `a request was not valid HTTP (${error.code ?? "unreadable"})`];
  refuse(reason, message);
  // Only on a connection that has not been answered yet (as Node.js does): another answer may be under way.
  if (socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  socket.destroySoon();
}

async function handle(
  options: HealthServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
  refuse: (reason: ServerRefusal, message: string) => void,
) {
  const path = pathOf(request.url ?? "/");
  if (path === undefined) {
    refuse("bad_url", "a request's target is not a URL");
    response.setHeader("connection", "close");
    send(response, 400, "text/plain", "bad request: the request target is not a URL\n");
    return;
  }
  if (options.webhook?.owns(path)) {
    await options.webhook.handle(request, response);
    return;
  }
  if (options.mounted?.owns(path)) {
    await options.mounted.handle(request, response);
    return;
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    refuse("method", `a ${request.method} request to a read-only endpoint`);
    // Whatever body it carries is not read.
    response.setHeader("connection", "close");
    send(response, 405, "text/plain", "method not allowed\n");
    return;
  }
  switch (path) {
    case "/healthz":
      send(response, 200, "text/plain", "ok\n");
      return;
    case "/readyz": {
      const report = await options.readiness.check();
      send(response, report.ready ? 200 : 503, "application/json", `${JSON.stringify(report)}\n`);
      return;
    }
    case "/metrics": {
      if (
        options.metricsToken !== undefined &&
        !bearerIs(request.headers.authorization, options.metricsToken)
      ) {
        refuse("unauthenticated", "a /metrics request without the metrics token");
        response.setHeader("www-authenticate", 'Bearer realm="topsync metrics"');
        send(
          response,
          401,
          "text/plain",
          "unauthorized: /metrics needs Authorization: Bearer <server.metrics_token>\n",
        );
        return;
      }
      const metrics = await options.metrics();
      send(response, 200, metrics.contentType, metrics.body);
      return;
    }
    default:
      send(response, 404, "text/plain", "not found: try /healthz, /readyz or /metrics\n");
  }
}

/** Whether an Authorization header carries `Bearer <token>`, compared in constant time (as digests of one length). */
function bearerIs(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(header ?? "")?.[1] ?? "";
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

function pathOf(target: string): string | undefined {
  try {
    return new URL(target, "http://localhost").pathname;
  } catch {
    return undefined;
  }
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  response.end(body);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (error.code === "EADDRINUSE")
        reject(
          new TopsyncError(
            "PORT_IN_USE",
            `port ${port} (server.port) is already in use on ${host}: another topsync run or another program holds ${where}; ` +
              "stop it or set server.port to a free port",
          ),
        );
      else if (error.code === "EACCES")
        reject(new TopsyncError("PORT_DENIED", `not allowed to listen on ${where} (server.port ${port})`));
      else reject(new TopsyncError("SERVER_FAILED", `cannot listen on ${where}: ${error.message}`));
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}
