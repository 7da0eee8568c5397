// A stored provider notification is always processed: when the provider's connection closes before its 200,
// when the daemon that stored it stopped before processing it (or while processing it), and when the provider
// delivers a body again that is still `received`. Two replicas share the leftovers, each processed once.
import { createHmac } from "node:crypto";
import { connect } from "node:net";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { type Database, rows } from "../../src/db/client.js";
import { bodyHash } from "../../src/purchases/notifications.js";
import {
  type DaemonProcess,
  daemonConfig,
  freePort,
  spawnDaemon,
  stopDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "./helpers.js";
import { parsePrometheus } from "./prometheus.js";

const SECRET = "sandbox-webhook-secret";
const PATH = "/webhooks/reseller";
const sign = (body: string) => createHmac("sha256", SECRET).update(body).digest("hex");

/** A notification for a reference on no purchase: processing it records `unmatched`, with nothing to settle. */
function notification(reference: string): string {
  return JSON.stringify({
    status: "successful",
    data: {
      reference,
      phone_number: "08031234567",
      amount: "305.00",
      plan: "1GB",
      date: new Date().toISOString(),
    },
  });
}

/** A row as a receiver stores it, written here as a daemon that stopped would have left it. */
async function storeDirectly(
  database: Database,
  reference: string,
  at: { received: string; processed: string | null },
): Promise<{ id: number; body: string }> {
  const body = notification(reference);
  const [row] = await rows<{ id: number }>(
    database.db,
    sql`insert into provider_notifications (body_sha256, source, reference, status, phone, amount, plan, notified_at, body, received_at, processed_at)
        values (${bodyHash(Buffer.from(body))}, '127.0.0.1', ${reference}, 'successful', '08031234567', 305.00, '1GB',
          now(), ${body}, now() + ${at.received}::interval,
          ${at.processed === null ? null : sql`now() + ${at.processed}::interval`})
        returning id::int as id`,
  );
  return { id: row!.id, body };
}

async function outcomes(database: Database): Promise<Map<string, string>> {
  const found = await rows<{ reference: string; outcome: string }>(
    database.db,
    sql`select reference, outcome from provider_notifications`,
  );
  return new Map(found.map((r) => [r.reference, r.outcome]));
}

/** The notifications this replica processed (every outcome but `rejected`), from its /metrics. */
async function processedBy(daemon: DaemonProcess): Promise<number> {
  const seen = parsePrometheus((await daemon.get("/metrics")).body);
  return seen.samples
    .filter((s) => s.name === "topsync_notifications_total" && s.labels.outcome !== "rejected")
    .reduce((sum, s) => sum + s.value, 0);
}

describe("notifications left received by a daemon that stopped", () => {
  const ledger = useLedger({ seed: 31 });

  it("are processed by the replicas that start next, each exactly once; one being processed now is left alone", {
    timeout: 180_000,
  }, async () => {
    const { database } = ledger;
    for (let i = 0; i < 300; i++)
      await storeDirectly(database, `NEVER${i}`, { received: "-2 minutes", processed: null });
    // Claimed by a processor that stopped an hour ago: its claim has lapsed.
    for (let i = 0; i < 50; i++)
      await storeDirectly(database, `LAPSED${i}`, { received: "-2 hours", processed: "-1 hour" });
    // Claimed a moment ago: someone is processing it.
    await storeDirectly(database, "BUSY", { received: "-2 minutes", processed: "0 seconds" });

    const daemons: DaemonProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const config = daemonConfig(ledger.sandbox, ledger.url, port, {
        webhooks: { enabled: true, secret: SECRET },
      });
      daemons.push(spawnDaemon(config, port));
    }
    try {
      for (const daemon of daemons) await waitReady(daemon);
      await waitFor(
        "every leftover notification to be processed",
        async () => {
          const now = await outcomes(database);
          return [...now].every(([reference, outcome]) => reference === "BUSY" || outcome !== "received");
        },
        { daemons, timeoutMs: 90_000 },
      );
      const processed = await waitFor(
        "both replicas to count what they processed",
        async () => {
          const counts = await Promise.all(daemons.map(processedBy));
          return counts.reduce((a, b) => a + b, 0) >= 350 ? counts : undefined;
        },
        { daemons },
      );
      // 350 processed between the two replicas, none twice.
      expect(processed.reduce((a, b) => a + b, 0)).toBe(350);
      expect((await outcomes(database)).get("BUSY")).toBe("received");
    } finally {
      await Promise.all(daemons.map(stopDaemon));
    }
  });
});

