// A sandbox, a ledger (a fresh PostgreSQL database or an embedded PGlite folder) and a config file pointing at
// both, for the saved-plan tests that run the CLI as an operator does.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SQL } from "drizzle-orm";
import { openDatabase, rows } from "../../src/db/client.js";
import type { PurchasePlan } from "../../src/plans/document.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { sandboxSettings, writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase, type DbKind } from "../helpers/db.js";
import { resellerProxy } from "../helpers/reseller-proxy.js";

export interface Ledger {
  kind: DbKind;
  file: string;
  dir: string;
  cli(args: string[], env?: Record<string, string>): Promise<CliResult>;
  query<T>(statement: SQL): Promise<T[]>;
  /** Writes the config again with other settings (the database and sandbox stay). */
  rewrite(extra: Record<string, unknown>): void;
  drop(): Promise<void>;
}

export async function openLedgerFor(
  kind: DbKind,
  sandbox: Sandbox,
  extra: Record<string, unknown>,
): Promise<Ledger> {
  const created = kind === "postgres" ? await createPostgresDatabase() : undefined;
  const url = created?.url ?? "";
  let { file, dir } = writeConfigFile(sandbox, url, extra);
  const pgliteDir = join(dir, "pglite");
  return {
    kind,
    get file() {
      return file;
    },
    get dir() {
      return dir;
    },
    cli: (args, env = {}) => runCli(["-c", file, ...args], env),
    async query<T>(statement: SQL) {
      const database = await openDatabase(url ? { url, maxConnections: 1 } : { pgliteDir });
      try {
        return await rows<T>(database.db, statement);
      } finally {
        await database.close();
      }
    },
    rewrite(more) {
      const again = writeConfigFile(sandbox, url, {
        ...extra,
        ...more,
        database: { url, pglite_dir: pgliteDir },
      });
      file = again.file;
      dir = again.dir;
    },
    async drop() {
      await created?.drop();
    },
  };
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** Phones 0803xxxxxxx (MTN) counted from `from`. */
export function mtnPhones(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `0803${String(4_000_000 + from + i)}`);
}

/** A new signing key for `name` written to `<dir>/<name>.key` (`topsync keys new`): the file and its public key. */
export async function approverKey(dir: string, name: string): Promise<{ key: string; publicKey: string }> {
  const key = join(dir, `${name}.key`);
  const made = await runCli(["--json", "keys", "new", "--as", name, "--out", key]);
  if (made.code !== 0) throw new Error(`keys new --as ${name}: ${made.stderr}`);
  return { key, publicKey: (JSON.parse(made.stdout) as { public_key: string }).public_key };
}

/**
 * `purchases plan --job JOB --fire-time FIRE --save FILE` (FILE in the ledger's folder, named after the job and the
 * fire's day unless given), which must succeed: the file and the plan it holds.
 */
export async function savePlan(
  ledger: Ledger,
  job: string,
  fire: string,
  file = join(ledger.dir, `${job}-${fire.slice(0, 10)}.plan`),
): Promise<{ file: string; plan: PurchasePlan }> {
  const saved = await ledger.cli(["purchases", "plan", "--job", job, "--fire-time", fire, "--save", file]);
  if (saved.code !== 0)
    throw new Error(`purchases plan --save ${file} exited ${saved.code}: ${saved.stderr}`);
  return { file, plan: readJson<PurchasePlan>(file) };
}

/** A run or apply caught mid-send: its purchase POSTs held in front of the sandbox until `release()`. */
export interface HeldPosts {
  /** Resolves once the first POST is held. */
  inFlight: Promise<void>;
  /** How many POSTs have arrived so far. */
  readonly held: number;
  release(): void;
  /** Releases what is held, closes the proxy and writes the config again with the settings it was given. */
  close(): Promise<void>;
}

/**
 * Points the ledger's reseller (long timeouts, `settings` kept) at a proxy that holds every purchase POST until
 * `release()`; other requests pass.
 */
export async function holdPurchasePosts(
  ledger: Ledger,
  sandbox: Sandbox,
  settings: Record<string, unknown> = {},
): Promise<HeldPosts> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  let sent!: () => void;
  const inFlight = new Promise<void>((resolve) => {
    sent = resolve;
  });
  const proxy = await resellerProxy(
    sandbox.resellerUrl,
    () => undefined,
    async (request) => {
      if (request.method !== "POST") return;
      held++;
      sent();
      await released;
    },
  );
  const reseller = sandboxSettings(sandbox).reseller as Record<string, unknown>;
  ledger.rewrite({
    ...settings,
    reseller: { ...reseller, base_url: proxy.url, timeout: { connect: "1s", headers: "60s", body: "60s" } },
  });
  return {
    inFlight,
    get held() {
      return held;
    },
    release,
    async close() {
      release();
      await proxy.close();
      ledger.rewrite(settings);
    },
  };
}
