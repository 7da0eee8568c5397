// Long inline lists are read by src/config/long-lists.ts instead of the YAML parser. The loader must give exactly
// what the parser gives — the same values, the same issues at the same lines and columns — whatever the list
// looks like and wherever list-like lines appear. The reference is the same text with the fast path made
// impossible (a comment that spells a NUL).
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/index.js";
import { collapseLongLists, MIN_RUN } from "../../src/config/long-lists.js";
import { createPrng } from "../../src/sandbox/prng.js";
import { yaml } from "./helpers.js";

function outcome(text: string): unknown {
  try {
    return { config: parseConfig(text, "config.yaml", {}).config };
  } catch (error) {
    if (error instanceof ConfigError) return { issues: error.issues };
    throw error;
  }
}

/** The loader's answer with the fast path and without it, which must be the same. */
function bothWays(text: string): { fast: unknown; reference: unknown; collapsed: boolean } {
  return {
    fast: outcome(text),
    reference: outcome(`${text}\n# \\0 (no fast path)\n`),
    collapsed: collapseLongLists(text) !== undefined,
  };
}

function job(recipientLines: string[], name = "campaign"): string[] {
  return [
    `  - name: ${name}`,
    '    plan: { network: MTN, plan_id: "101" }',
    '    max_price: "200.00"',
    "    recipients:",
    ...recipientLines,
  ];
}

function randomItem(random: () => number, index: number, indent: string): string {
  const digits = `0803${String(1_000_000 + index).padStart(7, "0")}`;
  const forms = [
    () => `${indent}- "${digits}"`,
    () => `${indent}- '${digits}'`,
    () => `${indent}- ${digits}`,
    () => `${indent}- +234${digits.slice(1)}`,
    () => `${indent}- ${digits.slice(0, 4)} ${digits.slice(4, 7)} ${digits.slice(7)}`,
    () => `${indent}- (${digits.slice(0, 4)}) ${digits.slice(4, 7)}-${digits.slice(7)}`,
    () => `${indent}- "${digits}"   # a comment`,
    () => `${indent}- ${digits} # plain, then a comment`,
    () => `${indent}- ${digits}#not-a-comment`,
    () => `${indent}- "${digits}"  `,
    () => `${indent}- "0803"`, // too short: an issue at this item
    () => `${indent}- { phone: "${digits}", ported: true }`,
    () => `${indent}- phone: "${digits}"`,
    () => "",
    () => `${indent}# a comment line`,
    () => `${indent}- ""`,
  ];
  // Mostly the plain forms, so long runs form; now and then anything.
  const pick = random() < 0.9 ? Math.floor(random() * 4) : Math.floor(random() * forms.length);
  return (forms[pick] as () => string)();
}

