import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AuthError, HttpError, NotSentError, RateLimitedError } from "../../src/http/errors.js";
import { ServiceClient } from "../../src/http/service-client.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { FAST, failureOf, recordingClock, resellerFor } from "../helpers/clients.js";

const MTN_1GB = { network_id: "1", plan_id: "102", phone_number: "08031234567" };

let sandbox: Sandbox;
let client: ResellerClient;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 3, apiKey: "rk-test-SECRET-0001" });
  client = resellerFor(sandbox);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
afterEach(() => sandbox.reset({ apiKey: "rk-test-SECRET-0001" }));

describe("reseller catalogue", () => {
  it("lists the networks with the code as their id", async () => {
    const networks = await client.listNetworks();
    expect(networks.map((n) => [n.id, n.name])).toEqual([
      ["1", "MTN"],
      ["2", "GLO"],
      ["3", "9MOBILE"],
      ["4", "AIRTEL"],
    ]);
  });

  it("reads plan sizes to megabytes and prices exactly, keeping odd sizes as text", async () => {
    const plans = await client.listPlans("1");
    const oneGb = plans.find((p) => p.id === "102")!;
    expect(oneGb.size_mb).toBe(1024);
    expect(oneGb.price.toFixed(2)).toBe("305.00");
    const odd = plans.find((p) => p.id === "111")!;
    expect(odd.size).toBe("1GB+1GB");
    expect(odd.size_mb).toBeNull();
  });

  it("answers an unknown network with a not-found error naming the path", async () => {
    const error = await failureOf(client.listPlans("99"));
    expect(error.code).toBe("HTTP_NOT_FOUND");
    expect(error.message).toContain("/public/api/plans/99");
  });
});

describe("buying and verifying", () => {
  it("buys once and verifies through not-found, pending and success", async () => {
    const answer = await client.buyData(MTN_1GB);
    expect(answer.accepted).toBe(true);
    const reference = answer.accepted ? answer.reference : "";
    expect(sandbox.debits()).toHaveLength(1);
    const first = await client.verifyTransaction(reference);
    const second = await client.verifyTransaction(reference);
    const third = await client.verifyTransaction(reference);
    expect(first.found).toBe(false);
    expect(second.found && second.status).toBe("pending");
    expect(third.found && third.status).toBe("success");
    expect(third.found && third.transaction.phone_number).toBe("0803****567");
  });

  it("reads a verify 404 as not found yet, still counted as HTTP_NOT_FOUND, and other 404s as errors", async () => {
    const seen: string[] = [];
    const observed = resellerFor(sandbox, {
      observer: (call, result) => seen.push(`${call.endpoint} ${result}`),
    });
    try {
      const answer = await observed.buyData(MTN_1GB);
      const reference = answer.accepted ? answer.reference : "";
      expect((await observed.verifyTransaction(reference)).found).toBe(false);
      expect((await observed.verifyTransaction("NO-SUCH-REFERENCE")).found).toBe(false);
      // the same status elsewhere is still an error: the expectation is the verify read's alone
      const error = await observed.listPlans("99").catch((e: HttpError) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).code).toBe("HTTP_NOT_FOUND");
      expect(seen.filter((s) => s.startsWith("transaction"))).toEqual([
        "transaction HTTP_NOT_FOUND",
        "transaction HTTP_NOT_FOUND",
      ]);
    } finally {
      await observed.close();
    }
  });

  it("returns a refusal in a 200 answer as not accepted, with the provider's words", async () => {
    const answer = await client.buyData({ ...MTN_1GB, phone_number: "08051234567" }); // a GLO number
    expect(answer.accepted).toBe(false);
    expect(!answer.accepted && answer.message).toContain("is not a valid MTN number");
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("sends ported_number so the provider skips its number check", async () => {
    const answer = await client.buyData({ ...MTN_1GB, phone_number: "08051234567", ported_number: true });
    expect(answer.accepted).toBe(true);
  });
});

describe("purchase faults and their outcomes", () => {
  it.each([
    ["rate500Before", "HTTP_SERVER_ERROR", "unknown", 0],
    ["rate500After", "HTTP_SERVER_ERROR", "unknown", 1],
    ["rateResetAfter", "HTTP_CONNECTION_LOST", "unknown", 1],
    ["rateMalformedAfter", "HTTP_MALFORMED_RESPONSE", "unknown", 1],
    ["rateHangAfter", "HTTP_TIMEOUT", "unknown", 1],
    ["rateTimeoutAfter", "HTTP_TIMEOUT", "unknown", 1],
  ] as const)("%s → %s (%s), debits %i, sent once", async (fault, code, outcome, debits) => {
    sandbox.setFaults({ endpoints: { data: { [fault]: 1 } } });
    const fast = resellerFor(sandbox, { timeout: { connect: 500, headers: 300, body: 300 } });
    try {
      const error = await failureOf(fast.buyData(MTN_1GB));
      expect([error.code, error.outcome]).toEqual([code, outcome]);
      expect(sandbox.debits()).toHaveLength(debits);
      expect(sandbox.requests().filter((r) => r.path === "/public/api/data")).toHaveLength(1);
    } finally {
      await fast.http.destroy();
    }
  });

  it("429 is rejected with the Retry-After delay and is not retried for a purchase", async () => {
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 7 } } });
    // Its own client: a client told to wait 7 s holds every later call to the service that long.
    const own = resellerFor(sandbox);
    const error = await failureOf(own.buyData(MTN_1GB)).finally(() => own.close());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7000);
    expect(error.outcome).toBe("rejected");
    expect(sandbox.debits()).toHaveLength(0);
    expect(sandbox.requests().filter((r) => r.path === "/public/api/data")).toHaveLength(1);
  });

  it("a refused connection is certainly not sent", async () => {
    const closed = resellerFor({ resellerUrl: "http://127.0.0.1:1", apiKey: "x-key-0000" });
    const error = await failureOf(closed.buyData(MTN_1GB));
    expect(error).toBeInstanceOf(NotSentError);
    expect(error.outcome).toBe("not_sent");
    await closed.close();
  });
});

