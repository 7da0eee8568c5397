// A free TCP port for a server a test starts in another process (a daemon, an SMTP server): one below the system's
// range of ephemeral ports. A port the system picks for `listen(0)` comes from that range, which is also where every
// outgoing connection takes its local port; between the check and the other process's bind, one of the test run's
// hundreds of connections (PostgreSQL's, HTTP's) took such a port once, and the daemon exited "already in use".
// Below the range only another test's own choice can take it, and each picks at random.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The first port of the system's ephemeral range (Linux), or undefined where it cannot be read. */
function ephemeralStart(): number | undefined {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves to `port` when it can be bound on 127.0.0.1 (and is free again), else to undefined. */
function bindable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : undefined));
    });
  });
}

/** A port free on 127.0.0.1 now, from below the ephemeral range where there is room, else one the system picks. */
export async function freePort(): Promise<number> {
  const start = ephemeralStart();
  if (start !== undefined && start > 12_000) {
    const from = start - 10_000;
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = await bindable(from + Math.floor(Math.random() * 10_000));
      if (port !== undefined) return port;
    }
  }
  const picked = await bindable(0);
  if (picked === undefined) throw new Error("no free TCP port on 127.0.0.1");
  return picked;
}
