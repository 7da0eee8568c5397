import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/index.js";

type Schema = {
  $schema?: string;
  title?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  anyOf?: Schema[];
  pattern?: string;
  description?: string;
  default?: unknown;
};

describe("configJsonSchema", () => {
  const schema = configJsonSchema() as Schema;

  it("describes the whole file as a closed object", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.title).toBe("topsync config");
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties ?? {})).toEqual(
      expect.arrayContaining(["reseller", "analytics", "purchases", "websites", "budget", "server"]),
    );
    expect(schema.required).toEqual(["reseller", "analytics"]);
  });

  it("shows what durations and money look like, and the input defaults", () => {
    const reseller = schema.properties!.reseller!;
    expect(reseller.additionalProperties).toBe(false);
    expect(reseller.required).toEqual(["base_url", "api_key"]);
    const delay = reseller.properties!.retry!.properties!.base_delay!;
    expect(delay.default).toBe("200ms");
    expect(new RegExp(delay.pattern!).test("1h30m")).toBe(true);
    expect(delay.description).toMatch(/duration/);
    const limit = schema.properties!.budget!.properties!.daily_limit!;
    const text = limit.anyOf!.find((form) => form.type === "string")!;
    expect(new RegExp(text.pattern!).test("350.00")).toBe(true);
    expect(new RegExp(text.pattern!).test("12.345")).toBe(false);
  });

  it("closes nested objects too", () => {
    const job = schema.properties!.purchases!.items!;
    expect(job.additionalProperties).toBe(false);
    expect(job.required).toEqual(["name", "plan"]);
    expect(schema.properties!.websites!.properties!.items!.items!.additionalProperties).toBe(false);
  });

  it("is plain JSON", () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
