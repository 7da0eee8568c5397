// Values read at the boundary: phone numbers by the national numbering plan, networks matched without guessing,
// JSON numbers kept as written.
import { describe, expect, it } from "vitest";
import { parseJsonExact } from "../../src/http/json-text.js";
import { Big } from "../../src/money.js";
import { normalisePhone } from "../../src/purchases/phone.js";
import { type Catalogue, resolvePurchase } from "../../src/purchases/resolve.js";
import { matchNetwork, resolveNetwork } from "../../src/reseller/catalogue.js";
import {
  classifyStatus,
  type Network,
  type Plan,
  phoneAgrees,
  transactionSchema,
  visiblePhone,
} from "../../src/reseller/schemas.js";

describe("phone numbers follow the numbering plan", () => {
  it.each([
    ["08031234567", "08031234567"],
    ["+234 (0) 803 123 4567", "08031234567"],
    ["+23408031234567", "08031234567"],
    ["0802.123.4567", "08021234567"],
    ["+234 803 123 4567", "08031234567"],
    ["2348051234567", "08051234567"],
    ["8031234567", "08031234567"],
  ])("accepts %s as %s", (input, national) => {
    expect(normalisePhone(input)).toEqual({ ok: true, phone: national });
  });

  it.each([
    ["08001234567", "0800… is a toll-free number, not a mobile number"],
    ["07001234567", "0700… is a universal access number, not a mobile number"],
    ["09171234567", "0917… is not a number in the Nigerian numbering plan"],
    ["09191234567", "0919… is not a number in the Nigerian numbering plan"],
    ["09001234567", "0900… is not a number in the Nigerian numbering plan"],
    ["0803", "expected 11 digits"],
    ["0803-oops", "expected 11 digits starting 07, 08 or 09"],
    ["+44 7911 123456", "expected 11 digits starting 07, 08 or 09"],
  ])("refuses %s: %s", (input, why) => {
    const check = normalisePhone(input);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toContain(`invalid phone number: ${why}`);
  });

  it("gives the same verdict from the prefix cache as from the library", () => {
    expect(normalisePhone("08001234567").ok).toBe(false);
    expect(normalisePhone("08009999999").ok).toBe(false);
    expect(normalisePhone("08039999999")).toEqual({ ok: true, phone: "08039999999" });
  });
});

const network = (id: string, name: string, other_name = ""): Network => ({ id, code: id, name, other_name });
const plan = (id: string, price: string): Plan => ({
  id,
  price: new Big(price),
  size: "1GB",
  size_mb: 1024,
  name: "1GB",
  type: "SME",
});

describe("networks are matched without guessing", () => {
  const networks = [network("7", "MTN-OLD", "mtn"), network("1", "MTN"), network("2", "GLO", "globacom")];

  it("an exact name beats another network's other_name", () => {
    expect(matchNetwork(networks, "MTN")).toMatchObject({ kind: "found", network: { id: "1" } });
    expect(matchNetwork(networks, "mtn")).toMatchObject({ kind: "found", network: { id: "1" } });
    expect(matchNetwork(networks, "7")).toMatchObject({ kind: "found", network: { id: "7" } });
    expect(matchNetwork(networks, "Globacom")).toMatchObject({ kind: "found", network: { id: "2" } });
  });

  it("two equally good candidates are an error naming both, at the CLI and in a run", () => {
    const twins = [network("1", "MTN"), network("9", "Airtel", "mtn"), network("8", "Glo", "mtn")];
    const match = matchNetwork(twins, "mtn");
    expect(match.kind).toBe("found");
    const ambiguous = matchNetwork(twins.slice(1), "MTN");
    expect(ambiguous).toMatchObject({ kind: "ambiguous" });
    const message = ambiguous.kind === "ambiguous" ? ambiguous.message : "";
    expect(message).toContain("Airtel (id 9, code 9)");
    expect(message).toContain("Glo (id 8, code 8)");
    expect(() => resolveNetwork(twins.slice(1), "mtn")).toThrow(/ambiguous: it names both Airtel/);
    const catalogue: Catalogue = {
      networks: twins.slice(1),
      plans: new Map([
        ["9", [plan("1", "100.00")]],
        ["8", [plan("2", "100.00")]],
      ]),
    };
    const refused = resolvePurchase(
      { network: "MTN", plan_id: "1", phone: "08031234567", ported: false },
      catalogue,
    );
    expect(refused).toMatchObject({ ok: false, code: "ambiguous_network" });
  });
});

