// A deliverer's lease over the messages it claimed: a claim of an unpaced channel takes up to 16 messages and sends
// them one after another, each within the channel's timeout — so the last of them can be sent after the lease
// taken for all of them at the claim has run out and another replica has taken and sent them. Sent once, whatever
// the order: a deliverer sends a message only while it still holds it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { Config } from "../../src/config/schema.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { Notifier } from "../../src/notify/notifier.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";
import { budgetHalfSpent, HOOK_SECRET } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
let server: Server;
const received: string[] = [];
/** Requests held unanswered (the first, or every one while `holdAll`) until their answer is called. */
let held: Array<() => void> = [];
let holdAll = false;
const notifiers: Notifier[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 3 });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  test = await openTestDatabase("postgres");
  received.length = 0;
  held = [];
  holdAll = false;
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"));
      const answer = () => res.end("ok");
      if (received.length === 1 || holdAll) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
  for (const release of held.splice(0)) release();
  for (const notifier of notifiers.splice(0)) await notifier.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await test.drop();
});

function notifier(claimer: string, timeout = "10s"): Notifier {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const config = testConfig(sandbox, {
    notifications: {
      channels: { hook: { type: "webhook", url, secret: HOOK_SECRET } },
      rules: [{ on: ["budget"], to: ["hook"] }],
      group_wait: "0s",
      timeout,
    },
  });
  return notifierWith(config, claimer);
}

/** A notifier closed after the test. */
function notifierWith(config: Config, claimer: string): Notifier {
  const made = new Notifier({
    database: test.database,
    config,
    logger: silentLogger(),
    clock: systemClock,
    claimer,
  });
  notifiers.push(made);
  return made;
}

describe("a deliverer's lease", () => {
  it("sends none of its claimed messages that another deliverer took after the lease ran out", async () => {
    await budgetHalfSpent(test.database, "2026-01-01", "2026-01-02", "2026-01-03");
    const a = notifier("replica-a");
    // A claims the three messages and sends the first; the receiver holds it (a slow answer within the timeout).
    const first = a.round();
    await waitFor("A's first send", () => held.length === 1);
    // Time passes beyond the lease of the messages A has not started yet: another replica takes and sends them.
    await test.database.all(
      sql`update notification_deliveries set lease_until = now() - interval '1 second'
          where status = 'sending' and id > (select min(id) from notification_deliveries)`,
    );
    const b = notifier("replica-b");
    await b.round();
    expect(received).toHaveLength(3);
    held.splice(0)[0]!();
    await first;
    const days = received.map(
      (body) => (JSON.parse(body) as { events: Array<{ subject: string }> }).events[0]!.subject,
    );
    expect(days.sort()).toEqual(["budget_day:2026-01-01", "budget_day:2026-01-02", "budget_day:2026-01-03"]);
    const recorded = await rows<{ status: string; n: number }>(
      test.database.db,
      sql`select status, count(*)::int as n from notification_deliveries group by status`,
    );
    expect(recorded).toEqual([{ status: "sent", n: 3 }]);
  });

  it("keeps its lease of the messages it sent until it records them", async () => {
    await budgetHalfSpent(test.database, "2026-02-01", "2026-02-02");
    // Time passing, as the leases see it.
    const minutePasses = () =>
      test.database.all(
        sql`update notification_deliveries set lease_until = lease_until - interval '70 seconds'
            where lease_until is not null`,
      );
    holdAll = true;
    const a = notifier("replica-a");
    const round = a.round();
    // Each send takes 70 s (within a 10 s timeout's lease of two minutes, or a slow receiver's answer at the end of
    // a long timeout): the first is sent, the second is in flight.
    await waitFor("A's first send", () => held.length === 1);
    await minutePasses();
    held.splice(0)[0]!();
    await waitFor("A's second send", () => held.length === 1);
    await minutePasses();
    // The first message, sent but not yet recorded, is not another replica's to send again.
    holdAll = false;
    await notifier("replica-b").round();
    held.splice(0)[0]!();
    await round;
    expect(received).toHaveLength(2);
    const recorded = await rows<{ status: string; n: number }>(
      test.database.db,
      sql`select status, count(*)::int as n from notification_deliveries group by status`,
    );
    expect(recorded).toEqual([{ status: "sent", n: 2 }]);
  });

  it("leases a message for longer than a send may take", async () => {
    await budgetHalfSpent(test.database, "2026-03-01");
    const round = notifier("replica-a", "5m").round();
    await waitFor("the send", () => held.length === 1);
    const [lease] = await rows<{ seconds: number }>(
      test.database.db,
      sql`select extract(epoch from lease_until - now())::int as seconds from notification_deliveries`,
    );
    expect(lease!.seconds).toBeGreaterThan(5 * 60);
    held.splice(0)[0]!();
    await round;
  });

  it("sends a webhook again after a timeout under the same delivery id, so the receiver can tell it has it", async () => {
    await budgetHalfSpent(test.database, "2026-06-01");
    // The receiver takes the first request whole and answers too late: the send times out and is tried again.
    const made = notifier("replica-a", "300ms");
    await waitFor("the message twice", async () => {
      await made.round();
      return received.length >= 2;
    });
    const ids = received.map((body) => (JSON.parse(body) as { id?: unknown }).id);
    expect(ids[0]).toEqual(expect.any(String));
    expect(ids[1]).toBe(ids[0]);
    const [row] = await rows<{ id: number | string }>(
      test.database.db,
      sql`select id from notification_deliveries`,
    );
    expect(ids[0]).toBe(String(row!.id));
  });

  it("keeps sending to the other channels while one channel's receiver holds a send", async () => {
    // The daemon's loop waited for every channel's sends before it claimed again: a receiver that hangs held up
    // every other channel for each of its claimed messages' timeouts (16 × 10 s for a webhook), so Slack got one
    // message in that time.
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const config = testConfig(sandbox, {
      notifications: {
        channels: {
          hook: { type: "webhook", url, secret: HOOK_SECRET },
          "ops-slack": {
            type: "slack",
            url: `${sandbox.receivers.url}/slack/T0/B0/lease-test-path`,
            pace: "50ms",
          },
        },
        rules: [{ on: ["budget"], to: ["hook", "ops-slack"] }],
        group_wait: "0s",
        timeout: "10s",
      },
    });
    sandbox.receivers.reset();
    await budgetHalfSpent(test.database, "2026-07-01", "2026-07-02", "2026-07-03");
    const made = notifierWith(config, "replica-a");
    const stop = new AbortController();
    const loop = made.run(stop.signal);
    try {
      await waitFor("the hook's first send held", () => held.length === 1);
      await waitFor("all three messages on Slack", () => sandbox.receivers.received("slack").length === 3, {
        timeoutMs: 8000,
      });
      expect(received).toHaveLength(1);
    } finally {
      for (const release of held.splice(0)) release();
      holdAll = false;
      await waitFor("the hook's three messages", () => received.length === 3);
      stop.abort();
      await loop;
    }
    const recorded = await rows<{ channel: string; status: string; n: number }>(
      test.database.db,
      sql`select channel, status, count(*)::int as n from notification_deliveries group by channel, status order by channel`,
    );
    expect(recorded).toEqual([
      { channel: "hook", status: "sent", n: 3 },
      { channel: "ops-slack", status: "sent", n: 3 },
    ]);
  });
});
