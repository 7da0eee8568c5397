// A service behind HTTPS whose certificate a private authority signed: trusted through its `ca_file`, refused
// without it — unsent, so a purchase is never in doubt for it — and a `ca_file` that cannot be used named by
// `config check` and by the call. The service is the sandbox behind a TLS front (test/fixtures/tls: an authority
// and a certificate for 127.0.0.1 it signed, valid until 2126).
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { MAX_CA_FILE_BYTES, readCaFile } from "../../src/http/ca-file.js";
import { ServiceClient } from "../../src/http/service-client.js";
import { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli, sandboxEnv } from "../helpers/cli.js";
import { FAST, failureOf } from "../helpers/clients.js";
import { sandboxSettings } from "../helpers/config.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/tls/", import.meta.url));
const CA = join(FIXTURES, "ca.pem");

let sandbox: Sandbox;
let front: Server;
let frontUrl: string;
/** Requests the TLS front passed on: a handshake refused by the client passes none. */
let passed = 0;
let scratch: string;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
  const target = new URL(sandbox.resellerUrl);
  front = createServer(
    { cert: readFileSync(join(FIXTURES, "server.pem")), key: readFileSync(join(FIXTURES, "server-key.pem")) },
    (req, res) => {
      passed++;
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  frontUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  scratch = mkdtempSync(join(tmpdir(), "topsync-tls-"));
});
afterAll(async () => {
  front.closeAllConnections();
  await new Promise((resolve) => front.close(resolve));
  await sandbox.close();
});

function reseller(caFile?: string): ResellerClient {
  return new ResellerClient(
    new ServiceClient({ service: "reseller", baseUrl: frontUrl, apiKey: sandbox.apiKey, ...FAST, caFile }),
  );
}

