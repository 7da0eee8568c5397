// The daemon's port under abuse: hundreds of webhook deliveries that never finish their body, from one source,
// and connections that never finish their headers or send nothing;
// a wrong token with its body held back; a malformed token escape; a request target that is not a URL; more
// connections than server.max_connections. Each is answered or closed, counted and logged without its target,
// and /healthz and /metrics keep answering.
import { connect, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  type DaemonProcess,
  daemonConfig,
  freePort,
  spawnDaemon,
  stopDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "./helpers.js";
import { parsePrometheus } from "./prometheus.js";

const SECRET = "sandbox-webhook-secret-0123456789";
const PATH = "/webhooks/reseller";

/** A raw connection: what it was answered (the status line's code) and whether it has closed. */
interface RawClient {
  socket: Socket;
  status(): number | undefined;
  text(): string;
  closed: Promise<void>;
  isClosed(): boolean;
}

function rawClient(port: number, request: string | Buffer = ""): RawClient {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  // A server that closes while this client still writes resets the connection: that is an answer too.
  socket.on("error", () => {});
  const done = new Promise<void>((resolve) =>
    socket.once("close", () => {
      closed = true;
      resolve();
    }),
  );
  if (request.length > 0) socket.write(request);
  return {
    socket,
    status: () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      return match ? Number(match[1]) : undefined;
    },
    text: () => received,
    closed: done,
    isClosed: () => closed,
  };
}

/** The refusals this replica counted, by reason, and its rejected notifications. */
async function refusals(
  daemon: DaemonProcess,
): Promise<{ byReason: Record<string, number>; rejected: number }> {
  const seen = parsePrometheus((await daemon.get("/metrics")).body);
  const byReason: Record<string, number> = {};
  for (const s of seen.samples)
    if (s.name === "topsync_http_refusals_total") byReason[s.labels.reason!] = s.value;
  const rejected =
    seen.samples.find((s) => s.name === "topsync_notifications_total" && s.labels.outcome === "rejected")
      ?.value ?? 0;
  return { byReason, rejected };
}

