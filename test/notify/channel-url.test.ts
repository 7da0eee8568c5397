// A channel URL as an operator writes it: credentials in the URL (`https://user:password@host/…`) are sent as the
// receiver expects them (HTTP basic authentication), and stay secret.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { silentLogger } from "../../src/log/logger.js";
import { Notifier } from "../../src/notify/notifier.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
let test: TestDatabase;
let server: Server;
const authorizations: Array<string | undefined> = [];

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 5 });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  test = await openTestDatabase("postgres");
  authorizations.length = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      authorizations.push(req.headers.authorization);
      const expected = `Basic ${Buffer.from("hook user:p@ss:w0rd/secret").toString("base64")}`;
      if (req.headers.authorization === expected) res.end("ok");
      else {
        res.statusCode = 401;
        res.end(`unauthorized: ${req.headers.authorization ?? "no credentials"}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await test.drop();
});

describe("a channel URL with credentials", () => {
  it("sends them as basic authentication and keeps them out of what it shows", async () => {
    const port = (server.address() as AddressInfo).port;
    const url = `http://hook%20user:${encodeURIComponent("p@ss:w0rd/secret")}@127.0.0.1:${port}/topsync`;
    const config = testConfig(sandbox, {
      notifications: {
        channels: {
          hook: { type: "webhook", url, secret: "whsec_basic_auth_test" },
          slack: { type: "slack", url },
        },
      },
    });
    const notifier = new Notifier({
      database: test.database,
      config,
      logger: silentLogger(),
      clock: systemClock,
      claimer: "test",
    });
    try {
      for (const channel of ["hook", "slack"]) {
        const result = await notifier.test(channel);
        expect(notifier.scrub(result), channel).toMatchObject({ ok: true, answer: "HTTP 200 ok" });
      }
      expect(authorizations).toHaveLength(2);
      // What a refusal echoes of the credentials is redacted.
      const refused = notifier.scrub(`HTTP 401 unauthorized: ${authorizations[0]}`);
      expect(refused).not.toContain(authorizations[0]!.slice("Basic ".length));
      expect(refused).not.toContain("p@ss:w0rd/secret");
    } finally {
      await notifier.close();
    }
  });
});
