// A read-only console behind TLS: every action hidden and refused; the cookie Secure because the public URL is
// https, and a POST accepted only from that origin.
import { spawn } from "node:child_process";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/console/password.js";
import { CLI, ROOT } from "../helpers/cli.js";
import { Client, type ConsoleFixture, formFields, startConsoleFixture } from "./helpers.js";

const PUBLIC = "https://ops.example.com";

describe("a read-only console behind TLS", { timeout: 180_000 }, () => {
  let f: ConsoleFixture;
  beforeAll(async () => {
    f = await startConsoleFixture({ read_only: true, public_url: `${PUBLIC}/console` });
  });
  afterAll(async () => {
    await f?.close();
  });

  it("marks the session cookie Secure", async () => {
    const client = new Client(f.base);
    const refused = await client.login("ada");
    expect(refused.status).toBe(403); // the console's own origin is the public one
    const login = await client.post(
      "/console/login",
      { user: "ada", password: "correct horse battery" },
      { origin: PUBLIC },
    );
    expect(login.status).toBe(303);
    expect(login.headers.get("set-cookie")).toMatch(/; Secure/i);
  });

  it("hides every action and refuses each one, changing nothing", async () => {
    const client = new Client(f.base);
    await client.post(
      "/console/login",
      { user: "ada", password: "correct horse battery" },
      { origin: PUBLIC },
    );
    const purchase = await client.get(`/console/purchases/${f.inDoubtId}`);
    const plan = await client.get(`/console/plans/${f.planId}`);
    const home = await client.get("/console/");
    for (const page of [purchase, plan, home]) {
      expect(page.status).toBe(200);
      expect(page.body).not.toMatch(/id="(resolve|requeue|cancel|approve|reject)"/);
      expect(page.body).toContain("read-only");
    }
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)![1]!;
    const form = { _csrf: csrf, _form: "f".repeat(32), _version: "x", as: "failed", reason: "try" };
    for (const path of [`/console/purchases/${f.inDoubtId}/resolve`, `/console/plans/${f.planId}/approve`]) {
      const posted = await client.post(path, form, { origin: PUBLIC });
      expect(posted.status, path).toBe(403);
      expect(posted.body).toContain("read-only");
    }
    expect(() => formFields(purchase.body, "resolve")).toThrow();
    const [row] = await f.ledger.query<{ state: string }>(
      sql`select state from purchases where id = ${f.inDoubtId}`,
    );
    expect(row?.state).toBe("in_doubt");
    const decisions = await f.ledger.query(sql`select 1 from plan_approvals`);
    expect(decisions).toEqual([]);
  });
});

describe("topsync console hash-password", { timeout: 60_000 }, () => {
  it("hashes the password read from standard input, never from the command line", async () => {
    const child = spawn(process.execPath, [CLI, "console", "hash-password"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stdin.end("a long enough password\n");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const hash = out.trim();
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(hash).not.toContain("a long enough password");
    expect(await verifyPassword("a long enough password", hash)).toBe(true);
    expect(await verifyPassword("another password", hash)).toBe(false);
  });
});
