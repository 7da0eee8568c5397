import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli, sandboxEnv } from "../helpers/cli.js";

let sandbox: Sandbox;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), "topsync-cli-"));

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
  env = sandboxEnv(sandbox);
});
afterAll(() => sandbox.close());
afterEach(() => sandbox.reset());

function configFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe("read commands against the sandbox", () => {
  it("networks prints an aligned table, --json prints the data", async () => {
    const table = await runCli(["networks"], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+CODE\s+NAME\s+OTHER NAME$/);
    expect(table.stdout).toMatch(/^3\s+3\s+9MOBILE\s+t2$/m);
    const json = await runCli(["--json", "networks"], env);
    expect(JSON.parse(json.stdout).map((n: { name: string }) => n.name)).toEqual([
      "MTN",
      "GLO",
      "9MOBILE",
      "AIRTEL",
    ]);
  });

  it.each(["MTN", "mtn", "1"])("plans finds the network by %s", async (query) => {
    const result = await runCli(["plans", query], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s*102\s+CORPORATE GIFTING\s+1GB\s+305\.00\s+1GB for 30 Days$/m);
  });

  it("plans lists the plans that cannot be bought, with the reason, below the others", async () => {
    sandbox.setOptions({ lies: { prices: { "102": "₦500" } } });
    const result = await runCli(["plans", "MTN"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/^\s*102\s+CORPORATE GIFTING/m);
    expect(result.stdout).toContain("1 listed plans cannot be bought (never picked by a purchase):");
    expect(result.stdout).toMatch(/^\s*102\s+price: expected a decimal amount \(listed as "₦500"\)$/m);
  });

  it("plans for an unknown network is a usage error listing the known ones", async () => {
    const result = await runCli(["plans", "vodafone"], env);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(
      'unknown network "vodafone"; the reseller has: MTN (1), GLO (2), 9MOBILE (3), AIRTEL (4)',
    );
  });

  it("verify shows a transaction with the phone masked", async () => {
    const response = await fetch(`${sandbox.resellerUrl}/public/api/data`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ network_id: "1", plan_id: "102", phone_number: "08031234567" }),
    });
    const { data } = (await response.json()) as { data: { reference: string } };
    await runCli(["verify", data.reference], env); // 404: not yet known
    const result = await runCli(["verify", data.reference], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^status\s+pending$/m);
    expect(result.stdout).toMatch(/^phone\s+0803\*\*\*\*567$/m);
  });

  it("verify masks the phone wherever the provider's answer writes it, unless --show-phone", async () => {
    const response = await fetch(`${sandbox.resellerUrl}/public/api/data`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ network_id: "1", plan_id: "102", phone_number: "08031234567" }),
    });
    const { data } = (await response.json()) as { data: { reference: string } };
    // The sandbox's verify is 404, then pending, then final, read by read; its final answer's `true_response`
    // writes the number whole ("… gifted 1GB to 2348031234567"): shown masked, as the phone_number is.
    let text = await runCli(["verify", data.reference], env);
    for (let read = 0; read < 5 && !/^status\s+success/m.test(text.stdout); read++)
      text = await runCli(["verify", data.reference], env);
    expect(text.stdout).toMatch(/^provider says\s+SUCCESSFUL: .*to 0803\*{4}567\./m);
    const json = await runCli(["--json", "verify", data.reference], env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      reference: data.reference,
      status: "success",
      amount: "305",
      phone_number: "0803****567",
    });
    for (const shown of [text.stdout, json.stdout]) expect(shown).not.toMatch(/8031234567/);
    const unmasked = await runCli(["verify", "--show-phone", data.reference], env);
    expect(unmasked.stdout).toContain("2348031234567");
  });

  it("websites list reads every page", async () => {
    sandbox.seedWebsites(Array.from({ length: 130 }, (_, i) => ({ domain: `w${i}.example.com` })));
    const result = await runCli(["--json", "websites", "list"], env);
    expect(JSON.parse(result.stdout)).toHaveLength(130);
  });
});

describe("failures are one clear paragraph with the right exit code", () => {
  it("a 401 names the setting, exits 1, shows no stack and no key", async () => {
    const result = await runCli(["networks"], { ...env, RESELLER_API_KEY: "rk-wrong-SECRET-4242" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the service refused the API key (HTTP 401); check reseller.api_key");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout + result.stderr).not.toContain("rk-wrong-SECRET-4242");
  });

  it("an analytics 401 too", async () => {
    const result = await runCli(["websites", "list"], { ...env, ANALYTICS_API_KEY: "ak-wrong-SECRET-4242" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("check analytics.api_key");
    expect(result.stdout + result.stderr).not.toContain("ak-wrong-SECRET-4242");
  });

  it("an answer that is not JSON is explained without a stack, and with one at debug level", async () => {
    sandbox.setFaults({ endpoints: { networks: { rateMalformedAfter: 1 } } });
    const plain = await runCli(["networks"], env);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("the answer is not JSON");
    expect(plain.stderr).toContain("answered something topsync cannot read");
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await runCli(["--log-level", "debug", "networks"], env);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it("an unknown command or missing argument is a usage error (64)", async () => {
    expect((await runCli(["frobnicate"], env)).code).toBe(64);
    expect((await runCli(["plans"], env)).code).toBe(64);
  });
});

describe("config errors exit 78 naming file, line, column and path", () => {
  it("a misspelt key", async () => {
    const file = configFile("typo.yaml", "reseller:\n  base_url: http://127.0.0.1:4010\n  api_kee: k\n");
    const result = await runCli(["-c", file, "config", "check"], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toContain(`${file}:3:3: reseller.api_kee: unknown key (did you mean "api_key"?)`);
  });

  it("malformed YAML", async () => {
    const result = await runCli(
      ["-c", configFile("broken.yaml", "reseller:\n  base_url: [\n"), "networks"],
      env,
    );
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/broken\.yaml:\d+:\d+: /);
  });

  it("a missing environment variable", async () => {
    const file = configFile(
      "env.yaml",
      "reseller:\n  base_url: http://x.test\n  api_key: $" +
        "{NOPE_KEY}\nanalytics: {base_url: 'http://y.test', api_key: k}\n",
    );
    const result = await runCli(["-c", file, "config", "check"], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toContain("environment variable NOPE_KEY is not set");
  });

  it("a bad duration and a bad amount", async () => {
    const file = configFile(
      "values.yaml",
      "reseller: {base_url: 'http://x.test', api_key: k, timeout: 10}\nanalytics: {base_url: 'http://y.test', api_key: k}\nbudget: {daily_limit: '12.345'}\n",
    );
    const result = await runCli(["-c", file, "config", "check"], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/values\.yaml:1:\d+: reseller\.timeout: /);
    expect(result.stderr).toMatch(
      /values\.yaml:3:\d+: budget\.daily_limit: expected a decimal amount like "350.00", got "12.345"/,
    );
  });

  it("the committed config is valid with no environment, and its schema is JSON Schema", async () => {
    const check = await runCli(["config", "check"]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("valid — 2 purchase jobs, 3 websites");
    const schema = JSON.parse((await runCli(["config", "schema"])).stdout);
    // a string, or a ${VAR} placeholder (which config check replaces before checking)
    expect(
      schema.properties.reseller.properties.api_key.anyOf.map((form: { type: string }) => form.type),
    ).toEqual(["string", "string"]);
    expect(schema.properties.reseller.properties.api_key.anyOf[1].pattern).toContain("\\$\\{");
    expect(schema.additionalProperties).toBe(false);
  });
});
