// A reseller that echoes the API key in every encoding and writes terminal escapes, bidi overrides and phone
// numbers in people's formats into its answers: none of it reaches any output raw — the event log, logs,
// `purchases show/list/csv`, every report format, `networks`, the metrics.
import { createServer, type Server } from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { readLedgerStats } from "../../src/server/ledger-stats.js";
import { DaemonMetrics } from "../../src/server/metrics.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

const KEY = "sk-Ab+(a)*?/=K9x-live";
const strictEncoded = encodeURIComponent(KEY).replace(
  /[!'()*]/g,
  (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
);
/** The key as a hostile or careless service may echo it. */
const KEY_FORMS = {
  written: KEY,
  urlEncoded: encodeURIComponent(KEY),
  strictEncoded,
  lowerHexEncoded: strictEncoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  formEncoded: new URLSearchParams({ k: KEY }).toString().slice(2),
  lower: KEY.toLowerCase(),
  upper: KEY.toUpperCase(),
  bearerBase64: Buffer.from(`Bearer ${KEY}`).toString("base64"),
};
const PHONE = "08031230099";
/** The buyer's number as people and providers write it. */
const PHONE_FORMS = ["+234 803 123 0099", "+234 (0) 803 123 0099", "0803.123.0099", "+23408031230099"];
const CONTROL = "\u001b[2J\u001b]0;pwned\u0007\r\u202Eevil";

/** A reseller in front of the sandbox that adds the key, phones and control characters to its answers. */
async function hostileReseller(target: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers: {
        authorization: String(request.headers.authorization ?? ""),
        accept: "application/json",
        ...(request.headers["content-type"] ? { "content-type": request.headers["content-type"] } : {}),
      },
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const body = (await upstream.json()) as Record<string, unknown>;
    const networks = (body.data as { networks?: Array<Record<string, unknown>> } | undefined)?.networks;
    for (const network of networks ?? []) network.other_name = `${network.other_name}${CONTROL}`;
    if (request.url?.includes("/data") || request.url?.includes("/transaction")) {
      body.echo = { ...KEY_FORMS, [KEY_FORMS.lower]: "as a key too" };
      const data = body.data as { transaction?: Record<string, unknown> } | undefined;
      const note = `${CONTROL} sent to ${PHONE_FORMS.join(", ")} with ${Object.values(KEY_FORMS).join(" ")}`;
      const transaction = data?.transaction;
      if (transaction && typeof transaction.true_response === "string") transaction.true_response += note;
      body.message = `${body.message ?? ""}${note}`;
      // far more than an event keeps
      if (request.method === "POST") body.padding = "x".repeat(300_000);
    }
    response.writeHead(upstream.status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, server };
}

let sandbox: Sandbox;
let hostile: { url: string; server: Server };
let url: string;
let drop: () => Promise<void>;
let file: string;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 16, apiKey: KEY, failRate: 1 });
  hostile = await hostileReseller(sandbox.resellerUrl);
  const created = await createPostgresDatabase();
  url = created.url;
  drop = created.drop;
  ({ file } = writeConfigFile(sandbox, url, {
    reseller: {
      base_url: hostile.url,
      api_key: KEY,
      timeout: "2s",
      rate_limit: 10_000,
      retry: { max_attempts: 2, base_delay: "5ms", max_delay: "20ms" },
    },
  }));
});
afterAll(async () => {
  await new Promise((resolve) => hostile.server.close(resolve));
  await sandbox.close();
  await drop();
});

async function query<T>(text: ReturnType<typeof sql>): Promise<T[]> {
  const database = await openDatabase({ url, maxConnections: 1 });
  try {
    return await rows<T>(database.db, text);
  } finally {
    await database.close();
  }
}

function expectNoKey(what: string, text: string): void {
  for (const [form, value] of Object.entries(KEY_FORMS))
    expect(text.includes(value), `${what} carries the key ${form}`).toBe(false);
}

function expectNoPhone(what: string, text: string): void {
  for (const phone of [PHONE, ...PHONE_FORMS])
    expect(text.includes(phone), `${what} shows ${phone}`).toBe(false);
}

function expectInert(what: string, text: string): void {
  for (const raw of ["\u001b", "\u0007", "\r", "\u202e"])
    expect(text.includes(raw), `${what} has a raw ${JSON.stringify(raw)}`).toBe(false);
}

