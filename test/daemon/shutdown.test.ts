// Graceful shutdown: SIGTERM (or SIGINT, or SIGHUP) in the middle of buying stops claiming, lets the calls in flight
// finish and be recorded, and exits 0 with nothing in submitting; a second signal exits at once.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, rows } from "../../src/db/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { createPostgresDatabase } from "../helpers/db.js";
import {
  daemonConfig,
  freePort,
  insertIntake,
  ledgerDatabase,
  spawnDaemon,
  waitFor,
  waitReady,
} from "./helpers.js";

describe("stopping topsync run", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 6 });
  });
  afterAll(() => sandbox.close());

  async function withDatabase(body: (database: Database, url: string) => Promise<void>): Promise<void> {
    const created = await createPostgresDatabase();
    const database = await ledgerDatabase(created.url);
    try {
      await body(database, created.url);
    } finally {
      await database.close();
      await created.drop();
    }
  }

  /** A daemon buying `intake` requests at 400 ms a call, sent `signal` once a call is in flight: it exits 0. */
  async function stopMidRun(database: Database, url: string, intake: number, signal: NodeJS.Signals) {
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 400 } } } });
    const port = await freePort();
    const daemon = spawnDaemon(daemonConfig(sandbox, url, port), port);
    await waitReady(daemon);
    await insertIntake(database, intake);
    await waitFor("purchases in flight", () => sandbox.requests().some((r) => r.path.endsWith("/data")), {
      daemons: [daemon],
    });
    daemon.child.kill(signal);
    expect(await daemon.exited).toBe(0);
    return daemon;
  }

  it(
    "SIGTERM mid-run: calls in flight finish, nothing is left in submitting, exit 0",
    { timeout: 120_000 },
    () =>
      withDatabase(async (database, url) => {
        const daemon = await stopMidRun(database, url, 300, "SIGTERM");
        expect(daemon.stderr()).toContain("stopped cleanly");

        const ledger = await rows<{ state: string; reference: string | null; phone: string }>(
          database.db,
          sql`select state, reference, phone from purchases`,
        );
        // intake stopped too: whatever it had not moved is still pending for the next start
        const [pending] = await rows<{ n: string }>(
          database.db,
          sql`select count(*) as n from purchase_requests where processed_at is null`,
        );
        expect(ledger.length + Number(pending!.n)).toBe(300);
        const states = (state: string) => ledger.filter((r) => r.state === state).length;
        expect(states("submitting")).toBe(0);
        expect(states("in_doubt")).toBe(0);
        // it stopped claiming: most of the queue is still there, untouched
        expect(states("queued")).toBeGreaterThan(0);
        // every call that was made is recorded: one debit per purchase with a reference, and no other
        const debits = sandbox.debits();
        const references = ledger.filter((r) => r.reference !== null).map((r) => r.reference);
        expect(debits.length).toBeGreaterThan(0);
        expect(new Set(debits.map((d) => d.reference))).toEqual(new Set(references));
        expect(debits).toHaveLength(references.length);
      }),
  );

  it(
    "SIGHUP (a closed terminal, or a reload out of habit) stops it as gently as SIGTERM, not at once",
    { timeout: 120_000 },
    () =>
      withDatabase(async (database, url) => {
        const daemon = await stopMidRun(database, url, 100, "SIGHUP");
        expect(daemon.stderr()).toContain("SIGHUP: stopping");
        expect(daemon.stderr()).toContain("does not reload its config");
        expect(daemon.stderr()).toContain("stopped cleanly");
        const [left] = await rows<{ n: string }>(
          database.db,
          sql`select count(*) as n from purchases where state in ('submitting', 'in_doubt')`,
        );
        expect(Number(left!.n)).toBe(0);
        const [recorded] = await rows<{ n: string }>(
          database.db,
          sql`select count(*) as n from purchases where reference is not null`,
        );
        expect(sandbox.debits()).toHaveLength(Number(recorded!.n));
      }),
  );

  it("a second signal exits at once, without waiting for the grace period", { timeout: 120_000 }, () =>
    withDatabase(async (database, url) => {
      sandbox.reset({ faults: { endpoints: { data: { latencyMs: 10_000 } } } });
      const port = await freePort();
      const daemon = spawnDaemon(
        daemonConfig(sandbox, url, port, {
          reseller: {
            base_url: sandbox.resellerUrl,
            api_key: sandbox.apiKey,
            timeout: { connect: "1s", headers: "30s", body: "30s" },
            rate_limit: 10_000,
          },
          server: { host: "127.0.0.1", port, shutdown_grace: "5m" },
        }),
        port,
      );
      await waitReady(daemon);
      await insertIntake(database, 5);
      await waitFor("a purchase in flight", () => sandbox.requests().some((r) => r.path.endsWith("/data")), {
        daemons: [daemon],
      });
      daemon.child.kill("SIGTERM");
      await waitFor("the first signal to be taken", () =>
        daemon.stderr().includes("stopping: no new claims"),
      );
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(143);
      expect(daemon.stderr()).toContain("SIGTERM again: exiting now");
    }),
  );
});
