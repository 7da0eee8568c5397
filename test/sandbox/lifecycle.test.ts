import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/index.js";
import { CLI } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { json, MTN_1GB, reseller } from "./helpers.js";

describe("sandbox lifecycle", () => {
  it("close() resolves promptly while a request hangs, and the hanging request fails", async () => {
    const sandbox = await startSandbox({ faults: { endpoints: { data: { rateHangAfter: 1 } } } });
    const hanging = reseller(sandbox, "POST", "/public/api/data", { json: MTN_1GB });
    const outcome = hanging.then(
      () => "answered",
      () => "failed",
    );
    await waitFor("the purchase debited", () => sandbox.debits().length > 0);
    const started = Date.now();
    await sandbox.close();
    // Promptly: long before the hang would end (never) or a loaded machine's slowest close.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await outcome).toBe("failed");
  });

  it("close() resolves promptly while a request is inside its added latency", async () => {
    const sandbox = await startSandbox({ latencyMs: 60_000 });
    const slow = reseller(sandbox, "GET", "/public/api/networks").catch(() => "failed");
    // The request is recorded as it arrives, before its latency.
    await waitFor("the request inside its latency", () => sandbox.requests().length > 0);
    const started = Date.now();
    await sandbox.close();
    // Promptly: long before the 60 s latency would end.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await slow).toBe("failed");
  });

  it("uses the given keys and wallet, and delays every request by latencyMs", async () => {
    const sandbox = await startSandbox({
      apiKey: "k1",
      analyticsApiKey: "k2",
      walletBalance: "500.50",
      latencyMs: 80,
    });
    try {
      expect(sandbox.apiKey).toBe("k1");
      expect(sandbox.analyticsApiKey).toBe("k2");
      expect(sandbox.resellerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.analyticsUrl).not.toBe(sandbox.resellerUrl);
      const started = Date.now();
      const response = await reseller(sandbox, "POST", "/public/api/data", { json: MTN_1GB });
      expect(Date.now() - started).toBeGreaterThanOrEqual(75);
      expect((await json(response)).data.wallet_balance).toBe(195.5);
      expect(sandbox.wallet()).toBe("195.50");
    } finally {
      await sandbox.close();
    }
  });

  it("reset clears records and faults and restores the starting wallet", async () => {
    const sandbox = await startSandbox({ walletBalance: "1000.00" });
    try {
      sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
      await reseller(sandbox, "POST", "/public/api/data", { json: MTN_1GB });
      sandbox.seedWebsites([{ domain: "x.example.com" }]);
      expect(sandbox.debits()).toHaveLength(1);
      sandbox.reset();
      expect(sandbox.debits()).toEqual([]);
      expect(sandbox.requests()).toEqual([]);
      expect(sandbox.websites()).toEqual([]);
      expect(sandbox.wallet()).toBe("1000.00");
      expect((await reseller(sandbox, "POST", "/public/api/data", { json: MTN_1GB })).status).toBe(200);
      expect(sandbox.wallet()).toBe("695.00");
    } finally {
      await sandbox.close();
    }
  });

  it("rejects invalid options", async () => {
    await expect(startSandbox({ failRate: 2 })).rejects.toThrow(/failRate/);
    await expect(startSandbox({ failRate: 0.6, reverseRate: 0.6 })).rejects.toThrow(/at most 1/);
  });
});

describe("topsync sandbox", () => {
  /** Starts the command, reads the analytics URL it prints, and asks for the website list once. */
  async function firstListing(flags: string[]): Promise<Headers> {
    const child = spawn(
      process.execPath,
      [CLI, "sandbox", "--reseller-port", "0", "--analytics-port", "0", "--receiver-port", "0", ...flags],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
        child.stdout.on("data", (chunk) => {
          out += String(chunk);
          const found = /sandbox analytics (\S+)/.exec(out);
          if (found) resolve(found[1]!);
        });
      });
      const response = await fetch(`${url}/api/v1/websites`, {
        headers: { authorization: "Bearer sandbox-analytics-key", accept: "application/json" },
      });
      expect(response.status).toBe(200);
      return response.headers;
    } finally {
      child.removeAllListeners("exit");
      child.kill("SIGTERM");
    }
  }

  it("throttles the analytics API at 60 a minute by default, as the real service does", async () => {
    const headers = await firstListing([]);
    expect([headers.get("x-ratelimit-limit"), headers.get("x-ratelimit-remaining")]).toEqual(["60", "59"]);
  });

  it("takes a limit and window, or no throttle at all", async () => {
    expect(
      (await firstListing(["--throttle-limit", "30", "--throttle-window", "5"])).get("x-ratelimit-limit"),
    ).toBe("30");
    expect((await firstListing(["--no-throttle"])).get("x-ratelimit-limit")).toBeNull();
  });
});