const cli = (...args: string[]): Promise<CliResult> => runCli(["-c", file, ...args]);

describe("hostile provider text", () => {
  let id: string;
  let bought: CliResult;

  beforeAll(async () => {
    bought = await cli(
      "--log-level",
      "debug",
      "buy",
      "--network",
      "MTN",
      "--plan",
      "101",
      "--phone",
      PHONE,
      "--yes",
    );
    id = /purchase (\d+)/.exec(bought.stdout)?.[1] ?? "";
  });

  it("buys through the hostile reseller and fails as the provider says", () => {
    expect(bought.stdout, bought.rawStderr).toMatch(/purchase \d+: failed/);
  });

  it("stores the provider's answers with every form of the key redacted", async () => {
    const stored = await query<{ text: string }>(
      sql`select coalesce(response::text, '') || ' ' || coalesce(reason, '') as text from purchase_events
          union all select coalesce(provider_message, '') || ' ' || coalesce(provider_status, '') from purchases`,
    );
    const all = stored.map((r) => r.text).join("\n");
    expect(all).toContain("[redacted]");
    expectNoKey("the ledger", all);
  });

  it("stores a provider answer over 64 KiB cut short, with a marker and its length", async () => {
    const stored = await query<{ response: string }>(
      sql`select response::text as response from purchase_events where response::text like '%"truncated"%'`,
    );
    expect(stored).toHaveLength(1);
    const marker = JSON.parse(stored[0]!.response);
    expect(marker.truncated).toBe(true);
    expect(marker.length).toBeGreaterThan(300_000);
    expect(marker.head).toHaveLength(64 * 1024);
    const [longest] = await query<{ n: number }>(
      sql`select max(length(response::text))::int as n from purchase_events`,
    );
    expect(longest!.n).toBeLessThan(70 * 1024);
  });

  it("keeps the key out of logs and the buy's output, and phones masked", () => {
    const all = bought.stdout + bought.rawStderr;
    expectNoKey("buy", all);
    expectNoPhone("buy", all);
    expectInert("buy's stdout", bought.stdout);
  });

  it("purchases show and list: no key, no phone, escapes shown as text", async () => {
    const text = await cli("purchases", "show", id);
    const json = await cli("--json", "purchases", "show", id);
    const list = await cli("purchases", "list");
    const listJson = await cli("--json", "purchases", "list");
    const csv = await cli("purchases", "list", "--csv");
    for (const [what, result] of Object.entries({ text, json, list, listJson, csv })) {
      expect(result.code, `${what}: ${result.stderr}`).toBe(0);
      expectNoKey(what, result.stdout);
      expectNoPhone(what, result.stdout);
    }
    expectInert("purchases show", text.stdout);
    expectInert("purchases list", list.stdout);
    expect(text.stdout).toContain("\\x1B[2J\\x1B]0;pwned\\x07\\r\\u202Eevil");
    expect(text.stdout).toContain("0803****099");
  });

  it("reports in every format: no key, no phone; text and markdown without raw controls", async () => {
    for (const format of ["text", "markdown", "json", "html"]) {
      const report = await cli("report", "--since", "1h", "--format", format);
      expect(report.code, report.stderr).toBe(0);
      expectNoKey(`report ${format}`, report.stdout);
      expectNoPhone(`report ${format}`, report.stdout);
      if (format === "text" || format === "markdown") {
        expectInert(`report ${format}`, report.stdout);
        expect(report.stdout).toContain("\\u202Eevil"); // the provider's failure message, escaped
      }
    }
  });

  it("networks shows the provider's names with their control characters escaped", async () => {
    const networks = await cli("networks");
    expect(networks.code).toBe(0);
    expectInert("networks", networks.stdout);
    expect(networks.stdout).toContain("\\u202Eevil");
  });

  it("metrics carry neither the key nor a phone", async () => {
    const database = await openDatabase({ url, maxConnections: 1 });
    try {
      const metrics = new DaemonMetrics({ budget: {} as never });
      metrics.setLedger(await readLedgerStats(database.db, new Date(), "Africa/Lagos"), {
        budget: {} as never,
      });
      const text = await metrics.registry.metrics();
      expect(text).toContain("topsync_purchases");
      expectNoKey("metrics", text);
      expectNoPhone("metrics", text);
    } finally {
      await database.close();
    }
  });
});
