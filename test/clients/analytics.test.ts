import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AnalyticsClient } from "../../src/analytics/client.js";
import { AuthError, ClientError } from "../../src/http/errors.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { analyticsFor, failureOf } from "../helpers/clients.js";

let sandbox: Sandbox;
let client: AnalyticsClient;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", analyticsApiKey: "ak-test-SECRET-0002" });
  client = analyticsFor(sandbox);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
afterEach(() => sandbox.reset({ analyticsApiKey: "ak-test-SECRET-0002" }));

function seed(count: number) {
  sandbox.seedWebsites(
    Array.from({ length: count }, (_, i) => ({ domain: `site-${String(i).padStart(5, "0")}.example.com` })),
  );
}

describe("listing every website", () => {
  it.each(["laravel", "bare"] as const)(
    "reads all 1,050 websites over 11 pages in the %s shape",
    async (pageShape) => {
      sandbox.setOptions({ pageShape });
      seed(1050);
      const listing = await client.listWebsites();
      expect(listing.pages).toBe(11);
      expect(listing.websites).toHaveLength(1050);
      expect(new Set(listing.websites.map((w) => w.id)).size).toBe(1050);
      const requests = sandbox.requests().filter((r) => r.path === "/api/v1/websites");
      expect(requests).toHaveLength(11);
      expect(Object.fromEntries(new URLSearchParams(requests[0]!.query))).toMatchObject({
        per_page: "100",
        sort_by: "id",
        sort: "asc",
        page: "1",
      });
    },
  );

  it("stops on an exactly full last page using last_page, without an extra request", async () => {
    seed(200);
    const listing = await client.listWebsites();
    expect([listing.pages, listing.websites.length]).toEqual([2, 200]);
  });

  it("reads integers sent back as strings", async () => {
    sandbox.setOptions({ stringInts: true });
    sandbox.seedWebsites([{ domain: "a.example.com", privacy: 2, password: "pw-123456" }]);
    const [website] = (await client.listWebsites()).websites;
    expect([typeof website!.id, website!.privacy, website!.password]).toEqual(["number", 2, true]);
  });

  it("fails the whole listing when a page fails midway (so no caller acts on half a picture)", async () => {
    seed(350);
    const error = await failureOf(
      client.listWebsites({
        // After page 1 (the pages after it are asked for once it is read): page 2 fails.
        onPage: ({ page }) => {
          if (page === 1) sandbox.setFaults({ endpoints: { "websites.list": { rate500Before: 1 } } });
        },
      }),
    );
    expect(error.code).toBe("HTTP_SERVER_ERROR");
  });
});

describe("changing websites", () => {
  it("creates, reads, updates only the fields sent, and deletes", async () => {
    const created = await client.createWebsite({
      domain: "https://www.Shop.example.org",
      privacy: 2,
      password: "s3cret-pw",
      exclude_ips: ["10.0.0.1", "10.0.0.2"],
      exclude_params: ["utm_source"],
    });
    expect([created.domain, created.privacy, created.password, created.exclude_ips]).toEqual([
      "shop.example.org",
      2,
      true,
      ["10.0.0.1", "10.0.0.2"],
    ]);
    const mutation = sandbox.websiteMutations()[0]!;
    expect(mutation.method).toBe("POST");
    expect(mutation.fields.exclude_ips).toBe("10.0.0.1\n10.0.0.2");
    const updated = await client.updateWebsite(created.id, { email: 1 });
    expect([updated.email, updated.privacy, updated.exclude_ips]).toEqual([1, 2, ["10.0.0.1", "10.0.0.2"]]);
    expect((await client.getWebsite(created.id)).email).toBe(1);
    await client.deleteWebsite(created.id);
    expect((await failureOf(client.getWebsite(created.id))).status).toBe(404);
  });

  it.each(["laravel", "message-object"] as const)(
    "reads a 422 in the %s shape as the provider's message",
    async (validationShape) => {
      sandbox.setOptions({ validationShape });
      await client.createWebsite({ domain: "taken.example.com" });
      const error = await failureOf(client.createWebsite({ domain: "taken.example.com" }));
      expect(error).toBeInstanceOf(ClientError);
      expect([error.status, error.outcome]).toEqual([422, "rejected"]);
      expect(error.message).toContain("The domain has already been taken.");
    },
  );

  it("does not retry a write", async () => {
    sandbox.setFaults({ endpoints: { "websites.create": { rate500Before: 1 } } });
    await failureOf(client.createWebsite({ domain: "once.example.com" }));
    expect(sandbox.websiteMutations()).toHaveLength(1);
  });

  it("a 401 names the setting and never the key", async () => {
    const wrong = analyticsFor(sandbox, { apiKey: "ak-wrong-SECRET-7777" });
    const error = await failureOf(wrong.listWebsites());
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain("analytics.api_key");
    expect(`${error.message}${error.stack}${JSON.stringify(error)}`).not.toContain("ak-wrong-SECRET-7777");
    await wrong.close();
  });
});

describe("listings that misbehave", () => {
  let server: Server;
  let url: string;
  const full = Array.from({ length: 100 }, (_, i) => ({
    id: i + 1,
    domain: `d${i}.example.com`,
    privacy: 0,
  }));
  let body = "";

  beforeAll(async () => {
    server = createServer((_req, res) => res.end(body));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("refuses a service that answers the same full page forever", async () => {
    body = JSON.stringify({ data: full });
    const odd = analyticsFor({ analyticsUrl: url, analyticsApiKey: "k-0000" });
    const error = await failureOf(odd.listWebsites());
    expect(error.message).toContain("page 2 repeats page 1");
    await odd.close();
  });

  it("reads a single website wrapped or bare, and refuses any other shape as malformed", async () => {
    const odd = analyticsFor({ analyticsUrl: url, analyticsApiKey: "k-0000" });
    const website = { id: 5, domain: "x.example.com", privacy: 0, password: true };
    body = JSON.stringify(website);
    expect(await odd.createWebsite({ domain: "x.example.com" })).toMatchObject({ id: 5, password: true });
    body = JSON.stringify({ data: website, status: 200 });
    expect(await odd.updateWebsite(5, { email: 1 })).toMatchObject({ id: 5, domain: "x.example.com" });
    for (const shape of [{ website }, { data: [website] }, { data: { ...website, id: "five" } }]) {
      body = JSON.stringify(shape);
      expect((await failureOf(odd.getWebsite(5))).code).toBe("HTTP_MALFORMED_RESPONSE");
    }
    await odd.close();
  });

  it("names the website whose record cannot be read", async () => {
    body = JSON.stringify({
      data: [
        { id: 1, domain: "ok.example.com", privacy: 0 },
        { id: 2, domain: "bad.example.com", privacy: "secret" },
      ],
    });
    const odd = analyticsFor({ analyticsUrl: url, analyticsApiKey: "k-0000" });
    const error = await failureOf(odd.listWebsites());
    expect(error.message).toMatch(/website bad\.example\.com in the listing is not readable: privacy/);
    await odd.close();
  });
});