describe("a service whose certificate a private authority signed", () => {
  it("is called over HTTPS with its ca_file, on every connection", async () => {
    const client = reseller(CA);
    try {
      const networks = await client.listNetworks();
      expect(networks.map((n) => n.name)).toContain("MTN");
      // Eight at once: eight connections, every one checked against the one context the ca_file made.
      const plans = await Promise.all(Array.from({ length: 8 }, () => client.listPlans("1")));
      expect(plans.every((list) => list.some((plan) => plan.id === "102"))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("without it, a purchase fails unsent and unretried: the certificate is not trusted, nothing reached the service", async () => {
    const before = passed;
    const retried: string[] = [];
    const client = new ResellerClient(
      new ServiceClient({
        service: "reseller",
        baseUrl: frontUrl,
        apiKey: sandbox.apiKey,
        ...FAST,
        onRetry: (_call, error) => retried.push(error.code),
      }),
    );
    try {
      const buy = await failureOf(
        client.buyData({ network_id: "1", plan_id: "102", phone_number: "08031234567" }),
      );
      expect(buy.code).toBe("HTTP_TLS_UNTRUSTED");
      expect(buy.outcome).toBe("not_sent");
      expect(buy.message).toMatch(/certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
      const read = await failureOf(client.listNetworks());
      expect(read.code).toBe("HTTP_TLS_UNTRUSTED");
      expect(retried).toEqual([]);
      expect(passed - before).toBe(0);
      expect(sandbox.debits()).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it("a ca_file that cannot be used fails every call unsent, naming the setting and the file", async () => {
    const missing = join(scratch, "missing.pem");
    const client = reseller(missing);
    try {
      const failure = await failureOf(client.listNetworks());
      expect(failure.code).toBe("HTTP_CA_FILE");
      expect(failure.outcome).toBe("not_sent");
      expect(failure.message).toContain(`reseller.ca_file ${missing} does not exist`);
    } finally {
      await client.close();
    }
  });
});

describe("readCaFile", () => {
  it("reads every certificate of a bundle", async () => {
    const bundle = join(scratch, "bundle.pem");
    writeFileSync(
      bundle,
      `# two roots\n${readFileSync(CA, "latin1")}\n${readFileSync(join(FIXTURES, "server.pem"), "latin1")}`,
    );
    const read = await readCaFile(bundle);
    expect(read.ok && read.certificates.length).toBe(2);
  });

  it.each([
    ["not PEM", "just some text\n", /holds no PEM certificate/],
    [
      "a damaged certificate",
      "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
      /certificate 1 of 1 is not a certificate/,
    ],
    ["a private key", readFileSync(join(FIXTURES, "server-key.pem"), "latin1"), /holds no PEM certificate/],
  ])("refuses a file of %s", async (_what, content, problem) => {
    const file = join(scratch, "bad.pem");
    writeFileSync(file, content);
    const read = await readCaFile(file);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problem).toMatch(problem);
  });

  it("refuses a folder and a file too large to be certificates without reading it", async () => {
    const folder = await readCaFile(scratch);
    expect(!folder.ok && folder.problem).toBe("is a directory, not a file");
    const huge = join(scratch, "huge.pem");
    writeFileSync(huge, "");
    const { truncateSync } = await import("node:fs");
    truncateSync(huge, MAX_CA_FILE_BYTES + 1);
    const read = await readCaFile(huge);
    expect(!read.ok && read.problem).toMatch(/more than a file of certificates holds/);
  });
});

describe("the CLI", () => {
  function configWith(reseller: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const dir = mkdtempSync(join(tmpdir(), "topsync-tls-cli-"));
    copyFileSync(CA, join(dir, "authority.pem"));
    const settings = sandboxSettings(sandbox) as { reseller: Record<string, unknown> };
    const file = join(dir, "config.yaml");
    writeFileSync(
      file,
      stringify({
        ...settings,
        reseller: { ...settings.reseller, base_url: frontUrl, ...reseller },
        database: { url: "", pglite_dir: join(dir, "pglite") },
        ...extra,
      }),
    );
    return file;
  }

  it("lists the networks through a ca_file written relative to the config", async () => {
    const result = await runCli(
      ["-c", configWith({ ca_file: "authority.pem" }), "networks"],
      sandboxEnv(sandbox),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("MTN");
  });

  it("without it, says the certificate is not trusted and what to set", async () => {
    const result = await runCli(["-c", configWith({}), "networks"], sandboxEnv(sandbox));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/certificate is not trusted/);
    expect(result.stderr).toMatch(/set reseller\.ca_file to that authority's PEM file/);
  });

  it("a purchase run against an untrusted certificate stops before buying: nothing sent, nothing in doubt", async () => {
    const before = passed;
    const file = configWith(
      {},
      {
        purchases: [
          {
            name: "campaign",
            plan: { network: "MTN", plan_id: "102" },
            max_price: "1000.00",
            recipients: ["08031230001", "08031230002"],
          },
        ],
      },
    );
    const run = await runCli(
      ["-c", file, "purchases", "run", "--job", "campaign", "--now"],
      sandboxEnv(sandbox),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/certificate is not trusted/);
    const list = await runCli(["-c", file, "purchases", "list", "--csv"], sandboxEnv(sandbox));
    expect(list.code, list.stderr).toBe(0);
    const states = list.stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split(",")[1]);
    expect(states).toEqual(["queued", "queued"]);
    expect(passed - before).toBe(0);
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("doctor says the certificate is not trusted and what to set, and passes with the ca_file", async () => {
    const untrusted = await runCli(["-c", configWith({}), "doctor"], sandboxEnv(sandbox));
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stdout + untrusted.stderr).toMatch(/certificate is not trusted/);
    expect(untrusted.stdout + untrusted.stderr).toMatch(/set reseller\.ca_file to that authority's PEM file/);
    const trusted = await runCli(
      ["-c", configWith({ ca_file: "authority.pem" }), "doctor"],
      sandboxEnv(sandbox),
    );
    expect(trusted.stdout + trusted.stderr).toMatch(/reseller.*answers and takes the key: 4 networks listed/);
  });

  it("config check warns of a ca_file beside a plain-http base_url (it is never read)", async () => {
    const file = configWith({ ca_file: "authority.pem", base_url: sandbox.resellerUrl });
    const result = await runCli(["-c", file, "config", "check"], sandboxEnv(sandbox));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(
      /config\.yaml:\d+:\d+: reseller\.ca_file: is not used: reseller\.base_url is plain http/,
    );
  });

  it("config check names the line of a ca_file that does not exist (78)", async () => {
    const file = configWith({ ca_file: "nowhere.pem" });
    const result = await runCli(["-c", file, "config", "check"], sandboxEnv(sandbox));
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/config\.yaml:\d+:\d+: reseller\.ca_file: .+nowhere\.pem does not exist/);
  });
});
