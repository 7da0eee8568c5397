// The leaf helpers that keep outside text harmless: secrets in every encoding, control characters shown as
// escapes, CSV formulas neutralised, stored answers capped (never through a character), text PostgreSQL cannot
// hold made storable, calendar dates that exist.
import { describe, expect, it } from "vitest";
import { parseJsonExact } from "../../src/http/json-text.js";
import { table } from "../../src/report/document.js";
import { renderReport } from "../../src/report/render.js";
import { cappedResponse, cappedResponseJson, capText } from "../../src/text/cap.js";
import { csvCell, inert, inertLines } from "../../src/text/inert.js";
import { redactSecretForms, redactSecretsDeep } from "../../src/text/secrets.js";
import { cutText, mayHoldUnstorable, storable, storableText } from "../../src/text/storable.js";
import { zonedInstant } from "../../src/time/zoned.js";

const KEY = "sk-Ab+(a)*?/=K9x live";

describe("secret redaction", () => {
  const strict = encodeURIComponent(KEY).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
  const forms = {
    written: KEY,
    urlEncoded: encodeURIComponent(KEY),
    strictLowerHex: strict,
    strictUpperHex: strict.replace(/%[0-9a-f]{2}/g, (m) => m.toUpperCase()),
    formEncoded: new URLSearchParams({ k: KEY }).toString().slice(2),
    partlyEncoded: KEY.replace("(", "%28").replace("/", "%2F"),
    lower: KEY.toLowerCase(),
    upper: KEY.toUpperCase(),
    bearerBase64: Buffer.from(`Bearer ${KEY}`).toString("base64"),
    keyBase64Url: Buffer.from(KEY).toString("base64url"),
  };

  for (const [name, form] of Object.entries(forms)) {
    it(`replaces the key ${name}`, () => {
      expect(redactSecretForms(`before ${form} after`, KEY)).toBe("before [redacted] after");
    });
  }

  it("leaves other text alone, and short secrets are not matched everywhere", () => {
    expect(redactSecretForms("sk-Ab+(b) is another key", KEY)).toBe("sk-Ab+(b) is another key");
    expect(redactSecretForms("abc abc", "abc")).toBe("abc abc");
  });

  it("redacts deep in a parsed answer, keys included, without touching the prototype", () => {
    const value = JSON.parse(`{"a":["${KEY.toUpperCase()}"],"${KEY}":1,"__proto__":{"x":"${KEY}"}}`);
    const redacted = redactSecretsDeep(value, [KEY]) as Record<string, unknown>;
    expect(JSON.stringify(redacted)).not.toContain("sk-");
    expect(redacted["[redacted]"]).toBe(1);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("inert text", () => {
  it("shows controls and bidi marks as escapes", () => {
    expect(inert("a\u001b[31mb\rc\nd\te\u202Ef\u0000g\u009bh")).toBe(
      "a\\x1B[31mb\\rc\\nd\\te\\u202Ef\\x00g\\x9Bh",
    );
    expect(inertLines("one\ntwo\r\u2066x")).toBe("one\ntwo\\r\\u2066x");
    expect(inert("Ọ̀yọ́ — naira ₦")).toBe("Ọ̀yọ́ — naira ₦");
  });

  it("neutralises CSV cells that start a formula (OWASP)", () => {
    for (const cell of ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"])
      expect(csvCell(cell)).toBe(`'${cell}`);
    expect(csvCell("REF-1=2")).toBe("REF-1=2");
  });
});

describe("reports keep text from outside inert in every format", () => {
  it("a bidi override or a terminal escape in a provider's message is an escape in text, markdown and html", () => {
    const message = "FAILED \u202Eroot\u202C \u001b[31mred";
    const document = () => ({
      title: "report",
      facts: [],
      status: { tone: "ok" as const, text: "ok" },
      sections: [
        {
          id: "failures",
          title: "Failures",
          blocks: [table("failures", [{ header: "message" }], [[message]])],
        },
      ],
    });
    for (const format of ["text", "markdown", "html"] as const) {
      const out = renderReport(format, { document, json: () => ({}) });
      for (const char of ["\u202E", "\u202C", "\u001b"]) expect(out, format).not.toContain(char);
      expect(out, format).toContain("FAILED");
    }
  });
});

describe("caps on what is stored", () => {
  it("cuts text with a marker", () => {
    expect(capText("abcdef", 3)).toBe("abc… [truncated: 3 more characters]");
    expect(capText("abc", 3)).toBe("abc");
  });

  it("keeps an answer within the limit as it came, and marks a longer one", () => {
    expect(cappedResponse({ a: 1 }, 100)).toEqual({ a: 1 });
    expect(cappedResponse(undefined)).toBeNull();
    expect(cappedResponse({ a: "x".repeat(100) }, 10)).toEqual({
      truncated: true,
      length: 108,
      head: '{"a":"xxxx',
    });
  });

  it("serialises an answer as stored exactly as JSON.stringify of cappedResponse does", () => {
    const answers: unknown[] = [
      undefined,
      null,
      "",
      "plain text",
      "y".repeat(20),
      { a: 1, b: [1, "2", null], c: { d: '\u2028 é "q"' } },
      { a: "x".repeat(100) },
      [1, 2, 3],
      0,
      false,
      () => 1,
    ];
    for (const answer of answers)
      for (const max of [10, 100, 64 * 1024])
        expect(cappedResponseJson(answer, max)).toBe(JSON.stringify(cappedResponse(answer, max)));
  });
});

describe("calendar dates", () => {
  it("reads real dates and date-times, refuses ones that do not exist; a time without an offset on the given clock", () => {
    expect(zonedInstant("2026-11-01", "UTC")?.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(zonedInstant("2026-11-01", "Africa/Lagos")?.toISOString()).toBe("2026-10-31T23:00:00.000Z");
    expect(zonedInstant("2028-02-29T10:00:00Z", "Africa/Lagos")?.toISOString()).toBe(
      "2028-02-29T10:00:00.000Z",
    );
    for (const bad of ["2026-02-30", "2026-02-29", "2026-13-01", "2026-11-01T24:00:00Z", "2026-11-1", "soon"])
      expect(zonedInstant(bad, "UTC"), bad).toBeUndefined();
  });
});

describe("storable text (PostgreSQL holds no NUL and no half of a surrogate pair)", () => {
  it("replaces NUL and unpaired surrogates with U+FFFD, keeping whole pairs", () => {
    expect(storableText("a\u0000b")).toBe("a\uFFFDb");
    expect(storableText("\ud800x\udc00y\ud83d\ude00z\ud83d")).toBe("\uFFFDx\uFFFDy\ud83d\ude00z\uFFFD");
    expect(storableText("Ọ̀yọ́ ₦ 😀")).toBe("Ọ̀yọ́ ₦ 😀");
  });

  it("makes a parsed value storable deep, keys included, without touching the prototype", () => {
    const value = JSON.parse('{"a":["x\\u0000"],"k\\u0000":{"b":"\\udfff"},"__proto__":{"p":"\\u0000"}}');
    const clean = storable(value) as Record<string, unknown>;
    expect(JSON.stringify(clean)).toBe(
      '{"a":["x\uFFFD"],"__proto__":{"p":"\uFFFD"},"k\uFFFD":{"b":"\uFFFD"}}',
    );
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });

  it("finds every escape that may need it in JSON text, and passes plain text", () => {
    for (const text of ['"\\u0000"', '"\\uD800"', '"\\udfff"', '"\\ud83d\\ude00"'])
      expect(mayHoldUnstorable(text)).toBe(true);
    for (const text of ['"\\u00e9"', '"\\u2028"', '{"a":1}', '"a\u0000"'])
      expect(mayHoldUnstorable(text)).toBe(false);
    // A backslash written before "u0000" is taken for an escape: the slow path, which finds nothing to change.
    expect(mayHoldUnstorable('"\\\\u0000"')).toBe(true);
    expect(storable(JSON.parse('"\\\\u0000"'))).toBe("\\u0000");
  });

  it("parses answers storable on both paths (plain and exact numbers)", () => {
    expect(parseJsonExact('{"m":"a\\u0000","r":"\\ud800"}')).toEqual({ m: "a\uFFFD", r: "\uFFFD" });
    expect(parseJsonExact('{"m":"a\\u0000","n":12345678901234567890}')).toEqual({
      m: "a\uFFFD",
      n: "12345678901234567890",
    });
    expect(parseJsonExact('{"m":"\\ud83d\\ude00"}')).toEqual({ m: "😀" });
  });

  it("cuts never through a character", () => {
    const text = `${"x".repeat(9)}😀yz`;
    expect(cutText(text, 10)).toBe("x".repeat(9));
    expect(cutText(text, 11)).toBe(`${"x".repeat(9)}😀`);
    expect(cutText("short", 10)).toBe("short");
    const capped = capText(`${"x".repeat(1999)}😀 more`);
    expect(capped.startsWith(`${"x".repeat(1999)}… [truncated: `)).toBe(true);
    expect(storableText(capped)).toBe(capped);
    const answer = cappedResponse(`${"x".repeat(9)}😀`, 10) as { head: string };
    expect(answer.head).toBe("x".repeat(9));
  });
});

describe("an answer stored as the text it came as", () => {
  it("writes the provider's own JSON text (its spacing, its key order) when the value is what JSON.parse made", () => {
    const text = '{ "2": "second", "1": "first",\n  "amount": "305.00", "note": "caf\\u00e9" }';
    const value = parseJsonExact(text);
    expect(cappedResponseJson(value)).toBe(text);
    expect(JSON.parse(cappedResponseJson(value)!)).toEqual(value);
  });

  it("serialises the value where the text is not its exact JSON, or is over the limit", () => {
    // A number no double holds is kept as text: the value is not what JSON.parse would have made.
    const exact = parseJsonExact('{"reference": 12345678901234567890}');
    expect(cappedResponseJson(exact)).toBe('{"reference":"12345678901234567890"}');
    // A NUL made storable: the value changed.
    expect(cappedResponseJson(parseJsonExact('{"m": "a\\u0000"}'))).toBe('{"m":"a\uFFFD"}');
    // A value built here, not parsed.
    expect(cappedResponseJson({ a: 1 })).toBe('{"a":1}');
    const long = parseJsonExact(`{"pad": "${"x".repeat(100)}"}`);
    expect(JSON.parse(cappedResponseJson(long, 50)!)).toMatchObject({ truncated: true, length: 110 });
  });
});