describe("reads retry transient failures", () => {
  it("retries a 429 after exactly the Retry-After delay, then succeeds", async () => {
    sandbox.setFaults({ seed: 1, endpoints: { networks: { rate429: 1, retryAfter: 2 } } });
    // the first attempt is refused; while the client waits, the service recovers
    const clock = recordingClock(() => sandbox.setFaults({ endpoints: {} }));
    const retrying = resellerFor(sandbox, { clock });
    expect(await retrying.listNetworks()).toHaveLength(4);
    expect(clock.slept).toEqual([2000]);
    expect(
      sandbox
        .requests()
        .filter((r) => r.path === "/public/api/networks")
        .map((r) => r.status),
    ).toEqual([429, 200]);
    await retrying.close();
  });

  it("gives up after max_attempts on a persistent 500, with a clear error", async () => {
    sandbox.setFaults({ endpoints: { networks: { rate500Before: 1 } } });
    const error = await failureOf(client.listNetworks());
    expect(error.code).toBe("HTTP_SERVER_ERROR");
    expect(sandbox.requests().filter((r) => r.path === "/public/api/networks")).toHaveLength(3);
  });

  it("retries verify reads through resets and malformed bodies", async () => {
    const answer = await client.buyData(MTN_1GB);
    const reference = answer.accepted ? answer.reference : "";
    sandbox.setFaults({
      seed: 5,
      endpoints: { transaction: { rateResetAfter: 0.25, rateMalformedAfter: 0.25 } },
    });
    const statuses: string[] = [];
    for (let i = 0; i < 6; i++) {
      const verification = await client.verifyTransaction(reference).catch((e: HttpError) => e);
      statuses.push(
        verification instanceof HttpError
          ? verification.code
          : verification.found
            ? verification.status
            : "404",
      );
    }
    const requests = sandbox.requests().filter((r) => r.path.startsWith("/public/api/transaction/"));
    // some attempts met a fault, and the client went round them: more requests than calls, and success reached
    expect(requests.some((r) => r.fault === "rateResetAfter" || r.fault === "rateMalformedAfter")).toBe(true);
    expect(requests.length).toBeGreaterThan(6);
    expect(statuses).toContain("success");
  });
});

