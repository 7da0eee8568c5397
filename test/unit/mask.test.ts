import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.js";
import { maskPhone, maskPhonesDeep, maskPhonesIn } from "../../src/log/mask.js";

describe("phone masking", () => {
  it("masks numbers deep in a record and leaves its dates and other values as they are", () => {
    const at = new Date("2026-11-22T10:00:00Z");
    expect(
      maskPhonesDeep({ id: 7, at, key: "buy:08031234567", answer: { msg: ["to 2348031234567"], ok: true } }),
    ).toEqual({ id: 7, at, key: "buy:0803****567", answer: { msg: ["to 0803****567"], ok: true } });
  });

  it("masks the national form as the reseller does", () => {
    expect(maskPhone("08031234567")).toBe("0803****567");
  });

  it("masks numbers as people and providers write them", () => {
    for (const written of [
      "+234 803 123 4567",
      "+234 (0) 803 123 4567",
      "0803.123.4567",
      "0803-123-4567",
      "(0803) 123 4567",
      "+23408031234567",
      "234-803-123-4567",
      // The ten digits alone, no-break and narrow spaces, slashes, dashes a word processor makes, and digits
      // pasted from a full-width keyboard or written in Arabic-Indic: each went out whole before.
      "803 123 4567",
      "8031234567",
      "0803\u00a0123\u00a04567",
      "+234\u202f803\u202f123\u202f4567",
      "0803/123/4567",
      "0803\u2013123\u20134567",
      "0803\u2011123\u20114567",
      "\uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17",
      "\uff0b\uff12\uff13\uff14 \uff18\uff10\uff13 \uff11\uff12\uff13 \uff14\uff15\uff16\uff17",
      "\u0660\u0668\u0660\u0663\u0661\u0662\u0663\u0664\u0665\u0666\u0667",
      "\u06f0\u06f8\u06f0\u06f3\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7",
    ])
      expect(maskPhonesIn(`sent to ${written}, ok`), written).toBe("sent to 0803****567, ok");
  });

  it("leaves dates, amounts, references and longer digit runs alone", () => {
    const text =
      "2026-08-01T08:00:00Z NGN 1,070.00 ref 5PD8L3MX120VWB3WY516 id 180312345678 0803123456 803123456 " +
      "ref 58336482966892915817 at 1764247012 \uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16";
    expect(maskPhonesIn(text)).toBe(text);
  });

  it("masks other countries' numbers in their international form, and leaves offsets, amounts and longer runs alone", () => {
    for (const [written, masked] of [
      ["+447911123456", "+44*******456"],
      ["+44 7911 123456", "+44*******456"],
      ["+1 (415) 555-2671", "+14******671"],
      ["+33 6 12 34 56 78", "+33******678"],
      ["\uff0b\uff14\uff14 7911 123456", "+44*******456"],
    ] as const)
      expect(maskPhonesIn(`refused ${written}: not Nigerian`), written).toBe(
        `refused ${masked}: not Nigerian`,
      );
    const text =
      "at 2026-08-01T08:00:00+01:00, +5 retries, +1234567 is seven digits, +1234567890123456 sixteen, a+44791112345";
    expect(maskPhonesIn(text)).toBe(text);
  });

  it("masks every number in running text, in any form", () => {
    expect(maskPhonesIn("bought for +2348031234567 and 08051234567, ref 123456789012345")).toBe(
      "bought for 0803****567 and 0805****567, ref 123456789012345",
    );
  });
});

describe("logger", () => {
  it("writes JSON lines with phones masked and secrets redacted", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: "info", pretty: false, destination });
    logger.info(
      { phone: "08031234567", api_key: "sk-secret-value", nested: { password: "hunter22" } },
      "buying for 08031234567",
    );
    const record = JSON.parse(lines[0]!);
    expect(record.msg).toBe("buying for 0803****567");
    expect(record.phone).toBe("0803****567");
    expect(record.api_key).toBe("[redacted]");
    expect(record.nested.password).toBe("[redacted]");
    expect(lines.join("")).not.toContain("sk-secret-value");
    expect(lines.join("")).not.toContain("hunter22");
  });
});
