// The quick reading of the purchase and verify answers against the schemas it stands in for: what it reads is what
// zod makes of the same answer, key for key and in the same order, and what the schema refuses it leaves alone.
import { describe, expect, it } from "vitest";
import { quickPurchaseResult, quickTransactionResponse } from "../../src/reseller/quick-read.js";
import { purchaseResultSchema, transactionResponseSchema } from "../../src/reseller/schemas.js";

/** Keys in order, all the way down (Big amounts by their text). */
function shape(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && v.constructor?.name === "Big"
      ? `Big(${String(v)})`
      : v,
  );
}

function agrees(
  quick: (body: unknown) => unknown,
  schema: { safeParse(body: unknown): { success: boolean; data?: unknown } },
  body: unknown,
): void {
  const parsed = schema.safeParse(body);
  const read = quick(body);
  if (!parsed.success) {
    expect(read, shape(body)).toBeUndefined();
    return;
  }
  if (read === undefined) return; // left to the schema: always allowed
  expect(shape(read), shape(body)).toBe(shape(parsed.data));
  expect(read).toEqual(parsed.data);
}

const webhook = { success: true, code: 200, data: { amount: "305.00" } };
const transaction = {
  service_plan_id: 102,
  service: "MTN",
  phone_number: "0803****567",
  service_type: "Data Topup",
  amount: "305.00",
  initial_balance: "1000000000.00",
  final_balance: "999999695.00",
  reference: "FOIZ5LJRP11AG0OWE9WN",
  status: "success",
  created_at: "2026-11-26T13:04:54.034332Z",
  true_response: "SUCCESSFUL: You have gifted 1GB to 2348031234567. Thank you.",
  webhook_response: webhook,
};
const purchase = {
  success: true,
  code: 200,
  status: "successful",
  message: "Dear Customer, You have successfully gifted 08031234567 with 1GB of data.",
  data: {
    service: "MTN Data",
    amount: "305.00",
    plan: "1GB",
    phone_number: "08031234567",
    reference: "FOIZ5LJRP11AG0OWE9WN",
    network: "MTN",
    wallet_balance: 999999695,
    true_response: "SUCCESSFUL",
  },
};

/** Every field set to each of these in turn, or taken out. */
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  2,
  -3,
  305,
  305.5,
  305.555,
  "true",
  "false",
  "",
  " 305.00 ",
  "1,000.50",
  "305.001",
  "-12.5",
  "1e3",
  "999999999999.99",
  "-999999999999.99",
  "1000000000000.00",
  "-1000000000000",
  "007.5",
  0,
  "-0",
  "12345678901234567890",
  "pending",
  "FAILED",
  [],
  [1],
  {},
  { a: 1 },
];

function variants(base: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [base];
  for (const key of Object.keys(base)) {
    const { [key]: _gone, ...without } = base;
    out.push(without);
    for (const value of VALUES) if (value !== undefined) out.push({ ...base, [key]: value });
  }
  return out;
}

describe("quick reading of answers", () => {
  it("reads verify answers as transactionResponseSchema does", () => {
    const bodies: unknown[] = [null, [], "text", 1, {}, { data: null }, { data: {} }];
    for (const t of variants(transaction)) {
      bodies.push({ status: true, data: { transaction: t } });
      bodies.push({ data: { transaction: t, extra: 1 }, status: "false", zz: [1], "7": "seven" });
    }
    for (const status of VALUES) bodies.push({ status, data: { transaction } });
    bodies.push(
      JSON.parse('{"status":true,"data":{"transaction":{"reference":"R","status":"x","__proto__":{"a":1}}}}'),
    );
    bodies.push(
      JSON.parse('{"__proto__":1,"status":true,"data":{"transaction":{"reference":7,"status":"x"}}}'),
    );
    for (const body of bodies) agrees(quickTransactionResponse, transactionResponseSchema, body);
    // The common answer is read here, not left to the schema.
    expect(quickTransactionResponse({ status: true, data: { transaction } })).toBeDefined();
  });

  it("reads purchase answers as purchaseResultSchema does", () => {
    const bodies: unknown[] = [null, [], "text", 1, {}, { success: true, data: null }];
    for (const p of variants(purchase)) bodies.push(p);
    for (const d of variants(purchase.data)) {
      bodies.push({ ...purchase, data: d });
      bodies.push({ "10": 1, ...purchase, data: d, extra: { x: 1 } });
    }
    bodies.push(JSON.parse('{"success":true,"data":{"reference":"R","__proto__":{"a":1}}}'));
    for (const body of bodies) agrees(quickPurchaseResult, purchaseResultSchema, body);
    expect(quickPurchaseResult(purchase)).toBeDefined();
  });
});