describe("authentication", () => {
  it("a 401 is an AuthError that names the setting and never the key", async () => {
    const wrong = resellerFor(sandbox, { apiKey: "rk-wrong-SECRET-9999" });
    const error = await failureOf(wrong.listNetworks());
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain("reseller.api_key");
    const everything = `${error.message}\n${error.stack}\n${JSON.stringify(error)}`;
    expect(everything).not.toContain("rk-wrong-SECRET-9999");
    expect(sandbox.requests().filter((r) => r.path === "/public/api/networks")).toHaveLength(1);
    await wrong.close();
  });

  it("the key never appears in any error, whatever the failure", async () => {
    const errors: unknown[] = [];
    for (const fault of ["rate500After", "rateResetAfter", "rateMalformedAfter", "rate429"] as const) {
      sandbox.setFaults({ endpoints: { data: { [fault]: 1 } } });
      errors.push(await client.buyData(MTN_1GB).catch((e: unknown) => e));
    }
    for (const error of errors) {
      const text = `${String(error)}\n${(error as Error).stack}\n${JSON.stringify(error)}\n${String((error as Error).cause)}`;
      expect(text).not.toContain("rk-test-SECRET-0001");
    }
  });
});

describe("answers that break the documented shape", () => {
  let server: Server;
  let url: string;
  const bodies: Record<string, string> = {
    "/public/api/networks": JSON.stringify({ status: true, data: { networks: "none" } }),
    "/public/api/plans/1": JSON.stringify({
      status: true,
      data: {
        plans: [{ id: 5, price: 99.5, size: "2.5GB", name: "x", type: "NEW KIND", network: { id: "1" } }],
      },
    }),
    "/public/api/transaction/ABC123": JSON.stringify({
      status: true,
      data: { transaction: { reference: "ABC123", status: "awaiting_settlement", extra_field: 1 } },
    }),
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(bodies[req.url ?? ""] ?? "{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("says which field is wrong", async () => {
    const odd = resellerFor({ resellerUrl: url, apiKey: "k-0000" });
    const error = await failureOf(odd.listNetworks());
    expect(error.code).toBe("HTTP_MALFORMED_RESPONSE");
    expect(error.message).toMatch(/data\.networks: .*expected array/);
    await odd.close();
  });

  it("accepts plan types, sizes, numeric ids and prices it has never seen", async () => {
    const odd = resellerFor({ resellerUrl: url, apiKey: "k-0000" });
    const [plan] = await odd.listPlans("1");
    expect([plan!.id, plan!.type, plan!.size_mb, plan!.price.toFixed(2)]).toEqual([
      "5",
      "NEW KIND",
      2560,
      "99.50",
    ]);
    await odd.close();
  });

  it("keeps an unknown transaction status as not final, with the raw word", async () => {
    const odd = resellerFor({ resellerUrl: url, apiKey: "k-0000" });
    const verification = await odd.verifyTransaction("ABC123");
    expect(verification.found && [verification.status, verification.rawStatus]).toEqual([
      "unknown",
      "awaiting_settlement",
    ]);
    expect(verification.found && (verification.transaction as Record<string, unknown>).extra_field).toBe(1);
    await odd.close();
  });
});

describe("a reseller that announces its limits", () => {
  it("is paced to them: concurrent reads wait for the window instead of being refused", async () => {
    // 5 requests per 300 ms window, Laravel-style; every answer says the limit and what is left.
    let window = { hits: 0, closesAt: 0 };
    const statuses: number[] = [];
    const server = createServer((_req, res) => {
      const now = Date.now();
      if (now >= window.closesAt) window = { hits: 0, closesAt: now + 300 };
      const limits = { "x-ratelimit-limit": "5", "content-type": "application/json" };
      if (window.hits >= 5) {
        statuses.push(429);
        const retryAfter = String(Math.max(1, Math.ceil((window.closesAt - now) / 1000)));
        res.writeHead(429, { ...limits, "x-ratelimit-remaining": "0", "retry-after": retryAfter });
        return res.end('{"message":"Too Many Attempts."}');
      }
      window.hits += 1;
      statuses.push(200);
      res.writeHead(200, { ...limits, "x-ratelimit-remaining": String(5 - window.hits) });
      res.end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const http = new ServiceClient({
      service: "reseller",
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: "k-0000",
      ...FAST,
      retry: { max_attempts: 5, base_delay: 5, max_delay: 20 },
    });
    try {
      const reads = Array.from({ length: 12 }, () =>
        http.request({ endpoint: "networks", method: "GET", path: "/public/api/network" }),
      );
      expect((await Promise.all(reads)).map((r) => r.status)).toEqual(Array(12).fill(200));
      // At most the one request that found out when the spent window closes was refused.
      expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(1);
    } finally {
      await http.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
