// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about literal ${VAR} references
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "../../src/config/index.js";
import { issues, load, yaml } from "./helpers.js";

describe("a valid config", () => {
  it("fills every default and keeps the values written", () => {
    const { config, warnings, file } = load(yaml());
    expect(file).toBe(path.resolve("config.yaml"));
    expect(warnings).toEqual([]);
    expect(config.reseller).toEqual({
      base_url: "http://127.0.0.1:4010",
      api_key: "sk-test-reseller-0042",
      timeout: { connect: 5000, headers: 15000, body: 15000, total: 60000 },
      concurrency: 8,
      rate_limit: 20,
      retry: { max_attempts: 5, base_delay: 200, max_delay: 30000 },
      max_body: 1024 * 1024,
    });
    expect(config.analytics.concurrency).toBe(4);
    // 6 at once, then 0.9 a second: at most 60 in any minute, the real service's throttle:60,1
    expect([config.analytics.rate_limit, config.analytics.burst]).toEqual([0.9, 6]);
    expect(config.database).toEqual({ url: "", pglite_dir: "./.topsync/pglite" });
    expect(config.timezone).toBe("Africa/Lagos");
    expect(config.budget.daily_limit).toBeUndefined();
    expect(config.budget.per_run_limit).toBeUndefined();
    expect(config.budget.min_wallet_balance.toFixed(2)).toBe("0.00");
    expect(config.verification).toEqual({
      initial_delay: 2000,
      timeout: 600_000,
      max_interval: 30_000,
      horizon: 72 * 3_600_000,
      learn_settle: true,
      notification_wait: 30_000,
    });
    expect(config.purchases).toEqual([]);
    expect(config.intake).toEqual({ enabled: true, poll_interval: 30_000, batch_size: 500 });
    expect(config.websites).toEqual({ mode: "apply", prune: false, max_deletes: 5, defaults: {}, items: [] });
    expect(config.server).toEqual({
      host: "0.0.0.0",
      port: 9464,
      shutdown_grace: 30_000,
      max_connections: 512,
      max_connections_per_source: 128,
      headers_timeout: 10_000,
    });
    expect(config.webhooks).toMatchObject({ enabled: false, body_timeout: 10_000, max_per_source: 64 });
    expect(config.log).toEqual({ level: "info" });
  });

  it("round-trips a full config with exact money, plans, recipients and websites", () => {
    const { config } = parseConfig(
      yaml(
        "  timeout: 3s",
        "budget:",
        '  daily_limit: "350.10"',
        "  per_run_limit: 350.10",
        "  min_wallet_balance: 1000",
        "purchases:",
        "  - name: staff-monthly",
        '    schedule: "0 8 1 * *"',
        "    timezone: africa/lagos",
        "    plan: { network: MTN, size: 1.5GB, type: CORPORATE GIFTING, name_contains: 30 Days }",
        "    max_price: 350.10",
        "    recipients: [08031234567, +2348051234567, {phone: '08051234567', ported: true}]",
        "    recipients_file: ./lists/staff.csv",
        "  - name: promo.1",
        "    at: 2026-12-01T08:00:00+01:00",
        "    plan: { network: MTN, plan_id: 101 }",
        "    recipients: ['08131234567']",
        "    catch_up: 1h",
        "    max_attempts: 3",
        "    enabled: false",
      ),
      "/etc/topsync/config.yaml",
      {},
    );
    expect(config.analytics.timeout).toEqual({ connect: 3000, headers: 3000, body: 3000, total: 60000 });
    expect(config.budget.daily_limit?.toString()).toBe("350.1");
    expect(config.budget.daily_limit?.toFixed(2)).toBe("350.10");
    expect(config.budget.per_run_limit?.eq(config.budget.daily_limit!)).toBe(true);
    expect(config.budget.min_wallet_balance.toFixed(2)).toBe("1000.00");
    const [staff, promo] = config.purchases;
    expect(staff).toEqual({
      name: "staff-monthly",
      schedule: "0 8 1 * *",
      timezone: "Africa/Lagos",
      plan: {
        kind: "selector",
        network: "MTN",
        size: "1.5GB",
        size_mb: 1536,
        type: "CORPORATE GIFTING",
        name_contains: "30 Days",
      },
      max_price: expect.anything(),
      recipients: [
        { phone: "08031234567", ported: false },
        { phone: "+2348051234567", ported: false },
        { phone: "08051234567", ported: true },
      ],
      recipients_file: "/etc/topsync/lists/staff.csv",
      catch_up: 6 * 3_600_000,
      enabled: true,
    });
    expect(staff?.max_price?.toFixed(2)).toBe("350.10");
    expect(promo).toEqual({
      name: "promo.1",
      at: new Date("2026-12-01T07:00:00Z"),
      plan: { kind: "id", network: "MTN", plan_id: "101" },
      recipients: [{ phone: "08131234567", ported: false }],
      catch_up: 3_600_000,
      max_attempts: 3,
      enabled: false,
    });
  });

  it("treats a key with an empty value as absent, so its default applies", () => {
    const { config } = load(yaml("database:", "  url:", "budget:", "purchases:"));
    expect(config.database.url).toBe("");
    expect(config.purchases).toEqual([]);
  });
});

