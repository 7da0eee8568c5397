import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SANDBOX_NETWORKS, SANDBOX_PLANS, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { buy, json, MTN_1GB, reseller, verify } from "./helpers.js";

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

describe("reseller authentication", () => {
  it("answers 401 Unauthenticated without a bearer key", async () => {
    const response = await reseller(sandbox, "GET", "/public/api/networks", { key: null });
    expect(response.status).toBe(401);
    expect(await json(response)).toEqual({ status: false, message: "Unauthenticated." });
  });

  it("answers 401 to a wrong key and debits nothing", async () => {
    const response = await reseller(sandbox, "POST", "/public/api/data", { key: "wrong", json: MTN_1GB });
    expect(response.status).toBe(401);
    expect(sandbox.debits()).toEqual([]);
    expect(sandbox.wallet()).toBe("1000000.00");
  });
});

describe("reseller catalogue", () => {
  it("lists the four networks with exactly code, name and other_name", async () => {
    const body = await json(await reseller(sandbox, "GET", "/public/api/networks"));
    expect(body.status).toBe(true);
    expect(body.data.networks).toEqual([
      { code: "1", name: "MTN", other_name: "mtn" },
      { code: "2", name: "GLO", other_name: "glo" },
      { code: "3", name: "9MOBILE", other_name: "t2" },
      { code: "4", name: "AIRTEL", other_name: "airtel" },
    ]);
  });

  it("lists the plans of one network, each carrying that network", async () => {
    const body = await json(await reseller(sandbox, "GET", "/public/api/plans/1"));
    const plans = body.data.plans as Array<Record<string, unknown>>;
    expect(plans.length).toBeGreaterThanOrEqual(8);
    expect(plans.length).toBeLessThanOrEqual(15);
    expect(plans.find((plan) => plan.id === "102")).toEqual({
      id: "102",
      price: "305.00",
      size: "1GB",
      name: "1GB for 30 Days",
      type: "CORPORATE GIFTING",
      network: { id: "1", name: "MTN", other_name: "mtn", code: "1" },
    });
    for (const plan of plans)
      expect(plan.network).toEqual({ id: "1", name: "MTN", other_name: "mtn", code: "1" });
  });

  it("has unique plan ids, mixed types, mixed size formats and the indicative prices", () => {
    const ids = SANDBOX_PLANS.map((plan) => plan.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(SANDBOX_PLANS.map((plan) => plan.type))).toEqual(
      new Set(["SME", "CORPORATE GIFTING", "DIRECT GIFTING"]),
    );
    const sizes = new Set(SANDBOX_PLANS.map((plan) => plan.size));
    for (const size of ["500", "500MB", "1GB", "1.5GB", "1.0GB", "Unlimited", "1GB+1GB"]) {
      expect(sizes.has(size)).toBe(true);
    }
    const price = (network: string, size: string, type = "CORPORATE GIFTING") =>
      SANDBOX_PLANS.find((p) => p.network.name === network && p.size === size && p.type === type)?.price;
    expect(price("MTN", "500MB")).toBe("168.00");
    expect(price("MTN", "10GB")).toBe("2780.00");
    expect(price("GLO", "1GB")).toBe("465.00");
    expect(price("AIRTEL", "1GB")).toBe("822.00");
    expect(price("9MOBILE", "1GB")).toBe("330.00");
    for (const network of SANDBOX_NETWORKS) {
      const count = SANDBOX_PLANS.filter((plan) => plan.network.code === network.code).length;
      expect(count).toBeGreaterThanOrEqual(8);
    }
  });

  it("answers 404 Network not found for an unknown network", async () => {
    const response = await reseller(sandbox, "GET", "/public/api/plans/99");
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ status: false, message: "Network not found." });
  });
});

describe("buying data", () => {
  it("debits the plan price exactly once and answers the purchase result", async () => {
    const { status, body } = await buy(sandbox);
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, code: 200, status: "successful" });
    const reference = body.data.reference as string;
    expect(reference).toMatch(/^[A-Z0-9]{20}$/);
    expect(body.message).toBe(
      `Dear Customer, You have successfully gifted 08031234567 with 1GB of data. Reference: ${reference}`,
    );
    expect(body.data).toMatchObject({
      service: "MTN Data",
      amount: "305.00",
      plan: "1GB",
      phone_number: "08031234567",
      network: "MTN",
      wallet_balance: 999695,
      message: body.message,
    });
    expect(body.data.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(sandbox.wallet()).toBe("999695.00");
    expect(sandbox.debits()).toEqual([
      {
        reference,
        network_id: "1",
        plan_id: "102",
        phone_number: "08031234567",
        amount: "305.00",
        at: expect.any(String),
      },
    ]);
  });

  it("accepts a form-encoded purchase", async () => {
    const response = await reseller(sandbox, "POST", "/public/api/data", { form: MTN_1GB });
    expect((await json(response)).success).toBe(true);
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("answers 422 with field errors for missing fields and a bad phone number, debiting nothing", async () => {
    const missing = await buy(sandbox, { network_id: "1" });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ success: false, code: 422, status: "failed" });
    expect(Object.keys(missing.body.errors).sort()).toEqual(["phone_number", "plan_id"]);
    const badPhone = await buy(sandbox, { ...MTN_1GB, phone_number: "8031234567" });
    expect(badPhone.status).toBe(422);
    expect(badPhone.body.errors.phone_number).toHaveLength(1);
    expect(sandbox.debits()).toEqual([]);
  });

  it("answers 400 Invalid plan for an unknown plan or a plan of another network", async () => {
    for (const body of [
      { ...MTN_1GB, plan_id: "9999" },
      { ...MTN_1GB, plan_id: "203" },
    ]) {
      const result = await buy(sandbox, body);
      expect(result.status).toBe(400);
      expect(result.body).toEqual({ success: false, code: 400, status: "failed", message: "Invalid plan." });
    }
    expect(sandbox.debits()).toEqual([]);
  });

  it("refuses a number of another network with HTTP 200 unless it is marked ported", async () => {
    const glo = { ...MTN_1GB, phone_number: "08051234567" };
    const refused = await buy(sandbox, glo);
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      success: false,
      code: 400,
      status: "failed",
      message: "Number 08051234567 is not a valid MTN number.",
    });
    expect(sandbox.debits()).toEqual([]);
    const ported = await buy(sandbox, { ...glo, ported_number: true });
    expect(ported.body.success).toBe(true);
    const portedText = await reseller(sandbox, "POST", "/public/api/data", {
      form: { ...glo, ported_number: "1" },
    });
    expect((await json(portedText)).success).toBe(true);
    expect(sandbox.debits()).toHaveLength(2);
  });

  it("answers 402 Insufficient balance when the wallet is below the price", async () => {
    sandbox.setOptions({ walletBalance: "305.00" });
    expect((await buy(sandbox)).status).toBe(200);
    const refused = await buy(sandbox);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      success: false,
      code: 402,
      status: "failed",
      message: "Insufficient balance.",
    });
    expect(sandbox.wallet()).toBe("0.00");
    expect(sandbox.debits()).toHaveLength(1);
  });
});

