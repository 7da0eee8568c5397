// The free port a test hands to another process comes from below the ephemeral range, where no outgoing
// connection takes its local port (test/helpers/ports.ts).
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./ports.js";

describe("freePort (test/helpers/ports.ts)", () => {
  it("gives a port below the ephemeral range that a server can then listen on", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    for (const port of ports) {
      if (low > 12_000) {
        // Where the range leaves no room below it, the helper takes a port the system picks.
        expect(port).toBeGreaterThanOrEqual(low - 10_000);
        expect(port).toBeLessThan(low);
      }
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