describe("YAML and file errors", () => {
  it("reports malformed YAML at the parser's line and column", () => {
    expect(issues(yaml("budget:", "  daily_limit: 1: 2"))).toEqual([
      "config.yaml:8:16: Nested mappings are not allowed in compact mappings",
    ]);
    expect(issues(yaml("budget:", "\tdaily_limit: 1"))).toEqual([
      "config.yaml:8:1: Tabs are not allowed as indentation",
    ]);
    expect(issues(yaml("purchases: [a, b", "log: {}"))).toEqual([
      "config.yaml:8:1: Flow sequence in block collection must be sufficiently indented and end with a ]",
    ]);
  });

  it("reports a key written twice", () => {
    expect(issues(yaml("log: {}", "log: {}"))).toEqual(["config.yaml:8:1: Map keys must be unique"]);
  });

  it("reports an alias to an anchor that does not exist", () => {
    expect(issues(yaml("log: &a {}", "server: *b"))).toEqual([
      'config.yaml:8:9: server: unknown anchor "*b"',
    ]);
  });

  it("reports an empty file", () => {
    expect(issues("# nothing here\n")).toEqual(["config.yaml:1:1: the config file is empty"]);
  });

  it("names a file that cannot be read", async () => {
    const missing = path.join(tmpdir(), "topsync-no-such-dir", "config.yaml");
    const error = await loadConfig(missing, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`cannot read config file ${missing}: no such file`);
    expect((error as ConfigError).code).toBe("CONFIG_INVALID");
    expect((error as ConfigError).exitCode).toBe(78);
  });

  it("reads a file and anchors relative paths at its directory", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "topsync-config-"));
    const file = path.join(dir, "topsync.yaml");
    await writeFile(
      file,
      yaml(
        "purchases:",
        "  - name: a",
        "    plan: {network: MTN, plan_id: '1'}",
        "    recipients_file: r.csv",
      ),
    );
    const loaded = await loadConfig(file, {});
    expect(loaded.file).toBe(file);
    expect(loaded.config.purchases[0]?.recipients_file).toBe(path.join(dir, "r.csv"));
  });
});

describe("unknown keys", () => {
  it("points at a misspelt key and suggests the right one, without also calling it missing", () => {
    const text = [
      "reseller:",
      "  base_url: http://127.0.0.1:4010",
      "  apikey: sk-test-reseller-0042",
      "analytics:",
      "  base_url: http://127.0.0.1:4020",
      "  api_key: sk-test-analytics-0042",
      "  concurency: 4",
    ].join("\n");
    expect(issues(text)).toEqual([
      'config.yaml:3:3: reseller.apikey: unknown key (did you mean "api_key"?)',
      'config.yaml:7:3: analytics.concurency: unknown key (did you mean "concurrency"?)',
    ]);
  });

  it("lists the allowed keys when nothing is close", () => {
    expect(issues(yaml("log:", "  colour: true"))).toEqual([
      "config.yaml:8:3: log.colour: unknown key (allowed here: level)",
    ]);
  });

  it("finds unknown keys inside lists and nested objects", () => {
    expect(
      issues(
        yaml(
          "purchases:",
          "  - name: a",
          "    plan: { network: MTN, plan_id: '1', sise: 1GB }",
          "    recipients: [{ phone: '08031234567', portd: true }]",
          "    schedul: '0 8 * * *'",
        ),
      ),
    ).toEqual([
      'config.yaml:9:41: purchases[0].plan.sise (job "a"): unknown key (did you mean "size"?)',
      'config.yaml:10:42: purchases[0].recipients[0].portd (job "a"): unknown key (did you mean "ported"?)',
      'config.yaml:11:5: purchases[0].schedul (job "a"): unknown key (did you mean "schedule"?)',
    ]);
  });

  it("says which required key is missing, at the section that lacks it", () => {
    expect(issues("reseller:\n  base_url: http://x\nanalytics:\n")).toEqual([
      "config.yaml:1:1: reseller.api_key: is required",
      "config.yaml:3:1: analytics: is empty, but a value is required",
    ]);
  });
});