describe("the daemon's port under abuse", () => {
  const ledger = useLedger({ seed: 41 });

  it("300 webhook bodies held back from one source: over the per-source cap refused at once, the rest at the body deadline; unfinished headers and silent connections closed at the headers deadline; /healthz and /metrics answer throughout", {
    timeout: 180_000,
  }, async () => {
    const port = await freePort();
    // Every connection here comes from 127.0.0.1, the probes' too: the per-source connection cap (its own test,
    // source-connections.test.ts) is lifted so that the receiver's own limits and deadlines are what is tried.
    const daemon = spawnDaemon(
      daemonConfig(ledger.sandbox, ledger.url, port, {
        webhooks: { enabled: true, secret: SECRET },
        server: { host: "127.0.0.1", port, shutdown_grace: "30s", max_connections_per_source: 1000 },
      }),
      port,
    );
    const clients: RawClient[] = [];
    const slow: RawClient[] = [];
    try {
      await waitReady(daemon);
      const head =
        `POST ${PATH} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `x-signature: ${"0".repeat(64)}\r\ncontent-length: ${64 * 1024}\r\n\r\n`;
      // Every client sends all of its body but the last byte, and waits.
      const held = Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024 - 1, "x")]);
      for (let i = 0; i < 300; i++) clients.push(rawClient(port, held));
      // And others that never finish their headers, or send nothing at all.
      for (let i = 0; i < 50; i++) slow.push(rawClient(port, `POST ${PATH} HTTP/1.1\r\nhost: 127.0.0.1\r\n`));
      for (let i = 0; i < 50; i++) slow.push(rawClient(port));

      await waitFor(
        "the clients over the per-source cap to be refused",
        async () => ((await refusals(daemon)).byReason.source_limit ?? 0) > 0,
        { daemons: [daemon] },
      );
      expect((await daemon.get("/healthz")).status).toBe(200);
      expect((await daemon.get("/metrics")).status).toBe(200);
      expect((await daemon.get("/readyz")).status).toBe(200);

      await waitFor(
        "every held connection to be closed",
        () => [...clients, ...slow].every((c) => c.isClosed()),
        { daemons: [daemon], timeoutMs: 120_000 },
      );
      expect(slow.map((c) => c.status()).filter((s) => s !== undefined && s !== 408)).toEqual([]);
      const answered = clients.map((c) => c.status()).filter((s) => s !== undefined);
      expect(answered.every((s) => s === 429 || s === 408)).toBe(true);
      expect(answered).toContain(408);
      const counted = await waitFor(
        "all 300 refusals to be counted",
        async () => {
          const now = await refusals(daemon);
          const total = (now.byReason.source_limit ?? 0) + (now.byReason.body_timeout ?? 0);
          return total >= 300 ? now : undefined;
        },
        { daemons: [daemon] },
      );
      expect((counted.byReason.source_limit ?? 0) + (counted.byReason.body_timeout ?? 0)).toBe(300);
      expect(counted.byReason.body_timeout).toBeGreaterThan(0);
      expect(counted.rejected).toBe(300);
      expect(counted.byReason.request_timeout).toBeGreaterThanOrEqual(50);
      const stored = await rows<{ n: number }>(
        ledger.database.db,
        sql`select count(*)::int as n from provider_notifications`,
      );
      expect(stored[0]!.n).toBe(0);
      // Logged, a line a reason at most every 10 s, not one a connection.
      const lines = daemon
        .stderr()
        .split("\n")
        .filter((l) => l.includes("webhook delivery refused"));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThan(50);
      expect(daemon.stderr()).not.toContain(SECRET);
    } finally {
      for (const c of [...clients, ...slow]) c.socket.destroy();
      expect(await stopDaemon(daemon)).toBe(0);
    }
  });

  it("token auth: a wrong token is refused before its body arrives; a malformed escape in the token is 401, counted, without a stack; a target that is not a URL is 400 and not echoed", {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const daemon = spawnDaemon(
      daemonConfig(ledger.sandbox, ledger.url, port, {
        webhooks: { enabled: true, secret: SECRET, auth: "token", token_in: "path" },
      }),
      port,
    );
    const clients: RawClient[] = [];
    try {
      await waitReady(daemon);
      const held = rawClient(
        port,
        `POST ${PATH}/not-the-token HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${64 * 1024}\r\n\r\n`,
      );
      clients.push(held);
      await waitFor("the wrong token to be answered", () => held.status() !== undefined, {
        daemons: [daemon],
      });
      expect(held.status()).toBe(401);
      await held.closed;

      const body = JSON.stringify({ data: { reference: "R1" } });
      const malformed = await fetch(`http://127.0.0.1:${port}${PATH}/%E0%A4%A`, { method: "POST", body });
      expect(malformed.status).toBe(401);
      expect(await malformed.json()).toEqual({ received: false, error: "missing or wrong token" });

      // A target that is not a URL, carrying the token: answered 400, and neither the answer nor the log has it.
      const target = `//127.0.0.1:99999${PATH}/${SECRET}`;
      const bad = rawClient(port, `POST ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n`);
      clients.push(bad);
      await waitFor("the bad target to be answered", () => bad.status() !== undefined, {
        daemons: [daemon],
      });
      expect(bad.status()).toBe(400);
      expect(bad.text()).not.toContain(SECRET);
      expect(bad.text()).not.toContain("99999");

      const counted = await waitFor(
        "the refusals to be counted",
        async () => {
          const now = await refusals(daemon);
          return now.byReason.unauthenticated === 2 && now.byReason.bad_url === 1 ? now : undefined;
        },
        { daemons: [daemon] },
      );
      expect(counted.rejected).toBe(2);
      expect((await daemon.get("/healthz")).status).toBe(200);
      const log = daemon.stderr();
      expect(log).not.toContain(SECRET);
      expect(log).not.toMatch(/URIError|URI malformed/);
      expect(log).toContain("a request's target is not a URL");
    } finally {
      for (const c of clients) c.socket.destroy();
      expect(await stopDaemon(daemon)).toBe(0);
    }
  });

  it("connections past server.max_connections are closed at once and counted; the port answers once they are gone", {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const daemon = spawnDaemon(
      daemonConfig(ledger.sandbox, ledger.url, port, {
        server: { host: "127.0.0.1", port, shutdown_grace: "20s", max_connections: 10 },
      }),
      port,
    );
    const clients: RawClient[] = [];
    try {
      await waitReady(daemon);
      for (let i = 0; i < 30; i++)
        clients.push(rawClient(port, "GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"));
      await waitFor(
        "every connection to be answered or closed",
        () => clients.every((c) => c.status() !== undefined || c.isClosed()),
        { daemons: [daemon] },
      );
      const served = clients.filter((c) => c.status() === 200).length;
      const dropped = clients.filter((c) => c.status() === undefined).length;
      expect(served).toBeGreaterThan(0);
      expect(served).toBeLessThanOrEqual(10);
      expect(served + dropped).toBe(30);
      for (const c of clients) c.socket.destroy();
      const counted = await waitFor(
        "the closed connections to be counted",
        async () => {
          const now = await refusals(daemon);
          return (now.byReason.max_connections ?? 0) >= dropped ? now : undefined;
        },
        { daemons: [daemon] },
      );
      // A scrape that came while the server still counted the closed ones may have been closed too.
      expect(counted.byReason.max_connections).toBeGreaterThanOrEqual(dropped);
      expect(daemon.stderr()).toContain("server.max_connections");
    } finally {
      for (const c of clients) c.socket.destroy();
      expect(await stopDaemon(daemon)).toBe(0);
    }
  });
});
