// The daemon's port caps the connections one source holds open (server.max_connections_per_source): past it, that
// source's new connection is closed at once and counted, while another source — a probe, a scraper — still gets in,
// and the source gets in again once one of its connections has closed. In process, over real sockets: the second
// source is another loopback address (127.0.0.2).
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log/logger.js";
import { type HealthServer, type ServerRefusal, startHealthServer } from "../../src/server/health.js";
import { Readiness } from "../../src/server/readiness.js";
import { freePort } from "./helpers.js";

/** A connection that sends nothing: whether the server has closed it, and what it answered a request, if sent. */
function open(port: number, from = "127.0.0.1") {
  const socket: Socket = connect({ port, host: "127.0.0.1", localAddress: from });
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return {
    socket,
    connected,
    closed,
    /** Sends GET /healthz and resolves to the status line's code, or undefined when closed without one. */
    async healthz(): Promise<number | undefined> {
      await connected;
      socket.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
      await closed;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      return status ? Number(status) : undefined;
    },
  };
}

describe("server.max_connections_per_source", () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("closes a source's connection past its cap at once and counts it; other sources, and the source once one closed, get in", async () => {
    const port = await freePort();
    const refused: ServerRefusal[] = [];
    server = await startHealthServer({
      host: "127.0.0.1",
      port,
      readiness: new Readiness(),
      logger: silentLogger(),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
      limits: { maxConnectionsPerSource: 3 },
      onRefused: (reason) => refused.push(reason),
    });
    const held = [open(port), open(port), open(port)];
    await Promise.all(held.map((c) => c.connected));
    // Give the server the three before the fourth comes (it counts them as it accepts them).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fourth = open(port);
    expect(await fourth.healthz()).toBeUndefined(); // closed without an answer
    expect(refused).toEqual(["source_connections"]);

    expect(await open(port, "127.0.0.2").healthz()).toBe(200); // another source is not held back

    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await open(port).healthz()).toBe(200);
    expect(refused).toEqual(["source_connections"]);
    for (const c of held) c.socket.destroy();
  });
});
