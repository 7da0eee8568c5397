// The daemon's HTTP endpoints on server.host:server.port: /healthz (the process is alive), /readyz (see
// readiness.ts; 503 until ready), /metrics (Prometheus text), and the webhook receiver when enabled. A port already in use is a clear error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { TopsyncError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import type { Readiness } from "./readiness.js";
import type { WebhookReceiver } from "./webhook.js";

export interface HealthServerOptions {
  host: string;
  port: number;
  readiness: Readiness;
  /** The Prometheus exposition: its content type and text. */
  metrics: () => Promise<{ contentType: string; body: string }>;
  logger: Logger;
  /** The provider-notification receiver (webhook.ts), when webhooks are enabled. */
  webhook?: WebhookReceiver;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      options.logger.warn({ err: error }, `${request.url}: ${(error as Error).message}`);
      if (!response.headersSent) send(response, 500, "text/plain", `error: ${(error as Error).message}\n`);
      else response.end();
    });
  });
  await listen(server, options.host, options.port);
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${options.port}`;
  options.logger.info(`serving /healthz, /readyz and /metrics on ${url}`);
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(options: HealthServerOptions, request: IncomingMessage, response: ServerResponse) {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (options.webhook?.owns(path)) {
    await options.webhook.handle(request, response);
    return;
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
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
      const metrics = await options.metrics();
      send(response, 200, metrics.contentType, metrics.body);
      return;
    }
    default:
      send(response, 404, "text/plain", "not found: try /healthz, /readyz or /metrics\n");
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
