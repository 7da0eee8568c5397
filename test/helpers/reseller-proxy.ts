// A small hostile reseller in front of the sandbox, over real HTTP: it forwards every request, and lets a test
// rewrite an answer the sandbox would never give (a verify that has not caught up, a reference given twice).
import { createServer, type Server } from "node:http";

export interface ProxiedAnswer {
  status: number;
  /** The upstream answer's JSON (undefined when it was not JSON). */
  body: unknown;
}

/** Given the request and the sandbox's answer, the answer to send instead; undefined sends the sandbox's. */
export type Rewrite = (
  request: { method: string; path: string },
  upstream: ProxiedAnswer,
) => ProxiedAnswer | undefined;

export interface ResellerProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * `before` is awaited before a request is forwarded: a test holds a request there (a verify read in flight) until it
 * has done what must happen meanwhile.
 */
export async function resellerProxy(
  target: string,
  rewrite: Rewrite,
  before?: (request: { method: string; path: string }) => Promise<void>,
): Promise<ResellerProxy> {
  const server: Server = createServer(async (request, response) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      await before?.({
        method: request.method ?? "GET",
        path: new URL(request.url ?? "/", "http://proxy").pathname,
      });
      const upstream = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers: {
          authorization: String(request.headers.authorization ?? ""),
          accept: "application/json",
          ...(request.headers["content-type"] ? { "content-type": request.headers["content-type"] } : {}),
        },
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const text = await upstream.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const path = new URL(request.url ?? "/", "http://proxy").pathname;
      const answer = rewrite({ method: request.method ?? "GET", path }, { status: upstream.status, body });
      response.writeHead(answer?.status ?? upstream.status, { "content-type": "application/json" });
      response.end(answer ? JSON.stringify(answer.body) : text);
    } catch (error) {
      response.writeHead(502, { "content-type": "application/json" });
      response.end(JSON.stringify({ message: String(error) }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A verify path's reference (`/public/api/transaction/{reference}`), or undefined for any other path. */
export function verifiedReference(path: string): string | undefined {
  const match = /^\/public\/api\/transaction\/(.+)$/.exec(path);
  return match ? decodeURIComponent(match[1]!) : undefined;
}
