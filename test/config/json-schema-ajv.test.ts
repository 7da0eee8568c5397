// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these configs hold literal ${VAR} references
// The JSON Schema an editor validates config.yaml with, run through Ajv (draft 2020-12, strict mode), agrees
// with `topsync config check` on every row the schema can express; the rows it cannot are listed too.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ConfigError, configJsonSchema, parseConfig } from "../../src/config/index.js";

// multipleOfPrecision: "two decimal places" is `multipleOf: 0.01`, which Ajv otherwise divides in binary
// floating point (0.07 / 0.01 = 7.000000000000001); editors' validators compare decimal multiples exactly.
const ajv = new Ajv2020({ strict: true, allErrors: true, multipleOfPrecision: 9 });
const validate = ajv.compile(configJsonSchema());

const HEAD = [
  "reseller: { base_url: http://127.0.0.1:4010, api_key: k }",
  "analytics: { base_url: http://127.0.0.1:4020, api_key: k }",
];
const BLOCK_HEAD = [
  "reseller:",
  "  base_url: ${RESELLER_BASE_URL:-http://127.0.0.1:4010}",
  "  api_key: ${RESELLER_API_KEY:-k}",
  "  concurrency: ${RESELLER_CONCURRENCY:-8}",
  "  rate_limit: ${RESELLER_RATE:-20}",
  ...HEAD.slice(1),
  "",
].join("\n");
const doc = (...lines: string[]) => `${[...HEAD, ...lines].join("\n")}\n`;
const job = (...lines: string[]) =>
  doc(
    "purchases:",
    "  - name: j",
    '    plan: { network: MTN, plan_id: "101" }',
    ...lines.map((line) => `    ${line}`),
  );
const withRecipients = (...lines: string[]) => job('recipients: ["08031234567"]', ...lines);
const sites = (...lines: string[]) => doc("websites:", ...lines.map((line) => `  ${line}`));

