// `topsync doctor` run as an operator runs it (dist/cli.cjs) against the sandbox over HTTP and a real PostgreSQL:
// a good installation passes; a wrong key, a database that is down, a migration not applied, a folder held by
// another process each fail naming what and where; a skewed clock warns; --quick calls neither service.
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { migrate, migrationTags } from "../../src/db/migrate.js";
import type { CheckResult, DoctorReport } from "../../src/doctor/run.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { sandboxSettings, writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
let migrated: { url: string; drop: () => Promise<void> };
let unmigrated: { url: string; drop: () => Promise<void> };
const lastTag = migrationTags().at(-1)!;

beforeAll(async () => {
  sandbox = await startSandbox();
  migrated = await createPostgresDatabase();
  unmigrated = await createPostgresDatabase();
  const full = await openDatabase({ url: migrated.url });
  await migrate(full.db);
  await full.close();
  const partial = await openDatabase({ url: unmigrated.url });
  await migrate(partial.db, migrationTags().slice(0, -1));
  await partial.close();
});
afterAll(async () => {
  await sandbox.close();
  await migrated.drop();
  await unmigrated.drop();
});

async function doctor(file: string, ...flags: string[]) {
  const result = await runCli(["-c", file, "--json", "doctor", ...flags]);
  const report = JSON.parse(result.stdout) as DoctorReport;
  const check = (name: string): CheckResult => {
    const found = report.checks.filter((c) => c.name === name);
    expect(found, `one "${name}" check in ${result.stdout}`).toHaveLength(1);
    return found[0]!;
  };
  return { ...result, report, check };
}

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("topsync doctor", () => {
  it("passes a good installation: exit 0, every check passed, and the text form says so", async () => {
    const { file } = writeConfigFile(sandbox, migrated.url);
    const result = await doctor(file);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.report.ok).toBe(true);
    for (const name of [
      "config",
      "timezone",
      "webhooks",
      "console",
      "database",
      "migrations",
      "reseller",
      "analytics",
      "clock",
    ])
      expect(result.check(name).status, name).toBe("pass");
    expect(result.check("reseller").message).toContain("4 networks listed");
    const text = await runCli(["-c", file, "doctor"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ok\s+migrations\s+every migration is applied$/m);
    expect(text.stdout).toMatch(/^ok\s+console\s+the console is off$/m);
    expect(text.stdout).toMatch(/^0 failed, 0 warned, 9 passed$/m);
  });

  it("fails a wrong key naming the service, and never prints the key", async () => {
    const settings = sandboxSettings(sandbox) as { reseller: Record<string, unknown> };
    const { file } = writeConfigFile(sandbox, migrated.url, {
      reseller: { ...settings.reseller, api_key: "not-the-reseller-key-4417" },
    });
    const result = await doctor(file);
    expect(result.code).toBe(1);
    expect(result.report.ok).toBe(false);
    const reseller = result.check("reseller");
    expect(reseller.status).toBe("fail");
    expect(reseller.message).toMatch(/^reseller refused the API key \(HTTP 401\)/);
    expect(reseller.fix).toContain("reseller.api_key");
    expect(result.check("analytics").status).toBe("pass");
    expect(result.stdout + result.rawStderr).not.toContain("not-the-reseller-key-4417");
    const text = await runCli(["-c", file, "doctor"]);
    expect(text.stdout).toMatch(/^FAIL\s+reseller\s+reseller refused the API key/m);
    expect(text.stdout).toMatch(/^\s+fix: set reseller\.api_key/m);
  });

  it("fails a database that is down, naming where, and skips the migrations", async () => {
    const port = await closedPort();
    const { file } = writeConfigFile(sandbox, `postgres://postgres@127.0.0.1:${port}/topsync`);
    const result = await doctor(file);
    expect(result.code).toBe(1);
    const database = result.check("database");
    expect(database.status).toBe("fail");
    expect(database.message).toContain(`127.0.0.1:${port}/topsync`);
    expect(database.fix).toContain("database.url");
    expect(result.check("migrations").status).toBe("skip");
  });

  it("fails a database a migration is missing from, naming the migration", async () => {
    const { file } = writeConfigFile(sandbox, unmigrated.url);
    const result = await doctor(file);
    expect(result.code).toBe(1);
    const migrations = result.check("migrations");
    expect(migrations.status).toBe("fail");
    expect(migrations.message).toBe(`migration ${lastTag} is not applied`);
    expect(migrations.fix).toContain("topsync migrate");
    expect(result.check("database").status).toBe("pass");
  });

  it("warns when this machine's clock is off from the services' Date headers, and exits 0", async () => {
    // The reseller, relayed with its Date two hours behind this machine's.
    const skewed: Server = createServer(async (request, response) => {
      const upstream = await fetch(`${sandbox.resellerUrl}${request.url}`, {
        headers: { authorization: String(request.headers.authorization ?? ""), accept: "application/json" },
      });
      response.setHeader("date", new Date(Date.now() - 2 * 3600_000).toUTCString());
      response.writeHead(upstream.status, { "content-type": "application/json" });
      response.end(await upstream.text());
    });
    await new Promise<void>((resolve) => skewed.listen(0, "127.0.0.1", resolve));
    try {
      const settings = sandboxSettings(sandbox) as { reseller: Record<string, unknown> };
      const url = `http://127.0.0.1:${(skewed.address() as { port: number }).port}`;
      const { file } = writeConfigFile(sandbox, migrated.url, {
        reseller: { ...settings.reseller, base_url: url },
      });
      const result = await doctor(file);
      expect(result.code, result.stdout).toBe(0);
      const clock = result.check("clock");
      expect(clock.status).toBe("warn");
      expect(clock.message).toMatch(/^this machine's clock is 7[12]\d\d s ahead of reseller's clock/);
      expect(clock.fix).toContain("NTP");
    } finally {
      await new Promise((resolve) => skewed.close(resolve));
    }
  });

  it("--quick calls neither service: it passes with both unreachable, and still fails a missing migration", async () => {
    const port = await closedPort();
    const settings = sandboxSettings(sandbox) as Record<string, Record<string, unknown>>;
    const away = { base_url: `http://127.0.0.1:${port}` };
    const extra = {
      reseller: { ...settings.reseller, ...away },
      analytics: { ...settings.analytics, ...away },
    };
    const good = await doctor(writeConfigFile(sandbox, migrated.url, extra).file, "--quick");
    expect(good.code, good.stdout).toBe(0);
    expect(good.report.quick).toBe(true);
    expect(good.check("services").status).toBe("skip");
    expect(good.report.checks.map((c) => c.name)).not.toContain("reseller");
    const behind = await doctor(writeConfigFile(sandbox, unmigrated.url, extra).file, "--quick");
    expect(behind.code).toBe(1);
    expect(behind.check("migrations").message).toBe(`migration ${lastTag} is not applied`);
  });

  it("fails an embedded database folder another live process holds; --quick only warns (its own daemon)", async () => {
    const { file, dir } = writeConfigFile(sandbox, "");
    const folder = join(dir, "pglite");
    const made = await openDatabase({ pgliteDir: folder });
    await migrate(made.db);
    await made.close();
    // This test's own process stands for the daemon that holds it.
    writeFileSync(join(folder, "topsync.lock"), String(process.pid));
    const full = await doctor(file);
    expect(full.code).toBe(1);
    const held = full.check("embedded database folder");
    expect(held.status).toBe("fail");
    expect(held.message).toBe(`${folder} is held by topsync process ${process.pid}`);
    expect(full.check("database").status).toBe("skip");
    const quick = await doctor(file, "--quick");
    expect(quick.code, quick.stdout).toBe(0);
    expect(quick.check("embedded database folder").status).toBe("warn");
  }, 120_000); // migrating an embedded database takes seconds, more on a busy machine

  it("fails a config that is not valid, naming the line, and runs nothing else", async () => {
    const { file } = writeConfigFile(sandbox, migrated.url);
    writeFileSync(
      file,
      "reseller:\n  base_url: http://127.0.0.1:1\n  api_key: k\nanalytics: { base_url: http://127.0.0.1:1, api_key: k }\nbudget: { daily_limt: '5.00' }\n",
    );
    const result = await doctor(file);
    expect(result.code).toBe(1);
    expect(result.check("config").status).toBe("fail");
    expect(result.check("config").message).toMatch(/config\.yaml:5:\d+: budget/);
    expect(result.report.checks.map((c) => c.status)).toEqual(["fail", "skip"]);
  });
});