describe("a valid mobile number whose prefix has no network", () => {
  const catalogue: Catalogue = {
    networks: [network("1", "MTN")],
    plans: new Map([["1", [plan("102", "305.00")]]]),
  };

  it("is refused as unknown_prefix unless ported", () => {
    expect(normalisePhone("08191234567").ok).toBe(true);
    const refused = resolvePurchase(
      { network: "MTN", plan_id: "102", phone: "08191234567", ported: false },
      catalogue,
    );
    expect(refused).toMatchObject({ ok: false, code: "unknown_prefix" });
    const ported = resolvePurchase(
      { network: "MTN", plan_id: "102", phone: "08191234567", ported: true },
      catalogue,
    );
    expect(ported).toMatchObject({ ok: true, phone: "08191234567" });
  });
});

describe("JSON numbers are read as written", () => {
  it("keeps an integer beyond 2^53 and a long decimal as their text; small numbers stay numbers", () => {
    expect(parseJsonExact('{"reference":12345678901234567890,"n":1,"a":305.5}')).toEqual({
      reference: "12345678901234567890",
      n: 1,
      a: 305.5,
    });
    expect(parseJsonExact('{"amount":3050.0000000000000001,"e":1e3}')).toEqual({
      amount: "3050.0000000000000001",
      e: "1e3",
    });
    expect(parseJsonExact("not json")).toBeUndefined();
    expect(parseJsonExact("")).toBeUndefined();
  });

  it("ignores a byte order mark before the text (RFC 8259 lets a reader), and only there", () => {
    expect(parseJsonExact('\uFEFF{"status":"success","reference":98765432109876543210}')).toEqual({
      status: "success",
      reference: "98765432109876543210",
    });
    expect(parseJsonExact("\uFEFF")).toBeUndefined();
    expect(parseJsonExact('{"a":1}\uFEFF')).toBeUndefined();
  });
});

describe("a phone as an answer shows it", () => {
  it("keeps the visible digits and compares only those", () => {
    expect(visiblePhone("0803****567")).toBe("0803****567");
    expect(visiblePhone("234803****567")).toBe("0803****567");
    expect(visiblePhone("0803")).toBeUndefined();
    // The national number without its trunk 0, as a JSON number writes 08031234567.
    expect(visiblePhone("8031234567")).toBe("08031234567");
    expect(visiblePhone("803****567")).toBe("0803****567");
    expect(visiblePhone("6031234567")).toBeUndefined();
    expect(phoneAgrees("0803****567", "08031234567")).toBe(true);
    expect(phoneAgrees("0803****567", "08031234568")).toBe(false);
    expect(phoneAgrees("0805****567", "08031234567")).toBe(false);
  });
});

describe("amounts in answers", () => {
  it("are read only when the ledger can hold them exactly", () => {
    const read = (amount: unknown) =>
      transactionSchema.safeParse({ reference: "R", status: "success", amount }).error?.issues[0]?.message;
    expect(read("305.00")).toBeUndefined();
    expect(read(305.5)).toBeUndefined();
    expect(read("3050.0000000000000000")).toBeUndefined();
    expect(read("999999999999.99")).toBeUndefined();
    expect(read("1000000000000.00")).toBe(
      "1000000000000.00 is beyond 999999999999.99, the most the ledger holds",
    );
    expect(read("305.001")).toBe("305.001 has more than two decimal places (the ledger keeps kobo)");
    expect(read("₦305")).toBe("expected a decimal amount");
  });
});

describe("a transaction status is one the list names", () => {
  it("is classed by its own name, and a name every object inherits is unknown", () => {
    expect(classifyStatus(" Delivered ")).toBe("success");
    expect(classifyStatus("REFUNDED")).toBe("reversed");
    // Looked up in a plain object, these found Object's own members: a function as the status's class.
    for (const inherited of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"])
      expect(classifyStatus(inherited)).toBe("unknown");
  });
});
