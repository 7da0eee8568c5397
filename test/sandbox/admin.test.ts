import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { analytics, buy, json, MTN_1GB, reseller } from "./helpers.js";

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

const admin = async (base: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}/__admin/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await json(response) };
};

describe("admin endpoint", () => {
  it("shows state, debits and wallet without auth on both servers", async () => {
    const reference = (await buy(sandbox)).body.data.reference;
    for (const base of [sandbox.resellerUrl, sandbox.analyticsUrl]) {
      const state = await admin(base, "GET", "state");
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({
        wallet: "999695.00",
        debits: [{ reference, amount: "305.00", plan_id: "102" }],
        refunds: [],
        websiteMutations: [],
        websites: [],
        requestCount: 1,
      });
      expect((await admin(base, "GET", "debits")).body.debits).toHaveLength(1);
      expect((await admin(base, "GET", "wallet")).body).toEqual({ wallet: "999695.00" });
    }
  });

  it("reverses a delivered purchase: refunded, and verify says reversed once it catches up (after notifiedPendingPolls reads)", async () => {
    const reference = (await buy(sandbox)).body.data.reference;
    const verify = async () =>
      (await json(await reseller(sandbox, "GET", `/public/api/transaction/${reference}`))).data?.transaction
        ?.status;
    sandbox.setOptions({ verifyNotFoundPolls: 0, verifyPendingPolls: 0, notifiedPendingPolls: 1 });
    expect(await verify()).toBe("success");
    expect(await admin(sandbox.resellerUrl, "POST", "reverse", { reference })).toEqual({
      status: 200,
      body: { reversed: reference },
    });
    expect(sandbox.wallet()).toBe("1000000.00");
    expect(sandbox.refunds()).toMatchObject([{ reference, amount: "305.00" }]);
    expect(await verify()).toBe("success"); // verify lags the reversal
    expect(await verify()).toBe("reversed");
    // Only a successful transaction can be reversed, once.
    const again = await admin(sandbox.resellerUrl, "POST", "reverse", { reference });
    expect(again).toEqual({
      status: 404,
      body: { message: `transaction ${reference} is reversed, not success` },
    });
    expect((await admin(sandbox.resellerUrl, "POST", "reverse", { reference: "NOPE" })).status).toBe(404);
    expect((await admin(sandbox.resellerUrl, "POST", "reverse", {})).status).toBe(400);
  });

  it("delivers a failed purchase late: charged again, and verify says success once it catches up (after notifiedPendingPolls reads)", async () => {
    sandbox.setOptions({
      failRate: 1,
      verifyNotFoundPolls: 0,
      verifyPendingPolls: 0,
      notifiedPendingPolls: 1,
    });
    const reference = (await buy(sandbox)).body.data.reference;
    const verify = async () =>
      (await json(await reseller(sandbox, "GET", `/public/api/transaction/${reference}`))).data?.transaction
        ?.status;
    expect(await verify()).toBe("failed");
    expect(sandbox.wallet()).toBe("1000000.00"); // refunded
    expect(await admin(sandbox.resellerUrl, "POST", "deliver-late", { reference })).toEqual({
      status: 200,
      body: { delivered: reference },
    });
    expect(sandbox.wallet()).toBe("999695.00");
    expect(sandbox.debits()).toMatchObject([
      { reference, amount: "305.00" },
      { reference, amount: "305.00" },
    ]);
    expect(sandbox.refunds()).toMatchObject([{ reference, amount: "305.00" }]);
    expect(await verify()).toBe("failed"); // verify lags the delivery
    expect(await verify()).toBe("success");
    expect(sandbox.wallet()).toBe("999695.00"); // a success is not refunded
    // Only a failed transaction can be delivered late, once.
    const again = await admin(sandbox.resellerUrl, "POST", "deliver-late", { reference });
    expect(again).toEqual({
      status: 404,
      body: { message: `transaction ${reference} is success, not failed` },
    });
    expect((await admin(sandbox.resellerUrl, "POST", "deliver-late", { reference: "NOPE" })).status).toBe(
      404,
    );
    expect((await admin(sandbox.resellerUrl, "POST", "deliver-late", {})).status).toBe(400);
  });

  it("lists website mutations", async () => {
    await analytics(sandbox, "POST", "/api/v1/websites", { form: { domain: "m.example.com" } });
    const { body } = await admin(sandbox.resellerUrl, "GET", "website-mutations");
    expect(body.websiteMutations).toMatchObject([
      { method: "POST", path: "/api/v1/websites", fields: { domain: "m.example.com" }, status: 201 },
    ]);
  });

  it("sets faults and options, and resets with new options", async () => {
    expect(
      (await admin(sandbox.analyticsUrl, "POST", "faults", { endpoints: { data: { rate500Before: 1 } } }))
        .status,
    ).toBe(200);
    expect((await reseller(sandbox, "POST", "/public/api/data", { json: MTN_1GB })).status).toBe(500);
    await admin(sandbox.resellerUrl, "POST", "options", { walletBalance: "100.00" });
    expect(sandbox.wallet()).toBe("100.00");
    await admin(sandbox.resellerUrl, "POST", "reset", { walletBalance: "2000.00" });
    expect(sandbox.wallet()).toBe("2000.00");
    expect((await buy(sandbox)).status).toBe(200);
    expect(sandbox.wallet()).toBe("1695.00");
  });

  it("answers 400 with the reason for a bad body", async () => {
    const bad = await admin(sandbox.resellerUrl, "POST", "faults", { endpoints: { data: { rate429: 2 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("rate429");
    expect((await admin(sandbox.resellerUrl, "POST", "options", { pageShape: "round" })).status).toBe(400);
  });

  it("seeds numbered websites and explicit records", async () => {
    const numbered = await admin(sandbox.analyticsUrl, "POST", "websites", { count: 3, prefix: "site" });
    expect(numbered.body.created).toBe(3);
    const records = await admin(sandbox.analyticsUrl, "POST", "websites", {
      records: [{ domain: "www.custom.example.com", privacy: 0 }],
    });
    expect(records.body.created).toBe(1);
    expect(sandbox.websites().map((site) => [site.id, site.domain, site.privacy])).toEqual([
      [1, "site-00001.example.com", 1],
      [2, "site-00002.example.com", 1],
      [3, "site-00003.example.com", 1],
      [4, "custom.example.com", 0],
    ]);
    const more = await admin(sandbox.analyticsUrl, "POST", "websites", { count: 2, prefix: "site" });
    expect(more.body.websites.map((site: { domain: string }) => site.domain)).toEqual([
      "site-00004.example.com",
      "site-00005.example.com",
    ]);
    expect(sandbox.websiteMutations()).toEqual([]);
  });

  it("does not count admin calls as service requests", async () => {
    await admin(sandbox.resellerUrl, "GET", "state");
    await reseller(sandbox, "GET", "/public/api/networks");
    expect(sandbox.requests()).toMatchObject([
      { service: "reseller", method: "GET", path: "/public/api/networks", status: 200 },
    ]);
  });
});

describe("plan prices", () => {
  it("are raised and restored at run time by the admin call, listed and debited alike", async () => {
    const base = sandbox.resellerUrl;
    expect((await admin(base, "POST", "options", { planPrices: { "102": "350.00" } })).status).toBe(200);
    const plans = (await json(await reseller(sandbox, "GET", "/public/api/plans/1"))) as {
      data: { plans: Array<{ id: string; price: string }> };
    };
    expect(plans.data.plans.find((p) => p.id === "102")?.price).toBe("350.00");
    await buy(sandbox);
    expect(sandbox.debits().map((d) => d.amount)).toEqual(["350.00"]);
    expect((await admin(base, "POST", "options", { planPrices: {} })).status).toBe(200);
    await buy(sandbox);
    expect(sandbox.debits().map((d) => d.amount)).toEqual(["350.00", "305.00"]);
    expect((await admin(base, "POST", "options", { planPrices: { "102": "cheap" } })).status).toBe(400);
  });
});
