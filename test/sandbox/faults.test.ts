import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadFaultsFile, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { waitFor } from "../helpers/wait.js";
import { analytics, json, MTN_1GB, reseller } from "./helpers.js";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => {
  sandbox.reset();
});

const purchase = (signal?: AbortSignal) =>
  reseller(sandbox, "POST", "/public/api/data", { json: MTN_1GB, signal });

/**
 * A purchase the client gives up on once the sandbox has debited it (the `debits`th debit), rather than after a
 * fixed time a loaded machine might not reach the debit in. Resolves with whether an answer had come by then.
 */
async function purchaseGivenUpAfterDebit(debits: number): Promise<{ answeredFirst: boolean }> {
  const client = new AbortController();
  let answeredFirst = false;
  const request = purchase(client.signal).then(() => {
    answeredFirst = true;
  });
  await waitFor(`debit ${debits}`, () => sandbox.debits().length >= debits);
  // An answer that was coming would come now: give it the moment it needs to reach the client.
  await new Promise((resolve) => setTimeout(resolve, 100));
  client.abort();
  await request.catch(() => {});
  return { answeredFirst };
}

describe("faults on the purchase endpoint", () => {
  it("500 before the effect debits nothing", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500Before: 1 } } });
    const response = await purchase();
    expect(response.status).toBe(500);
    expect(await json(response)).toEqual({ message: "Server Error" });
    expect(sandbox.debits()).toEqual([]);
    expect(sandbox.wallet()).toBe("1000000.00");
  });

  it("500 after the effect debits exactly once", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const response = await purchase();
    expect(response.status).toBe(500);
    expect(await json(response)).toEqual({ message: "Server Error" });
    expect(sandbox.debits()).toHaveLength(1);
    expect(sandbox.wallet()).toBe("999695.00");
  });

  it("hang after the effect debits once and never answers", async () => {
    sandbox.setFaults({ endpoints: { data: { rateHangAfter: 1 } } });
    expect(await purchaseGivenUpAfterDebit(1)).toEqual({ answeredFirst: false });
    expect(sandbox.debits()).toHaveLength(1);
    const entry = sandbox.requests().find((request) => request.path === "/public/api/data");
    expect(entry).toMatchObject({ status: null, fault: "rateHangAfter" });
  });

  it("connection reset after the effect debits once and gives no response", async () => {
    sandbox.setFaults({ endpoints: { data: { rateResetAfter: 1 } } });
    await expect(purchase()).rejects.toThrow(/fetch failed/);
    expect(sandbox.debits()).toHaveLength(1);
    expect(sandbox.requests().at(-1)).toMatchObject({ status: null, fault: "rateResetAfter" });
  });

  it("a gateway timeout after the effect debits once: a 504 after timeoutAfterMs, or nothing to a client that gave up", async () => {
    sandbox.setFaults({ endpoints: { data: { rateTimeoutAfter: 1, timeoutAfterMs: 50 } } });
    const response = await purchase();
    expect(response.status).toBe(504);
    expect(response.headers.get("content-type")).toBe("text/html");
    expect(await response.text()).toContain("504 Gateway Time-out");
    expect(sandbox.debits()).toHaveLength(1);
    expect(sandbox.requests().at(-1)).toMatchObject({ status: 504, fault: "rateTimeoutAfter" });

    // The default hold (60 s, a gateway's read timeout) outlasts the client: it gives up, the debit stays.
    sandbox.setFaults({ endpoints: { data: { rateTimeoutAfter: 1 } } });
    expect(await purchaseGivenUpAfterDebit(2)).toEqual({ answeredFirst: false });
    expect(sandbox.debits()).toHaveLength(2);
    expect(sandbox.wallet()).toBe("999390.00");
    expect(sandbox.requests().at(-1)).toMatchObject({ status: null, fault: "rateTimeoutAfter" });
  });

  it("a malformed body after the effect debits once and is not JSON", async () => {
    sandbox.setFaults({ endpoints: { data: { rateMalformedAfter: 1 } } });
    const response = await purchase();
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.startsWith("<html>")).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("429 carries Retry-After when configured and debits nothing", async () => {
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 7 } } });
    const response = await purchase();
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(sandbox.debits()).toEqual([]);
    sandbox.setFaults({ endpoints: { data: { rate429: 1 } } });
    const bare = await purchase();
    expect(bare.status).toBe(429);
    expect(bare.headers.get("retry-after")).toBeNull();
  });

  it("adds per-endpoint latency", async () => {
    sandbox.setFaults({ endpoints: { networks: { latencyMs: 150 } } });
    const started = Date.now();
    expect((await reseller(sandbox, "GET", "/public/api/networks")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("leaves other endpoints alone", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500Before: 1 } } });
    expect((await reseller(sandbox, "GET", "/public/api/networks")).status).toBe(200);
  });
});

describe("faults on the analytics service", () => {
  it("500 after a create keeps the created website and records the mutation", async () => {
    sandbox.setFaults({ endpoints: { "websites.create": { rate500After: 1 } } });
    const response = await analytics(sandbox, "POST", "/api/v1/websites", {
      form: { domain: "a.example.com" },
    });
    expect(response.status).toBe(500);
    expect(sandbox.websites().map((site) => site.domain)).toEqual(["a.example.com"]);
    expect(sandbox.websiteMutations()).toMatchObject([{ method: "POST", status: 500 }]);
  });
});

describe("seeded fault draws", () => {
  const statuses = async (seed: number) => {
    sandbox.reset({ faults: { seed, endpoints: { networks: { rate429: 0.3, rate500Before: 0.2 } } } });
    const out: number[] = [];
    for (let i = 0; i < 30; i++) out.push((await reseller(sandbox, "GET", "/public/api/networks")).status);
    return out;
  };

  it("replays the same faults for the same seed and mixes them by their shares", async () => {
    const first = await statuses(11);
    expect(await statuses(11)).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 500]));
    expect(await statuses(12)).not.toEqual(first);
  });
});

describe("fault configuration", () => {
  it("rejects rates that sum above 1 and unknown fields", () => {
    expect(() => sandbox.setFaults({ endpoints: { data: { rate429: 0.6, rate500After: 0.6 } } })).toThrow(
      /at most 1/,
    );
    expect(() => sandbox.setFaults({ endpoints: { data: { rate_429: 1 } } } as never)).toThrow(/rate_429/);
  });

  it("loads a fault file in JSON or YAML", () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-faults-"));
    const jsonPath = join(dir, "faults.json");
    writeFileSync(jsonPath, JSON.stringify({ seed: 3, endpoints: { data: { rateResetAfter: 0.1 } } }));
    expect(loadFaultsFile(jsonPath)).toEqual({ seed: 3, endpoints: { data: { rateResetAfter: 0.1 } } });
    const yamlPath = join(dir, "faults.yaml");
    writeFileSync(yamlPath, "endpoints:\n  transaction:\n    rate429: 0.5\n    retryAfter: 2\n");
    expect(loadFaultsFile(yamlPath)).toEqual({ endpoints: { transaction: { rate429: 0.5, retryAfter: 2 } } });
    writeFileSync(yamlPath, "endpoints:\n  nosuch:\n    rate429: 0.5\n");
    expect(() => loadFaultsFile(yamlPath)).toThrow(/invalid fault config/);
  });
});