describe("long inline lists", () => {
  it("read fast give what the parser gives, values and issues, on 40 random lists", () => {
    let collapsedCount = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const random = createPrng(seed);
      const indent = random() < 0.5 ? "      " : "    ";
      const lines = Array.from({ length: 200 + Math.floor(random() * 800) }, (_, i) =>
        randomItem(random, i, indent),
      );
      const text = yaml("purchases:", ...job(lines), 'timezone: "Africa/Lagos"');
      const { fast, reference, collapsed } = bothWays(text);
      expect(fast, `seed ${seed}`).toEqual(reference);
      if (collapsed) collapsedCount++;
    }
    // The comparison means something only if the fast path was taken.
    expect(collapsedCount).toBeGreaterThan(30);
  });

  it("a 10,000-item list is read fast and its issues are at their own lines and columns", () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `      - "0803${String(1_000_000 + i)}"`);
    lines[4_321] = '      - "12"';
    lines[9_999] = "      - 1";
    const text = yaml("purchases:", ...job(lines));
    expect(collapseLongLists(text)?.runs.size).toBe(1);
    const { fast, reference } = bothWays(text);
    expect(fast).toEqual(reference);
    const issues = (fast as { issues: Array<{ line: number; column: number; path: string }> }).issues;
    expect(issues.map((i) => [i.line, i.column])).toEqual([
      [6 + 1 + 4 + 4_321 + 1, 9],
      [6 + 1 + 4 + 9_999 + 1, 9],
    ]);
    expect(issues[0]?.path).toContain("recipients[4321]");
  });

  it("list-like lines inside a block scalar stay text", () => {
    const inside = Array.from(
      { length: MIN_RUN * 2 },
      (_, i) => `          - "0803${String(1_000_000 + i)}"`,
    );
    const text = yaml(
      "websites:",
      "  items:",
      "    - domain: example.com",
      "      privacy: password",
      "      password: |",
      ...inside,
    );
    const { fast, reference, collapsed } = bothWays(text);
    expect(collapsed).toBe(true);
    expect(fast).toEqual(reference);
    // The password is read as text (too long a text for a password, which is the issue both ways).
    expect(JSON.stringify(fast)).toContain("websites.items[0].password");
  });

  it("a plain item that goes on over the next, deeper line is one value, as YAML reads it", () => {
    const lines = Array.from({ length: MIN_RUN * 2 }, (_, i) => `      - 0803${String(1_000_000 + i)}`);
    lines.push("        4567");
    const { fast, reference, collapsed } = bothWays(yaml("purchases:", ...job(lines)));
    expect(collapsed).toBe(true);
    expect(fast).toEqual(reference);
  });

  it("anchors and aliases of a long list, and an alias bomb made of one, as without the fast path", () => {
    const lines = Array.from({ length: 1_000 }, (_, i) => `      - "0803${String(1_000_000 + i)}"`);
    const head = (name: string) => [
      `  - name: ${name}`,
      '    plan: { network: MTN, plan_id: "101" }',
      '    max_price: "200.00"',
    ];
    const anchored = [...head("everyone"), "    recipients: &everyone", ...lines];
    const copy = (name: string) => [...head(name), "    recipients: *everyone"];

    const one = bothWays(yaml("purchases:", ...anchored, ...copy("again")));
    expect(one.collapsed).toBe(true);
    expect(one.fast).toEqual(one.reference);
    const purchases = (one.fast as { config: { purchases: Array<{ recipients: unknown[] }> } }).config
      .purchases;
    expect(purchases[1]?.recipients).toHaveLength(1_000);

    // Eleven aliases of 1,000 items: more than the 10,000 values aliases may expand to.
    const copies = Array.from({ length: 11 }, (_, n) => copy(`copy-${n}`)).flat();
    const two = bothWays(yaml("purchases:", ...anchored, ...copies));
    expect(two.collapsed).toBe(true);
    expect(two.fast).toEqual(two.reference);
    expect(JSON.stringify(two.fast)).toContain("aliases expand to more than");
  });

  it("a list in a flow sequence over many lines, and a file with CRLF line ends, as without the fast path", () => {
    const items = Array.from({ length: MIN_RUN * 2 }, (_, i) => `      - "0803${String(1_000_000 + i)}"`);
    const flow = yaml("purchases:", ...job(["      [", ...items, "      ]"]));
    const a = bothWays(flow);
    expect(a.fast).toEqual(a.reference);
    const crlf = yaml("purchases:", ...job(items)).replaceAll("\n", "\r\n");
    const b = bothWays(crlf);
    expect(b.fast).toEqual(b.reference);
  });
});

/** A website item of many possible forms, valid or not, as lines at `indent` (keys two columns in). */
function randomWebsite(random: () => number, index: number, indent: string): string[] {
  const pick = <T>(choices: T[]): T => choices[Math.floor(random() * choices.length)] as T;
  const keys = `${indent}  `;
  const domain = pick([
    `site-${index}.example.com`,
    `"site-${index}.example.com"`,
    `'site-${index}.example.com'`,
    `https://www.Site-${index}.example.com/`, // normalised: a warning
    `site-${index}.example.com # a comment`,
  ]);
  const fields: string[][] = [];
  const password = random() < 0.15;
  if (!password && random() < 0.5)
    fields.push([`privacy: ${pick(["public", "private", "0", "1", '"public"', "'private'"])}`]);
  if (random() < 0.3) fields.push([`email: ${pick(["true", "false", "True", "1", "0"])}`]);
  if (random() < 0.3) fields.push([`exclude_bots: ${pick(["true", "FALSE", "0"])}`]);
  if (random() < 0.4)
    fields.push(
      pick([
        ["exclude_params: [utm_source, utm_medium]"],
        ['exclude_params: [ "utm_source", ref ]'],
        ["exclude_params: []"],
        ["exclude_params:", "  - utm_source", "  - utm_medium"],
        ["exclude_params:", "- gclid"],
      ]),
    );
  if (random() < 0.3)
    fields.push(pick([["exclude_ips: [10.0.0.1, 203.0.113.7]"], ["exclude_ips:", "  - 10.0.0.1"]]));
  if (password) fields.push(["privacy: password", `password: pw-${index}-secret`]);
  // Now and then anything: what the fast path must leave to the parser, or what the schema refuses.
  if (random() < 0.02)
    fields.push(
      pick([
        ["privacy: banana"],
        ["privacy: null"],
        ["privacy:"],
        ["email: ~"],
        ["email: yes"],
        ["unknown_key: 1"],
        ["privacy: $" + "{PRIVACY}"], // an interpolation, written so
        ["extra:", "  nested: map"],
        ["exclude_ips: [a b]"],
        ["exclude_params: [utm_source,]"],
        ["\tprivacy: public"],
        ["privacy: public   "],
        ["email: true #c"],
        ["exclude_params:", "", "  - utm_source"],
        ["password: 'it''s'"],
        [`password: "a\\tb"`],
        ["privacy: &p public"],
        ["privacy: !!str public"],
        ["domain: again.example.com"],
      ]),
    );
  const lines = [`${indent}- domain: ${domain}`];
  for (const field of fields) lines.push(...field.map((line) => (line === "" ? "" : `${keys}${line}`)));
  if (random() < 0.05) lines.push("");
  if (random() < 0.05) lines.push(`${keys}# a comment line`);
  if (random() < 0.004) return [`${indent}- { domain: flow-${index}.example.com }`];
  if (random() < 0.004) return [`${indent}- domain: site-${index - 1}.example.com`]; // declared twice
  return lines;
}