function configCheck(text: string): boolean {
  try {
    parseConfig(text, "config.yaml", {});
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

function editor(text: string): boolean {
  return validate(parse(text)) === true;
}

const committed = readFileSync(path.resolve(import.meta.dirname, "../../config.yaml"), "utf8");

// [what, config, valid]
const EXPRESSIBLE: Array<[string, string, boolean]> = [
  ["the smallest config", doc(), true],
  ["the committed config.yaml", committed, true],
  [
    "a placeholder in an integer",
    doc("intake:", "  batch_size: ${BATCH:-500}", "  poll_interval: ${POLL:-30s}"),
    true,
  ],
  ["a placeholder in money", doc("budget:", "  daily_limit: ${DAILY_LIMIT:-50000.00}"), true],
  [
    "a placeholder in a boolean and a duration",
    withRecipients("enabled: ${JOB_ENABLED:-true}", "catch_up: ${CATCH_UP:-2h}"),
    true,
  ],
  ["placeholders in a URL, a count and a rate", BLOCK_HEAD, true],
  ["unquoted money with two decimals", withRecipients("max_price: 350.10"), true],
  ["unquoted money of 7 kobo", withRecipients("max_price: 0.07"), true],
  ["quoted money", doc('budget: { daily_limit: "50000.00", per_run_limit: "20000" }'), true],
  ["https base_url", doc().replace("http://127.0.0.1:4010", "https://reseller.example.com/api"), true],
  ["a six-field schedule", withRecipients('schedule: "30 0 8 * * *"'), true],
  ["an at time", withRecipients('at: "2030-01-01T08:00:00+01:00"'), true],
  [
    "a plan id without its network",
    withRecipients().replace('network: MTN, plan_id: "101"', 'plan_id: "208"'),
    true,
  ],
  [
    "a selector without a network",
    withRecipients().replace('network: MTN, plan_id: "101"', "size: 1GB"),
    false,
  ],
  ["a recipients_file instead of recipients", job("recipients_file: ./r.csv"), true],
  [
    "privacy password with its password",
    sites("items:", "  - { domain: a.example.com, privacy: password, password: pw }"),
    true,
  ],
  [
    "privacy 2 with a default password",
    sites("defaults: { password: pw }", "items:", "  - { domain: a.example.com, privacy: 2 }"),
    true,
  ],
  [
    "default privacy password and default password",
    sites("defaults: { privacy: password, password: pw }", "items:", "  - { domain: a.example.com }"),
    true,
  ],
  [
    "an item password under default privacy password",
    sites("defaults: { privacy: password }", "items:", "  - { domain: a.example.com, password: pw }"),
    true,
  ],
  [
    "an item that overrides default privacy password",
    sites("defaults: { privacy: password }", "items:", "  - { domain: a.example.com, privacy: public }"),
    true,
  ],

  [
    "privacy password without a password",
    sites("items:", "  - { domain: a.example.com, privacy: password }"),
    false,
  ],
  [
    "default privacy password, no password anywhere",
    sites("defaults: { privacy: password }", "items:", "  - { domain: a.example.com }"),
    false,
  ],
  [
    "a password with privacy public",
    sites("items:", "  - { domain: a.example.com, privacy: public, password: pw }"),
    false,
  ],
  [
    "a password with no privacy anywhere (private)",
    sites("items:", "  - { domain: a.example.com, password: pw }"),
    false,
  ],
  [
    "a default password with default privacy private",
    sites("defaults: { privacy: private, password: pw }", "items: []"),
    false,
  ],
  ["both schedule and at", withRecipients('schedule: "0 8 * * *"', 'at: "2030-01-01T08:00:00Z"'), false],
  ["a negative daily_limit", doc("budget: { daily_limit: -5 }"), false],
  ["a per_run_limit of 1e21", doc("budget: { per_run_limit: 1e21 }"), false],
  ["unquoted money with three decimals", withRecipients("max_price: 350.555"), false],
  ["quoted money with three decimals", withRecipients('max_price: "350.555"'), false],
  ["an ftp base_url", doc().replace("http://127.0.0.1:4010", "ftp://example.com"), false],
  ["a concurrency of 0", doc().replace("api_key: k }", "api_key: k, concurrency: 0 }"), false],
  ["a job without recipients", job('schedule: "0 8 * * *"'), false],
  ["an empty recipients list", job("recipients: []"), false],
  ["an unknown key", doc("budgett: {}"), false],
  ["a job name with parentheses", withRecipients().replace("name: j", 'name: "(websites)"'), false],
];

// What a JSON Schema cannot know: config check refuses these, the editor accepts them.
const NOT_EXPRESSIBLE: Array<[string, string]> = [
  ["a schedule that never fires", withRecipients('schedule: "0 0 1 * 5#2"')],
  ["an unknown time zone", doc("timezone: Mars/Olympus")],
  [
    "a job name declared twice",
    withRecipients().replace(
      "purchases:",
      'purchases:\n  - { name: j, plan: { network: MTN, plan_id: "1" }, recipients: ["08031234567"] }',
    ),
  ],
  ["a placeholder whose variable is not set", doc("budget:", "  daily_limit: ${NO_SUCH_VARIABLE}")],
  ["a placeholder whose default is not a number", doc("intake:", "  batch_size: ${BATCH:-many}")],
];

describe("the JSON Schema under Ajv agrees with config check", () => {
  it("compiles in strict mode (draft 2020-12)", () => {
    expect(configJsonSchema()).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema" });
  });

  for (const [what, text, valid] of EXPRESSIBLE) {
    it(`${valid ? "accepts" : "refuses"} ${what}`, () => {
      expect(configCheck(text), "config check").toBe(valid);
      expect(editor(text), `editor: ${ajv.errorsText(validate.errors)}`).toBe(valid);
    });
  }

  for (const [what, text] of NOT_EXPRESSIBLE) {
    it(`leaves to config check: ${what}`, () => {
      expect(configCheck(text), "config check").toBe(false);
      expect(editor(text), ajv.errorsText(validate.errors)).toBe(true);
    });
  }

  it("says in its descriptions what it leaves to config check", () => {
    const text = JSON.stringify(configJsonSchema());
    expect(text).toContain("never fire");
    expect(text).toContain("time zones, duplicate job names");
  });
});
