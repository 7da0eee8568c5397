// Spawning `topsync run` for the daemon tests: a config for it, its logs, its endpoints, and waiting for
// the ledger to reach a state (polling the database; no test asserts on timing).
import { type ChildProcess, spawn } from "node:child_process";
import { constants, hostname } from "node:os";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { type Database, openDatabase, rows } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";
import { CLI, ROOT, readableStderr } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase, SERVER_URL } from "../helpers/db.js";
import { waitFor as waitUntil } from "../helpers/wait.js";

export { freePort } from "../helpers/ports.js";

/** The compiled CLI; TOPSYNC_CLI points the tests at another build of it. */
export const DAEMON_CLI = process.env.TOPSYNC_CLI ?? CLI;

/** Daemons this test file started and that have not exited: a failed test must not leave one running. */
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
});

/** A config file for one replica: the sandbox, the database, its own port, quick verification. */
export function daemonConfig(
  sandbox: Sandbox,
  databaseUrl: string,
  port: number,
  extra: Record<string, unknown> = {},
): string {
  return writeConfigFile(sandbox, databaseUrl, {
    verification: { initial_delay: "50ms", timeout: "20s", max_interval: "200ms", horizon: "72h" },
    intake: { poll_interval: "1s", batch_size: 100 },
    server: { host: "127.0.0.1", port, shutdown_grace: "20s" },
    log: { level: "info" },
    ...extra,
  }).file;
}

export interface DaemonProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The prefix of this replica's actor in ledger events: `daemon:<host>:<pid>:`. */
  actorPrefix: string;
  stderr(): string;
  /** Resolves with the exit code (or 128 + signal number when killed). */
  exited: Promise<number>;
  get(path: string): Promise<{ status: number; body: string }>;
}

export function spawnDaemon(
  configFile: string,
  port: number,
  env: Record<string, string> = {},
): DaemonProcess {
  const child = spawn(process.execPath, [DAEMON_CLI, "-c", configFile, "run"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  running.add(child);
  const exited = new Promise<number>((resolve) => {
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
  return {
    child,
    pid: child.pid!,
    port,
    actorPrefix: `daemon:${hostname()}:${child.pid}:`,
    stderr: () => readableStderr(stderr),
    exited,
    async get(path) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: response.status, body: await response.text() };
    },
  };
}

/** Stops a daemon as an operator would (SIGTERM) and gives its exit code once it has exited. */
export async function stopDaemon(daemon: DaemonProcess): Promise<number> {
  daemon.child.kill("SIGTERM");
  return daemon.exited;
}

/** Polls until `check` gives a truthy value; fails with `what` (and the daemons' logs) otherwise. */
export function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; daemons?: DaemonProcess[] } = {},
): Promise<T> {
  return waitUntil(what, check, {
    timeoutMs: options.timeoutMs,
    context: () =>
      (options.daemons ?? []).map((d) => `--- pid ${d.pid}\n${d.stderr().slice(-4000)}`).join("\n"),
  });
}

/** Waits until /readyz answers 200. */
export async function waitReady(daemon: DaemonProcess, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `pid ${daemon.pid} to be ready`,
    async () => {
      if (daemon.child.exitCode !== null) throw new Error(`exited with ${daemon.child.exitCode}`);
      return (await daemon.get("/readyz")).status === 200;
    },
    { timeoutMs, daemons: [daemon] },
  );
}

export interface LedgerFixture {
  sandbox: Sandbox;
  url: string;
  database: Database;
}

/** A sandbox and a fresh PostgreSQL ledger for the tests of one file: made before them, dropped after. */
export function useLedger(options: SandboxOptions): LedgerFixture {
  const fixture = {} as LedgerFixture;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    fixture.sandbox = await startSandbox({ verifyLag: "reads", ...options });
    const created = await createPostgresDatabase();
    drop = created.drop;
    fixture.url = created.url;
    fixture.database = await ledgerDatabase(created.url);
  });
  afterAll(async () => {
    await fixture.database?.close();
    await drop();
    await fixture.sandbox?.close();
  });
  return fixture;
}

/** A migrated PostgreSQL database (its migrations add the intake NOTIFY trigger), and a handle on it. */
export async function ledgerDatabase(url: string): Promise<Database> {
  const database = await openDatabase({ url, maxConnections: 3 });
  await migrate(database.db);
  return database;
}

export function count(database: Database, query: ReturnType<typeof sql>): Promise<number> {
  return rows<{ n: number | string }>(database.db, query).then((r) => Number(r[0]?.n ?? 0));
}

/** `n` intake requests for MTN plan 102, phones 0803 + 7 digits from `offset`. */
export async function insertIntake(database: Database, n: number, offset = 0): Promise<string[]> {
  const phones = Array.from({ length: n }, (_, i) => `0803${String(3_000_000 + offset + i)}`);
  const payload = JSON.stringify(phones.map((phone) => ({ request_key: `crm:${phone}`, phone })));
  await database.db.execute(
    sql`insert into purchase_requests (request_key, network, plan_id, phone, requested_by)
        select request_key, 'MTN', '102', phone, 'crm' from jsonb_to_recordset(${payload}::jsonb) as v(request_key text, phone text)`,
  );
  return phones;
}

/** Makes a database refuse (or accept again) connections, dropping the ones it has. */
export async function setConnectable(databaseName: string, allow: boolean): Promise<void> {
  const admin = postgres(`${SERVER_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`alter database ${databaseName} allow_connections ${allow}`);
    if (!allow)
      await admin.unsafe(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${databaseName}' and pid <> pg_backend_pid()`,
      );
  } finally {
    await admin.end();
  }
}

/**
 * The server's sessions on a database: how many there are, and how many ran a query in the last `quietMs` or are
 * running one (a session between two queries of a loop shows as idle only for that moment).
 */
export async function sessionsOn(
  databaseName: string,
  quietMs = 0,
): Promise<{ sessions: number; recentlyBusy: number }> {
  const admin = postgres(`${SERVER_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin<{ sessions: number; recently_busy: number }[]>`
      select count(*)::int as sessions,
        (count(*) filter (where state <> 'idle' or state_change > now() - ${quietMs} * interval '1 millisecond'))::int
          as recently_busy
      from pg_stat_activity where datname = ${databaseName} and pid <> pg_backend_pid()`;
    return { sessions: found?.sessions ?? 0, recentlyBusy: found?.recently_busy ?? 0 };
  } finally {
    await admin.end();
  }
}

export function databaseName(url: string): string {
  return new URL(url).pathname.slice(1);
}
