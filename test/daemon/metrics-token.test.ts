// server.metrics_token: /metrics shows the wallet, the budgets and the job names, so with a token set it answers
// only a scrape that carries it (401 otherwise, counted as a refusal); the probes stay open. Without one, /metrics
// is open as before. A token too short to be a secret is a config error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { createPostgresDatabase } from "../helpers/db.js";
import { daemonConfig, freePort, spawnDaemon, waitReady } from "./helpers.js";

const TOKEN = "metrics-token-7f3a9c2e51b4";

describe("the metrics token", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 21 });
  });
  afterAll(() => sandbox.close());

  it("with server.metrics_token, /metrics answers only a scrape that carries it; the probes stay open", {
    timeout: 120_000,
  }, async () => {
    const created = await createPostgresDatabase();
    const port = await freePort();
    const file = daemonConfig(sandbox, created.url, port, {
      server: { host: "127.0.0.1", port, shutdown_grace: "20s", metrics_token: TOKEN },
    });
    const daemon = spawnDaemon(file, port);
    try {
      await waitReady(daemon);
      const scrape = (authorization?: string) =>
        fetch(`http://127.0.0.1:${port}/metrics`, {
          headers: authorization === undefined ? {} : { authorization },
        });
      for (const wrong of [undefined, "Bearer not-the-token", `Basic ${TOKEN}`, "Bearer ", TOKEN]) {
        const refused = await scrape(wrong);
        expect(refused.status, String(wrong)).toBe(401);
        expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="topsync metrics"');
        expect(await refused.text()).not.toContain("topsync_");
      }
      const allowed = await scrape(`Bearer ${TOKEN}`);
      expect(allowed.status).toBe(200);
      const body = await allowed.text();
      expect(body).toContain("topsync_purchases");
      // The refusals are counted, and the token is nowhere in what the port says.
      expect(body).toMatch(/topsync_http_refusals_total\{reason="unauthenticated"\} 5/);
      expect(body).not.toContain(TOKEN);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect(daemon.stderr()).not.toContain(TOKEN);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exited;
      await created.drop();
    }
  });

  it("a token shorter than 16 characters is a config error naming it", async () => {
    const created = await createPostgresDatabase();
    try {
      const port = await freePort();
      const file = daemonConfig(sandbox, created.url, port, {
        server: { host: "127.0.0.1", port, metrics_token: "short" },
      });
      const checked = await runCli(["-c", file, "config", "check"]);
      expect(checked.code).toBe(78);
      expect(checked.stderr).toContain("server.metrics_token: must be at least 16 characters");
      expect(checked.stderr).not.toContain('"short"');
    } finally {
      await created.drop();
    }
  });
});
