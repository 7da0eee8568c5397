// `topsync run` refuses what it cannot work with, with a message that says what to fix and the exit code
// of the README's exit code table: an invalid schedule or time zone, a port in use, a second daemon on one embedded database.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { daemonConfig, freePort, spawnDaemon, waitReady } from "./helpers.js";

const job = (extra: Record<string, unknown>) => ({
  name: "nightly",
  plan: { network: "MTN", plan_id: "102" },
  recipients: ["08031234567"],
  ...extra,
});

describe("topsync run with bad input", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 3 });
  });
  afterAll(() => sandbox.close());

  it("exits 78 naming the job's schedule when its cron expression is invalid", async () => {
    const file = daemonConfig(sandbox, "", await freePort(), {
      purchases: [job({ name: "daily", schedule: "0 8 * * *" }), job({ schedule: "61 8 * * *" })],
    });
    const daemon = spawnDaemon(file, 0);
    expect(await daemon.exited).toBe(78);
    expect(daemon.stderr()).toContain(
      'purchases[1].schedule (job "nightly"): "61 8 * * *" is not a valid cron expression (61 is a invalid expression for minute)',
    );
  });

  it("exits 78 naming the job's time zone when it is unknown", async () => {
    const file = daemonConfig(sandbox, "", await freePort(), {
      purchases: [job({ schedule: "0 8 * * *", timezone: "Lagos/Nowhere" })],
    });
    const daemon = spawnDaemon(file, 0);
    expect(await daemon.exited).toBe(78);
    expect(daemon.stderr()).toContain(
      'purchases[0].timezone (job "nightly"): unknown time zone "Lagos/Nowhere"',
    );
  });

  it.each([
    ["/healthz", "the liveness probe's path: every probe got 405 and the pod was restarted"],
    ["/metrics/", "the scrape's path"],
    ["/", "with the token in the path, it took every path of the port"],
  ])("exits 78 when webhooks.path %s is a path the port already answers (%s)", async (path) => {
    const file = daemonConfig(sandbox, "", await freePort(), {
      webhooks: { enabled: true, secret: "whsec-0123456789", path, auth: "token", token_in: "path" },
    });
    const daemon = spawnDaemon(file, 0);
    expect(await daemon.exited).toBe(78);
    expect(daemon.stderr()).toContain(
      "webhooks.path: must be a path of its own (not /, /healthz, /readyz or /metrics)",
    );
  });

  it("exits 78 when webhooks.path and console.path overlap (the receiver answered the console's page with 405)", async () => {
    const file = daemonConfig(sandbox, "", await freePort(), {
      webhooks: { enabled: true, secret: "whsec-0123456789", path: "/console" },
      console: {
        enabled: true,
        path: "/console/",
        users: {
          ada: {
            password_hash: "scrypt$16384$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA==",
            role: "operator",
          },
        },
      },
    });
    const daemon = spawnDaemon(file, 0);
    expect(await daemon.exited).toBe(78);
    expect(daemon.stderr()).toContain(
      "webhooks.path: /console is console.path (/console/) or holds it or lies under it; each needs a path of its own",
    );
  });

  it("exits 1 naming the port when server.port is already in use", async () => {
    const port = await freePort();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
    try {
      const daemon = spawnDaemon(daemonConfig(sandbox, "", port), port);
      expect(await daemon.exited).toBe(1);
      expect(daemon.stderr()).toContain(`error: port ${port} (server.port) is already in use on 127.0.0.1`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("refuses a second daemon on the same embedded database folder, naming the first", {
    timeout: 90_000,
  }, async () => {
    const folder = join(mkdtempSync(join(tmpdir(), "topsync-pglite-")), "pglite");
    const database = { url: "", pglite_dir: folder };
    const firstPort = await freePort();
    const first = spawnDaemon(daemonConfig(sandbox, "", firstPort, { database }), firstPort);
    try {
      await waitReady(first);
      const secondPort = await freePort();
      const second = spawnDaemon(daemonConfig(sandbox, "", secondPort, { database }), secondPort);
      expect(await second.exited).toBe(1);
      expect(second.stderr()).toContain(
        `error: the embedded database in ${folder} is in use by another topsync process (pid ${first.pid})`,
      );
      // the first one is unaffected
      expect((await first.get("/readyz")).status).toBe(200);
    } finally {
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(0);
    }
  });
});