describe("environment variables", () => {
  const withEnv = (value: string) =>
    [
      "reseller:",
      "  base_url: http://127.0.0.1:4010",
      `  api_key: ${value}`,
      "analytics:",
      "  base_url: http://a.test",
      "  api_key: k",
    ].join("\n");

  it("replaces ${VAR} from the environment", () => {
    expect(
      load(withEnv("${RESELLER_API_KEY}"), { RESELLER_API_KEY: "from-env" }).config.reseller.api_key,
    ).toBe("from-env");
  });

  it("names a missing variable and where it is used", () => {
    expect(issues(withEnv("${RESELLER_API_KEY}"))).toEqual([
      "config.yaml:3:12: reseller.api_key: environment variable RESELLER_API_KEY is not set (use ${RESELLER_API_KEY:-default} for a default)",
    ]);
    expect(issues(withEnv('"Bearer ${RESELLER_API_KEY}"'))).toEqual([
      "config.yaml:3:20: reseller.api_key: environment variable RESELLER_API_KEY is not set (use ${RESELLER_API_KEY:-default} for a default)",
    ]);
  });

  it("uses the default of ${VAR:-default} when the variable is unset or empty", () => {
    expect(load(withEnv("${KEY:-fallback}")).config.reseller.api_key).toBe("fallback");
    expect(load(withEnv("${KEY:-fallback}"), { KEY: "" }).config.reseller.api_key).toBe("fallback");
    expect(load(withEnv("${KEY:-fallback}"), { KEY: "set" }).config.reseller.api_key).toBe("set");
    expect(load(withEnv("pre-${KEY:-}-post")).config.reseller.api_key).toBe("pre--post");
  });

  it("writes a literal ${ for $${", () => {
    expect(load(withEnv('"$${NOT_A_VAR}"')).config.reseller.api_key).toBe("${NOT_A_VAR}");
    expect(load(withEnv('"$${A}${B:-b}"')).config.reseller.api_key).toBe("${A}b");
  });

  it("reports a malformed reference", () => {
    expect(issues(yaml("  timeout: ${1BAD}", "  rate_limit: ${RATE"))).toEqual([
      'config.yaml:7:12: analytics.timeout: "${1BAD}" is not a variable reference (use ${NAME} or ${NAME:-default})',
      'config.yaml:8:15: analytics.rate_limit: unterminated "${" (close it with "}", or write "$${" for a literal "${")',
    ]);
  });

  it("keeps even a malformed reference in a secret field out of messages", () => {
    expect(issues(withEnv('"${1BAD}"'))).toEqual([
      'config.yaml:3:13: reseller.api_key: "***" is not a variable reference (use ${NAME} or ${NAME:-default})',
    ]);
  });

  it("coerces numeric and boolean text after replacement", () => {
    const { config } = load(
      yaml(
        "  concurrency: ${CONC:-6}",
        "  rate_limit: ${RATE}",
        "intake:",
        "  enabled: ${INTAKE:-false}",
        "  batch_size: '250'",
        "server:",
        "  port: ${PORT}",
      ),
      { RATE: "2.5", PORT: "8080" },
    );
    expect(config.analytics.concurrency).toBe(6);
    expect(config.analytics.rate_limit).toBe(2.5);
    expect(config.intake.enabled).toBe(false);
    expect(config.intake.batch_size).toBe(250);
    expect(config.server.port).toBe(8080);
  });

  it("cannot inject YAML through a value", () => {
    const text = `${withEnv("k")}\ndatabase:\n  pglite_dir: \${DIR}\n`;
    const { config } = load(text, { DIR: "x\nconcurrency: 99\n  - [" });
    expect(config.database.pglite_dir).toBe("x\nconcurrency: 99\n  - [");
    expect(config.reseller.concurrency).toBe(8);
  });

  it("reports a replaced value that does not fit the field", () => {
    expect(issues(yaml("  concurrency: ${CONC}"), { CONC: "many" })).toEqual([
      'config.yaml:7:16: analytics.concurrency: expected a whole number from 1 to 256, got "many"',
    ]);
  });
});

