// A daemon serving the console over a sandbox and a fresh PostgreSQL ledger that holds an in_doubt purchase (its
// answer lost after the debit) and a plan awaiting approval; users of each role; and a small HTTP client that
// keeps a session cookie as a browser does.
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { hashPassword } from "../../src/console/password.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type DaemonProcess, freePort, spawnDaemon, waitReady } from "../daemon/helpers.js";
import { runCli } from "../helpers/cli.js";
import { sandboxSettings } from "../helpers/config.js";
import { type Ledger, mtnPhones, openLedgerFor } from "../plans/helpers.js";

export const PASSWORD = "correct horse battery";
export const LOST_PHONE = "08031230001";
/** A viewer whose name is as long as config allows (64 characters) and has nowhere a line may break. */
export const LONG_NAME = "oluwaseun_adebayo_akinwande_".repeat(3).slice(0, 64);

export interface ConsoleFixture {
  sandbox: Sandbox;
  ledger: Ledger;
  daemon: DaemonProcess;
  base: string;
  inDoubtId: number;
  planId: string;
  close(): Promise<void>;
}

export async function startConsoleFixture(
  consoleExtra: Record<string, unknown> = {},
  options: { resellerDown?: boolean; ownKeys?: boolean } = {},
): Promise<ConsoleFixture> {
  const sandbox = await startSandbox({ verifyLag: "reads", seed: 30 });
  const port = await freePort();
  const jobs = [
    { name: "lost", plan: { network: "MTN", plan_id: "102" }, recipients: [LOST_PHONE] },
    { name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 900) },
    // Scheduled, but not within any test: the jobs page shows its next fires.
    {
      name: "new-year",
      schedule: "0 8 1 1 *",
      plan: { network: "MTN", plan_id: "102" },
      recipients: mtnPhones(1, 950),
    },
  ];
  const ledger = await openLedgerFor("postgres", sandbox, { purchases: jobs });
  const keys: Record<string, { file: string; publicKey: string }> = {};
  for (const name of ["ada", "bola"]) {
    const file = join(ledger.dir, `${name}.key`);
    const made = await runCli(["--json", "keys", "new", "--as", name, "--out", file]);
    expect(made.code, made.stderr).toBe(0);
    keys[name] = { file, publicKey: JSON.parse(made.stdout).public_key };
  }
  // The lost answer: the sandbox debits, then answers 500.
  sandbox.setOptions({ failRate: 0, reverseRate: 0 });
  sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
  const run = await ledger.cli(["purchases", "run", "--job", "lost", "--now"]);
  sandbox.setFaults({ endpoints: {} });
  expect([0, 1]).toContain(run.code);
  const [lost] = await ledger.query<{ id: number | string; state: string }>(
    sql`select id, state from purchases where job_name = 'lost'`,
  );
  expect(lost?.state).toBe("in_doubt");

  const hash = await hashPassword(PASSWORD);
  const settings = {
    purchases: jobs,
    approvals: {
      rules: [{ above: "1.00", approvals: 1 }],
      approvers: { ada: keys.ada!.publicKey, bola: keys.bola!.publicKey },
    },
    server: { host: "127.0.0.1", port, shutdown_grace: "5s" },
    console: {
      enabled: true,
      // Each approver with a key of their own, or both signing with ada's (the console's shared key).
      ...(options.ownKeys ? {} : { signing_key: keys.ada!.file }),
      users: {
        ada: {
          password_hash: hash,
          role: "approver",
          ...(options.ownKeys ? { signing_key: keys.ada!.file } : {}),
        },
        bola: {
          password_hash: hash,
          role: "approver",
          ...(options.ownKeys ? { signing_key: keys.bola!.file } : {}),
        },
        olu: { password_hash: hash, role: "operator" },
        vic: { password_hash: hash, role: "viewer" },
        [LONG_NAME]: { password_hash: hash, role: "viewer" },
      },
      ...consoleExtra,
    },
  };
  ledger.rewrite(settings);
  const planFile = join(ledger.dir, "promo.plan");
  const saved = await ledger.cli([
    "--json",
    "purchases",
    "plan",
    "--job",
    "promo",
    "--now",
    "--save",
    planFile,
    "--as",
    "bola",
    "--key",
    keys.bola!.file,
  ]);
  expect(saved.code, saved.stderr).toBe(0);
  const planId = JSON.parse(saved.stdout).plan_id as string;
  // The daemon's reseller then at a port nothing listens on: every call to it is refused.
  if (options.resellerDown)
    ledger.rewrite({
      ...settings,
      reseller: { ...sandboxSettings(sandbox).reseller!, base_url: `http://127.0.0.1:${await freePort()}` },
    });

  const daemon = spawnDaemon(ledger.file, port);
  await waitReady(daemon);
  return {
    sandbox,
    ledger,
    daemon,
    base: `http://127.0.0.1:${port}`,
    inDoubtId: Number(lost!.id),
    planId,
    async close() {
      daemon.child.kill("SIGTERM");
      await daemon.exited;
      await sandbox.close();
      await ledger.drop();
    },
  };
}

export interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

/** A client that keeps the session cookie and sends the console's own Origin unless told otherwise. */
export class Client {
  cookie = "";
  constructor(readonly origin: string) {}

  async get(path: string): Promise<Answer> {
    const response = await fetch(`${this.origin}${path}`, {
      redirect: "manual",
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
    return { status: response.status, body: await response.text(), headers: response.headers };
  }

  async post(
    path: string,
    form: Record<string, string>,
    options: { origin?: string | null } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if (this.cookie) headers.cookie = this.cookie;
    const origin = options.origin === undefined ? this.origin : options.origin;
    if (origin !== null) headers.origin = origin;
    const response = await fetch(`${this.origin}${path}`, {
      method: "POST",
      redirect: "manual",
      headers,
      body: new URLSearchParams(form).toString(),
    });
    const set = response.headers.get("set-cookie");
    if (set) this.cookie = set.split(";")[0]!;
    return { status: response.status, body: await response.text(), headers: response.headers };
  }

  async login(user: string, password = PASSWORD): Promise<Answer> {
    return this.post("/console/login", { user, password });
  }
}

/** The hidden fields of the form with this id on a page. */
export function formFields(page: string, id: string): Record<string, string> {
  const start = page.indexOf(`id="${id}"`);
  if (start < 0) throw new Error(`no form #${id} on the page`);
  const form = page.slice(start, page.indexOf("</form>", start));
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[match[1]!] = match[2]!;
  return fields;
}
