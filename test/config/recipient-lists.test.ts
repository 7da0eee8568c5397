// Long inline recipient lists skip the schema's walk, phone by phone (src/config/load.ts, shortenRecipientLists):
// what the schema then gives back must be what it gives for the whole list — the same config, or the same issues.
import { describe, expect, it } from "vitest";
import { shortenRecipientLists } from "../../src/config/load.js";
import { configErrorMap } from "../../src/config/messages.js";
import { configSchema, MAX_INLINE_RECIPIENTS } from "../../src/config/schema.js";
import { createPrng } from "../../src/sandbox/prng.js";

function config(...recipientLists: unknown[][]): Record<string, unknown> {
  return {
    reseller: { base_url: "http://127.0.0.1:4010", api_key: "sk-test-reseller-0042" },
    analytics: { base_url: "http://127.0.0.1:4020", api_key: "sk-test-analytics-0042" },
    purchases: recipientLists.map((recipients, index) => ({
      name: `job-${index}`,
      plan: { network: "MTN", plan_id: "101" },
      max_price: "200.00",
      recipients,
    })),
  };
}

/** The schema's answer for the value whole, and for it shortened then restored; and whether it was shortened. */
function bothWays(value: unknown) {
  const options = { error: configErrorMap, jitless: true };
  const whole = configSchema.safeParse(value, options);
  const lists = shortenRecipientLists(value);
  const short = configSchema.safeParse(lists.value, options);
  return {
    whole: whole.success ? { config: whole.data } : { issues: whole.error.issues },
    short: short.success ? { config: lists.restore(short.data) } : { issues: short.error.issues },
    shortened: lists.value !== value,
  };
}

function randomRecipient(random: () => number, index: number, mixed: boolean): unknown {
  const digits = `0803${String(1_000_000 + index).padStart(7, "0")}`;
  const forms: Array<() => unknown> = [
    () => digits,
    () => `  ${digits} `,
    () => `+234${digits.slice(1)}`,
    () => `${digits.slice(0, 4)} ${digits.slice(4, 7)}-${digits.slice(7)}`,
    () => `(${digits.slice(0, 4)}) ${digits.slice(4)}`,
    () => "0803", // too short
    () => "",
    () => `${digits}${digits}`, // too long
    () => "phone",
    () => Number(digits),
    () => null,
    () => ({ phone: digits, ported: true }),
    () => ({ phone: digits }),
    () => ({ phone: digits, extra: 1 }),
  ];
  // Plain forms only, or now and then anything.
  const pick = !mixed || random() < 0.95 ? Math.floor(random() * 5) : Math.floor(random() * forms.length);
  return (forms[pick] as () => unknown)();
}

describe("long inline recipient lists", () => {
  it("give the schema's own config or issues, shortened or not, on 60 random configs", () => {
    let shortened = 0;
    let invalid = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const random = createPrng(seed);
      const lists = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const mixed = random() < 0.4;
        return Array.from({ length: 40 + Math.floor(random() * 300) }, (_, i) =>
          randomRecipient(random, i, mixed),
        );
      });
      const { whole, short, shortened: was } = bothWays(config(...lists));
      expect(short, `seed ${seed}`).toEqual(whole);
      if (was) shortened++;
      if ("issues" in whole) invalid++;
    }
    // The comparison means something only if both kinds were met.
    expect(shortened).toBeGreaterThan(20);
    expect(invalid).toBeGreaterThan(10);
  });

  it("reads a 10,000-phone list to the schema's recipients, and leaves a list with one bad phone to the schema", () => {
    const phones = Array.from({ length: 10_000 }, (_, i) => `0803${String(1_000_000 + i)}`);
    const good = bothWays(config(phones));
    expect(good.shortened).toBe(true);
    expect(good.short).toEqual(good.whole);
    const recipients = (good.short as { config: { purchases: Array<{ recipients: unknown[] }> } }).config
      .purchases[0]?.recipients;
    expect(recipients).toHaveLength(10_000);
    expect(recipients?.[9_999]).toEqual({ phone: "08031009999", ported: false });

    const bad = [...phones];
    bad[4_321] = "12";
    const refused = bothWays(config(bad));
    expect(refused.shortened).toBe(false);
    expect(refused.short).toEqual(refused.whole);
    expect((refused.whole as { issues: Array<{ path: unknown[] }> }).issues[0]?.path).toEqual([
      "purchases",
      0,
      "recipients",
      4_321,
    ]);
  });

  it("leaves a list longer than the schema allows to the schema, which says so", () => {
    const phones = Array.from(
      { length: MAX_INLINE_RECIPIENTS + 1 },
      (_, i) => `0803${String(1_000_000 + i)}`,
    );
    const { whole, short, shortened } = bothWays(config(phones));
    expect(shortened).toBe(false);
    expect(short).toEqual(whole);
    expect(JSON.stringify(whole)).toContain("recipients_file");
  });
});