describe("collecting issues", () => {
  it("reports every problem in file order, not only the first", () => {
    expect(
      issues(
        yaml(
          "  timeout: 30",
          "  concurrency: 0",
          "timezone: Mars/Olympus",
          "budget:",
          "  daily_limit: -5",
          "purchases:",
          "  - name: Staff Monthly",
          "    plan: { network: MTN, size: lots }",
          "    recipients: []",
          "log: { level: verbose }",
          "server: { port: 70000 }",
        ),
      ),
    ).toEqual([
      'config.yaml:7:12: analytics.timeout: expected a duration with a unit (500ms, 30s, 10m, 24h, 7d), got 30; did you mean "30s"?',
      "config.yaml:8:16: analytics.concurrency: expected a whole number from 1 to 256, got 0",
      'config.yaml:9:11: timezone: unknown time zone "Mars/Olympus" (use an IANA name like "Africa/Lagos" or "UTC")',
      'config.yaml:11:16: budget.daily_limit: expected a decimal amount like "350.00", got "-5" (amounts cannot be negative)',
      'config.yaml:13:5: purchases[0] (job "Staff Monthly"): a job needs recipients, a recipients_file, or both',
      'config.yaml:13:11: purchases[0].name: job name "Staff Monthly" must be lower case letters, digits, "-", "_" or ".", starting with a letter or digit',
      'config.yaml:14:33: purchases[0].plan.size (job "Staff Monthly"): expected a data size like "500MB", "1GB" or "1.5GB", got "lots"',
      'config.yaml:16:15: log.level: expected one of "trace", "debug", "info", "warn", "error", "fatal", got "verbose"',
      "config.yaml:17:17: server.port: expected a whole number from 1 to 65535, got 70000",
    ]);
  });
});

describe("secrets", () => {
  const SECRET = "sk-live-9f8e7d6c5b4a";

  it("never shows an api key or password value in any message", () => {
    const text = [
      "reseller:",
      "  base_url: http://127.0.0.1:4010",
      "  api_key: ${RESELLER_API_KEY}",
      "  concurrency: ${RESELLER_API_KEY}",
      `  timeout: ${SECRET}`,
      "analytics:",
      `  base_url: ${SECRET}`,
      `  api_key: ${SECRET}`,
      `  rate_limit: ${SECRET}`,
      "websites:",
      "  items:",
      "    - domain: a.example.com",
      "      privacy: public",
      `      password: "${SECRET}"`,
      `    - domain: "${SECRET}"`,
      `      privacy: ${SECRET}`,
    ].join("\n");
    const found = issues(text, { RESELLER_API_KEY: SECRET });
    expect(found.length).toBeGreaterThanOrEqual(6);
    for (const line of found) expect(line).not.toContain(SECRET);
    expect(found).toContain(
      'config.yaml:4:16: reseller.concurrency: expected a whole number from 1 to 256, got "***"',
    );
    try {
      parseConfig(text, "config.yaml", { RESELLER_API_KEY: SECRET });
    } catch (error) {
      expect(String(error)).not.toContain(SECRET);
      expect(JSON.stringify(error)).not.toContain(SECRET);
    }
  });
});

describe("the committed config.yaml", () => {
  it("is valid with no environment variables and points at the sandbox", async () => {
    const { config, warnings } = await loadConfig(path.resolve(import.meta.dirname, "../../config.yaml"), {});
    expect(warnings).toEqual([]);
    expect(config.reseller.base_url).toBe("http://127.0.0.1:4010");
    expect(config.reseller.api_key).toBe("sandbox-reseller-key");
    expect(config.analytics.base_url).toBe("http://127.0.0.1:4020");
    expect(config.analytics.api_key).toBe("sandbox-analytics-key");
    expect(config.database.url).toBe("");
    expect(config.purchases.map((job) => job.name)).toEqual(["staff-monthly", "promo-500mb"]);
    expect(config.purchases[0]?.recipients.some((r) => r.ported)).toBe(true);
    expect(config.purchases[1]?.plan).toEqual({ kind: "id", network: "MTN", plan_id: "101" });
    expect(config.websites.items).toHaveLength(3);
    expect(config.websites.items[2]).toMatchObject({ privacy: 2, password: "change-me" });
  });
});