/** The loader's answer with its warnings, which must be the same with the fast path and without. */
function withWarnings(text: string, env: NodeJS.ProcessEnv = {}): unknown {
  try {
    const loaded = parseConfig(text, "config.yaml", env);
    return {
      config: loaded.config,
      warnings: loaded.warnings,
      at: loaded.positionOf(["websites", "items", 3]),
    };
  } catch (error) {
    if (error instanceof ConfigError) return { issues: error.issues };
    throw error;
  }
}

describe("long inline lists of websites", () => {
  it("read fast give what the parser gives, values, warnings and issues, on 60 random lists", () => {
    let collapsedCount = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const random = createPrng(seed);
      const indent = random() < 0.5 ? "    " : "  ";
      const count = 100 + Math.floor(random() * 300);
      const items = Array.from({ length: count }, (_, i) => randomWebsite(random, i, indent)).flat();
      const text = yaml(
        "websites:",
        ...(indent === "  " ? ["  items:", ...items.map((l) => (l ? `  ${l}` : l))] : ["  items:", ...items]),
      );
      const env = { PRIVACY: "private" };
      const fast = withWarnings(text, env);
      const reference = withWarnings(`${text}\n# \\0 (no fast path)\n`, env);
      expect(fast, `seed ${seed}`).toEqual(reference);
      if (collapseLongLists(text)?.runs.size) collapsedCount++;
    }
    expect(collapsedCount).toBeGreaterThan(40);
  });

  it("every line the patterns do not take for certain is left to the parser, and read as it reads it", () => {
    const odd = [
      ["privacy: banana"],
      ["privacy: null"],
      ["privacy:"],
      ["email: ~"],
      ["email: yes"],
      ["unknown_key: 1"],
      ["privacy: $" + "{PRIVACY}"], // an interpolation, written so
      ["extra:", "  nested: map"],
      ["exclude_ips: [a b]"],
      ["exclude_params: [utm_source,]"],
      ["exclude_params: [a,", "  b]"],
      ["\tprivacy: public"],
      ["exclude_params:", "", "  - utm_source"],
      ["exclude_params:", "  - ~"],
      ["password: 'it''s'"],
      ['password: "a\\tb"'],
      ["privacy: &p public"],
      ["privacy: !!str public"],
      ["domain: again.example.com"],
      ["true: 1"],
      ["privacy: public", "  continued"],
      ["privacy: public:"],
      ["privacy: a#b"],
    ];
    for (const lines of odd) {
      const items = Array.from({ length: 150 }, (_, i) => [
        `    - domain: site-${i}.example.com`,
        ...(i === 70 ? lines.map((line) => `      ${line}`) : ["      privacy: public"]),
      ]);
      const text = yaml("websites:", "  items:", ...items.flat(), "timezone: UTC");
      const env = { PRIVACY: "private" };
      expect(collapseLongLists(text)?.runs.size, lines.join(" / ")).toBeGreaterThan(0);
      expect(withWarnings(text, env), lines.join(" / ")).toEqual(
        withWarnings(`${text}\n# \\0 (no fast path)\n`, env),
      );
    }
  });

  it("10,000 websites as `yaml` writes them are one run, their issues at their own lines and columns", () => {
    const items = Array.from({ length: 10_000 }, (_, i) => [
      `    - domain: site-${String(i).padStart(5, "0")}.example.com`,
      "      privacy: public",
      "      exclude_params:",
      "        - utm_source",
      "        - utm_medium",
    ]);
    items[4_321]![1] = "      privacy: banana";
    items[9_000]![3] = "        - 42";
    const text = yaml("websites:", "  items:", ...items.flat());
    expect(collapseLongLists(text)?.runs.size).toBe(1);
    const fast = withWarnings(text);
    expect(fast).toEqual(withWarnings(`${text}\n# \\0 (no fast path)\n`));
    const issues = (fast as { issues: Array<{ line: number; column: number; path: string }> }).issues;
    expect(issues.map((i) => [i.path, i.line, i.column])).toEqual([
      ['websites.items[4321].privacy (website "site-04321.example.com")', 6 + 2 + 4_321 * 5 + 2, 16],
    ]);
  });
});
