// The reseller's answers are untrusted input: each lie the sandbox can tell, read over real HTTP, becomes either
// a typed value the ledger can use or an unreadable answer whose outcome is unknown (never a stored bad value).

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "../../src/http/errors.js";
import { loadCatalogue } from "../../src/purchases/catalogue-cache.js";
import { classifyPurchase } from "../../src/purchases/outcome.js";
import { resolvePurchase } from "../../src/purchases/resolve.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { failureOf, resellerFor } from "../helpers/clients.js";

const MTN_1GB = { network_id: "1", plan_id: "102", phone_number: "08031234567" };

let sandbox: Sandbox;
let client: ResellerClient;

beforeAll(async () => {
  sandbox = await startSandbox({
    verifyLag: "reads",
    seed: 5,
    verifyNotFoundPolls: 0,
    verifyPendingPolls: 0,
  });
  client = resellerFor(sandbox);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
afterEach(() => sandbox.reset({}));

/** Outcome of one purchase POST as the ledger would classify it. */
async function buyOutcome(reseller: ResellerClient) {
  try {
    return classifyPurchase({ answer: await reseller.buyData(MTN_1GB) });
  } catch (error) {
    return classifyPurchase({ error });
  }
}

describe("plans whose price cannot be bought at", () => {
  it("are set aside one by one, with the reason; the network's other plans stay usable", async () => {
    sandbox.setOptions({ lies: { prices: { "101": "-5.00", "102": "₦500", "103": "0", "104": "lots" } } });
    const { plans, unusable } = await client.readPlans("1");
    expect(unusable.map((u) => u.planId)).toEqual(["101", "102", "103", "104"]);
    expect(unusable[0]?.reason).toBe('price: expected a price above zero (listed as "-5.00")');
    expect(unusable[1]?.reason).toBe('price: expected a decimal amount (listed as "₦500")');
    expect(plans.map((p) => p.id)).not.toContain("102");
    expect(plans.length).toBeGreaterThan(3);

    const logged: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => logged.push(JSON.parse(line).msg) });
    const catalogue = await loadCatalogue(client, logger);
    expect(catalogue.unusable?.filter((u) => u.network === "MTN").map((u) => u.planId)).toEqual([
      "101",
      "102",
      "103",
      "104",
    ]);
    expect(logged.filter((m) => m.startsWith("plan 102 of MTN is skipped"))).toHaveLength(1);
    // A selector for 1GB never lands on the plan listed at "₦500"; a plan_id naming it is refused.
    const bySize = resolvePurchase(
      { network: "MTN", plan_selector: { size_mb: 1024 }, phone: "08031234567", ported: false },
      catalogue,
    );
    expect(bySize.ok && bySize.plan.id).not.toBe("102");
    const byId = resolvePurchase(
      { network: "MTN", plan_id: "102", phone: "08031234567", ported: false },
      catalogue,
    );
    expect(byId).toMatchObject({ ok: false, code: "plan_unusable" });
  });

  it("a price beyond what the ledger holds is unusable too", async () => {
    sandbox.setOptions({ lies: { prices: { "102": "1000000000000.00" } } });
    const { unusable } = await client.readPlans("1");
    expect(unusable).toEqual([
      {
        planId: "102",
        network: "1",
        reason:
          'price: 1000000000000.00 is beyond 999999999999.99, the most the ledger holds (listed as "1000000000000.00")',
      },
    ]);
  });
});

describe("references are exact text", () => {
  it("a reference written as a JSON number beyond 2^53 is read digit for digit, in purchase and verify", async () => {
    sandbox.setOptions({ lies: { referenceAsNumber: true } });
    const answer = await client.buyData(MTN_1GB);
    const [debit] = sandbox.debits();
    expect(debit?.reference).toMatch(/^[1-9]\d{19}$/);
    expect(answer).toMatchObject({ accepted: true, reference: debit?.reference });
    const verification = await client.verifyTransaction(debit!.reference);
    expect(verification).toMatchObject({ found: true, reference: debit?.reference, status: "success" });
    // the raw answer kept for the event log holds the same digits
    expect(JSON.stringify(answer.raw)).toContain(debit!.reference);
  });
});

