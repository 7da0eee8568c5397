// Our own database session is untrusted too: connections dropped mid-run (a TCP proxy between topsync and
// PostgreSQL cuts every connection and refuses new ones for a moment) must not turn a live run's purchases into
// in_doubt or throw the provider's answers away; and an answer that arrives after a sweep moved its row is
// attached to it and settled by verification.
import { connect, createServer, type Server, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, rows } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, sweepDeadSubmitting } from "../../src/purchases/ledger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { createPostgresDatabase, SERVER_URL } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

/** A TCP proxy to PostgreSQL that can cut every connection and refuse new ones for a while. */
class CuttableProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private refuseUntil = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => {
      if (Date.now() < this.refuseUntil) return client.destroy();
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Cuts every connection and refuses new ones for `ms`. */
  blip(ms: number): void {
    this.refuseUntil = Date.now() + ms;
    for (const socket of this.sockets) socket.destroy();
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("a database blip during a run", () => {
  let sandbox: Sandbox;
  let proxy: CuttableProxy;
  let direct: Database;
  let proxied: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 9 });
    const created = await createPostgresDatabase();
    drop = created.drop;
    const server = new URL(SERVER_URL);
    proxy = new CuttableProxy({ host: server.hostname, port: Number(server.port || 5432) });
    await proxy.listen();
    const url = new URL(created.url);
    url.port = String(proxy.port);
    proxied = url.toString();
    direct = await openDatabase({ url: created.url, maxConnections: 2 });
    await migrate(direct.db);
  });
  afterAll(async () => {
    await direct.close();
    await proxy.close();
    await sandbox.close();
    await drop();
  });

  it("loses no answer and leaves nothing in_doubt; a sweep meanwhile leaves the live run's rows alone", {
    timeout: 90_000,
  }, async () => {
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 700 } } } });
    const phones = Array.from({ length: 12 }, (_, i) => `0803129${String(i).padStart(4, "0")}`);
    await insertPurchases(
      direct.db,
      phones.map((phone) => ({
        request_key: `blip:${phone}`,
        source: "buy",
        network: "MTN",
        plan_id: "101",
        phone,
      })),
      "test",
    );
    const database = await openDatabase({ url: proxied, maxConnections: 4 });
    const reseller = resellerFor(sandbox);
    const posts = () => sandbox.requests().filter((r) => r.method === "POST").length;
    try {
      // verification.timeout is shorter than the blip: an answer that arrives while the database is away is recorded
      // only once it is back, and its window counts from then, so it still has its reads (404, pending, success).
      // (Counted from the answer, every purchase answered during the blip got one read and went unverified.)
      const config = testConfig(sandbox, {
        verification: { initial_delay: "5ms", timeout: "1s", max_interval: "20ms", horizon: "72h" },
      });
      const run = executePurchases(
        { database, reseller, config, logger: silentLogger() },
        { concurrency: 12, retryWaitMs: 0 },
      );
      await waitFor("8 purchase POSTs in flight", () => posts() >= 8, { timeoutMs: 20_000 });
      proxy.blip(2500); // every session dropped, the liveness lock with it; answers arrive while it is down
      const sweeps: number[] = [];
      const sweeping = (async () => {
        const until = Date.now() + 4000;
        while (Date.now() < until) {
          sweeps.push((await sweepDeadSubmitting(direct, "other-replica")).swept);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
      const summary = await run;
      await sweeping;
      expect(sweeps.reduce((a, b) => a + b, 0)).toBe(0);
      const found = await rows<{ state: string; reference: string | null }>(
        direct.db,
        sql`select state, reference from purchases order by id`,
      );
      const why = await rows<{ actor: string; reason: string }>(
        direct.db,
        sql`select actor, reason from purchase_events where to_state = 'in_doubt' limit 3`,
      );
      expect(why).toEqual([]);
      expect(found.filter((r) => r.state === "in_doubt")).toHaveLength(0);
      expect(found.every((r) => r.reference !== null)).toBe(true);
      expect(found.map((r) => r.state).sort()).toEqual(Array(12).fill("succeeded"));
      expect(sandbox.debits()).toHaveLength(12);
      expect(summary.inDoubt).toBe(0);
      const [{ n }] = (await rows<{ n: number }>(
        direct.db,
        sql`select count(*)::int as n from purchase_events where response is not null and to_state = 'submitted'`,
      )) as [{ n: number }];
      expect(n).toBe(12); // every answer kept in the event log
    } finally {
      await reseller.close();
      await database.close();
    }
  });

  it("an answer that arrives after its row was swept to in_doubt is attached and verified", {
    timeout: 60_000,
  }, async () => {
    sandbox.reset({ faults: { endpoints: { data: { latencyMs: 600 } } } });
    await direct.db.execute(sql`truncate purchases, purchase_events`);
    await insertPurchases(
      direct.db,
      [{ request_key: "late:1", source: "buy", network: "MTN", plan_id: "101", phone: "08031300001" }],
      "test",
    );
    const reseller = resellerFor(sandbox);
    try {
      const run = executePurchases(
        { database: direct, reseller, config: testConfig(sandbox), logger: silentLogger() },
        { concurrency: 1, retryWaitMs: 0 },
      );
      await waitFor("the POST to be sent", () => sandbox.requests().some((r) => r.method === "POST"), {
        timeoutMs: 20_000,
      });
      // As a sweep that wrongly took the run for dead would have done:
      await direct.db.execute(sql`update purchases set state = 'in_doubt' where state = 'submitting'`);
      await run;
      const [row] = await rows<{ state: string; reference: string | null }>(
        direct.db,
        sql`select state, reference from purchases`,
      );
      expect(row).toMatchObject({ state: "succeeded" });
      expect(row!.reference).not.toBeNull();
      const events = await rows<{ from_state: string | null; to_state: string }>(
        direct.db,
        sql`select from_state, to_state from purchase_events order by id`,
      );
      expect(events.map((e) => `${e.from_state ?? "-"}→${e.to_state}`)).toEqual([
        "-→queued",
        "queued→submitting",
        "in_doubt→submitted",
        "submitted→succeeded",
      ]);
      expect(sandbox.debits()).toHaveLength(1);
    } finally {
      await reseller.close();
    }
  });
});