describe("deliveries the receiver must not leave received", () => {
  const ledger = useLedger({ seed: 32 });

  it("a delivery whose connection closes before its answer is processed all the same", {
    timeout: 120_000,
  }, async () => {
    const { database } = ledger;
    const port = await freePort();
    const daemon = spawnDaemon(
      daemonConfig(ledger.sandbox, ledger.url, port, { webhooks: { enabled: true, secret: SECRET } }),
      port,
    );
    const admin = postgres(ledger.url, { max: 2, onnotice: () => {} });
    try {
      await waitReady(daemon);
      const body = notification("CLOSED1");
      // The store waits behind this lock while the provider's connection goes away; then the lock is released.
      await admin.begin(async (tx) => {
        await tx`lock table provider_notifications in share mode`;
        const socket = connect(port, "127.0.0.1");
        const closed = new Promise((resolve) => socket.once("close", resolve));
        socket.on("error", () => {});
        socket.write(
          `POST ${PATH} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
            `x-signature: ${sign(body)}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        await waitFor(
          "the store to wait for the lock",
          async () => {
            const [waiting] = await admin`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'
                and query ilike '%insert into provider_notifications%'`;
            return waiting!.n > 0;
          },
          { daemons: [daemon] },
        );
        // The provider gives up on the answer: it closes its side, and the daemon closes the connection.
        socket.end();
        await closed;
      });
      await waitFor("the delivery to be stored", async () => (await outcomes(database)).has("CLOSED1"), {
        daemons: [daemon],
      });
      await waitFor(
        "the notification to be processed",
        async () => {
          const outcome = (await outcomes(database)).get("CLOSED1");
          return outcome !== undefined && outcome !== "received";
        },
        { daemons: [daemon] },
      );
      expect(await waitFor("it to be counted", async () => (await processedBy(daemon)) === 1)).toBe(true);
    } finally {
      await admin.end();
      await stopDaemon(daemon);
    }
  });

  it("a body delivered again while still received (never claimed, or its claim lapsed) is processed; one processed is not again", {
    timeout: 120_000,
  }, async () => {
    const { database } = ledger;
    // Stored in what is, for the daemon's periodic pass, the future: only the delivery itself can get them done.
    const unclaimed = await storeDirectly(database, "AGAIN1", { received: "1 hour", processed: null });
    const lapsed = await storeDirectly(database, "AGAIN2", { received: "1 hour", processed: "-1 hour" });
    const port = await freePort();
    const daemon = spawnDaemon(
      daemonConfig(ledger.sandbox, ledger.url, port, { webhooks: { enabled: true, secret: SECRET } }),
      port,
    );
    const post = async (body: string) => {
      const answer = await fetch(`http://127.0.0.1:${port}${PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": sign(body) },
        body,
      });
      return { status: answer.status, body: JSON.parse(await answer.text()) as Record<string, unknown> };
    };
    try {
      await waitReady(daemon);
      for (const stored of [unclaimed, lapsed]) {
        const answer = await post(stored.body);
        expect(answer).toEqual({
          status: 200,
          body: { received: true, id: stored.id, duplicate: true },
        });
      }
      await waitFor(
        "both to be processed",
        async () => {
          const now = await outcomes(database);
          return now.get("AGAIN1") !== "received" && now.get("AGAIN2") !== "received";
        },
        { daemons: [daemon] },
      );
      await waitFor("both to be counted", async () => (await processedBy(daemon)) === 2, {
        daemons: [daemon],
      });
      // Once more: both are done, and a duplicate of a processed body is not processed again.
      expect((await post(unclaimed.body)).body).toMatchObject({ duplicate: true });
      const fresh = notification("AGAIN3");
      expect((await post(fresh)).body).toMatchObject({ duplicate: false });
      await waitFor("the new one to be counted", async () => (await processedBy(daemon)) === 3, {
        daemons: [daemon],
      });
      expect(await processedBy(daemon)).toBe(3);
    } finally {
      await stopDaemon(daemon);
    }
  });
});