describe("amounts the ledger cannot hold", () => {
  it("a wallet_balance out of range makes the purchase answer unreadable: in_doubt, the body kept", async () => {
    sandbox.setOptions({ lies: { walletBalance: "10000000000000" } });
    const outcome = await buyOutcome(client);
    expect(outcome.kind).toBe("in_doubt");
    expect(outcome.kind === "in_doubt" && outcome.why).toContain("data.wallet_balance");
    expect(outcome.response).toMatchObject({ success: true, data: { wallet_balance: 10000000000000 } });
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("the charged amount is read as a bounded decimal beside the listed price", async () => {
    sandbox.setOptions({ lies: { amount: "3050.00" } });
    const outcome = await buyOutcome(client);
    expect(outcome).toMatchObject({ kind: "submitted", charged: "3050.00" });
    sandbox.setOptions({ lies: { amount: "1e30" } });
    expect((await buyOutcome(client)).kind).toBe("in_doubt");
  });
});

describe("verify answers as typed fields", () => {
  it("gives the reference, the visible phone digits, the amount, the status and the envelope", async () => {
    const answer = await client.buyData(MTN_1GB);
    const reference = answer.accepted ? answer.reference : "";
    const verification = await client.verifyTransaction(reference);
    expect(verification).toMatchObject({
      found: true,
      reference,
      phone: "0803****567",
      status: "success",
      envelopeOk: true,
    });
    expect(verification.found && verification.amount?.toFixed(2)).toBe("305.00");
  });
});

describe("a call has a total deadline", () => {
  it("an answer trickling one byte per 0.9 s is abandoned at timeout.total: the purchase is in_doubt", {
    timeout: 20_000,
  }, async () => {
    sandbox.setOptions({ lies: { trickleMs: 900 } });
    const slow = resellerFor(sandbox, { timeout: { connect: 1000, headers: 1000, body: 1000, total: 3000 } });
    try {
      const outcome = await buyOutcome(slow);
      expect(outcome).toMatchObject({ kind: "in_doubt" });
      expect(outcome.kind === "in_doubt" && outcome.why).toContain("HTTP_TIMEOUT");
      expect(outcome.kind === "in_doubt" && outcome.why).toContain("timeout.total");
      expect(sandbox.debits()).toHaveLength(1);
    } finally {
      await slow.http.destroy();
    }
  });
});

describe("an answer body is capped while it is read", () => {
  it("a 300 MB purchase answer stops at max_body: in_doubt with the first bytes kept, memory stays low", {
    timeout: 60_000,
  }, async () => {
    sandbox.setOptions({ lies: { hugeBodyBytes: 300 * 1024 * 1024 } });
    const capped = resellerFor(sandbox, { maxBody: 1024 * 1024 });
    try {
      const rssBefore = process.memoryUsage().rss;
      const error = await failureOf(capped.buyData(MTN_1GB));
      const grown = process.memoryUsage().rss - rssBefore;
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({ code: "HTTP_BODY_TOO_LARGE", outcome: "unknown" });
      const outcome = classifyPurchase({ error });
      expect(outcome.kind).toBe("in_doubt");
      const kept = outcome.response as { first_bytes: string; max_body: number };
      expect(kept.max_body).toBe(1024 * 1024);
      expect(kept.first_bytes.startsWith("{")).toBe(true);
      expect(kept.first_bytes.length).toBeLessThanOrEqual(4096);
      expect(grown).toBeLessThan(64 * 1024 * 1024);
      expect(sandbox.debits()).toHaveLength(1);
    } finally {
      await capped.http.destroy();
    }
  });
});

describe("verify answers the sandbox cannot give", () => {
  /** A reseller whose verify endpoint answers `text`, whatever is asked. */
  async function answering(text: string) {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(text);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const reseller = resellerFor({ resellerUrl: `http://127.0.0.1:${port}`, apiKey: "k" });
    return {
      reseller,
      close: async () => {
        await reseller.http.destroy();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }
  const envelope = (status: string, transaction: string) =>
    `{"status":${status},"data":{"transaction":${transaction}}}`;

  it("reads a numeric reference exactly, the envelope's false, and a phone it masks otherwise", async () => {
    const hostile = await answering(
      envelope(
        "false",
        '{"reference":12345678901234567890,"status":"success","amount":"305.00","phone_number":"234805****999"}',
      ),
    );
    try {
      const verification = await hostile.reseller.verifyTransaction("12345678901234567890");
      expect(verification).toMatchObject({
        found: true,
        reference: "12345678901234567890",
        phone: "0805****999",
        status: "success",
        envelopeOk: false,
      });
    } finally {
      await hostile.close();
    }
  });

  it("an amount beyond what the ledger holds makes the verify answer unreadable", async () => {
    const hostile = await answering(
      envelope("true", '{"reference":"R1","status":"failed","amount":"99999999999999.00"}'),
    );
    try {
      const error = await failureOf(hostile.reseller.verifyTransaction("R1"));
      expect(error.code).toBe("HTTP_MALFORMED_RESPONSE");
      expect(error.message).toContain("data.transaction.amount");
    } finally {
      await hostile.close();
    }
  });
});