describe("verifying a purchase", () => {
  it("answers 404 for an unknown reference", async () => {
    const result = await verify(sandbox, "NOSUCHREFERENCE00000");
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ status: false, message: "Transaction not found." });
  });

  it("goes not found, then pending, then success, with a masked number", async () => {
    const reference = (await buy(sandbox)).body.data.reference as string;
    expect((await verify(sandbox, reference)).status).toBe(404);
    const pending = await verify(sandbox, reference);
    expect(pending.status).toBe(200);
    expect(pending.body.data.transaction.status).toBe("pending");
    const done = await verify(sandbox, reference);
    const tx = done.body.data.transaction;
    expect(tx).toMatchObject({
      service_plan_id: 102,
      service: "MTN",
      phone_number: "0803****567",
      service_type: "Data Topup",
      amount: "305.00",
      initial_balance: "1000000.00",
      final_balance: "999695.00",
      reference,
      status: "success",
    });
    expect(tx.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(tx.webhook_response).toMatchObject({ success: true, status: "successful", data: { reference } });
    expect(sandbox.refunds()).toEqual([]);
  });

  it("follows the configured number of not-found and pending polls", async () => {
    sandbox.setOptions({ verifyNotFoundPolls: 2, verifyPendingPolls: 0 });
    const reference = (await buy(sandbox)).body.data.reference as string;
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const result = await verify(sandbox, reference);
      statuses.push(result.status === 404 ? 404 : result.body.data.transaction.status);
    }
    expect(statuses).toEqual([404, 404, "success"]);
  });

  it("by default lags verify by the time since the purchase, however often it is read", async () => {
    const readThrice = async () => {
      const reference = (await buy(sandbox)).body.data.reference as string;
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const result = await verify(sandbox, reference);
        statuses.push(result.status === 404 ? 404 : result.body.data.transaction.status);
      }
      return statuses;
    };
    try {
      sandbox.reset({ verifyLag: "time", verifyNotFoundMs: 60_000, verifyPendingMs: 0 });
      expect(await readThrice()).toEqual([404, 404, 404]);
      sandbox.reset({ verifyLag: "time", verifyNotFoundMs: 0, verifyPendingMs: 60_000 });
      expect(await readThrice()).toEqual(["pending", "pending", "pending"]);
      sandbox.reset({ verifyLag: "time", verifyNotFoundMs: 0, verifyPendingMs: 0 });
      expect(await readThrice()).toEqual(["success", "success", "success"]);
    } finally {
      sandbox.reset();
    }
  });

  it("refunds a failed purchase once, when verify reveals it", async () => {
    sandbox.reset({ failRate: 1, verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
    const reference = (await buy(sandbox)).body.data.reference as string;
    expect(sandbox.wallet()).toBe("999695.00");
    const first = await verify(sandbox, reference);
    expect(first.body.data.transaction.status).toBe("failed");
    expect(first.body.data.transaction.webhook_response).toMatchObject({ success: false, status: "failed" });
    await verify(sandbox, reference);
    expect(sandbox.refunds()).toEqual([{ reference, amount: "305.00", at: expect.any(String) }]);
    expect(sandbox.wallet()).toBe("1000000.00");
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("refunds a reversed purchase", async () => {
    sandbox.reset({ reverseRate: 1, verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
    const reference = (await buy(sandbox)).body.data.reference as string;
    expect((await verify(sandbox, reference)).body.data.transaction.status).toBe("reversed");
    expect(sandbox.refunds().map((refund) => refund.reference)).toEqual([reference]);
    expect(sandbox.wallet()).toBe("1000000.00");
  });

  it("draws outcomes from the seed: the same seed gives the same statuses", async () => {
    const outcomes = async (seed: number) => {
      sandbox.reset({ seed, failRate: 0.3, reverseRate: 0.2, verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
      const statuses: string[] = [];
      for (let i = 0; i < 20; i++) {
        const reference = (await buy(sandbox)).body.data.reference as string;
        statuses.push((await verify(sandbox, reference)).body.data.transaction.status);
      }
      return statuses;
    };
    const first = await outcomes(7);
    expect(await outcomes(7)).toEqual(first);
    expect(new Set(first)).toEqual(new Set(["success", "failed", "reversed"]));
    const refunded = first.filter((status) => status !== "success").length;
    expect(sandbox.refunds()).toHaveLength(refunded);
  });
});
