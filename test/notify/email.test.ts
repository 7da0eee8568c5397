// The email channel against a real SMTP server (smtp-server) that refuses one of a channel's recipients: the
// others got the message, so it is delivered once — not sent to them again on every retry until give_up_after.
// And against a server that never finishes its answer, a line at a time: a send ends within notifications.timeout.
import { createServer, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { Config } from "../../src/config/schema.js";
import { type Database, rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { Notifier } from "../../src/notify/notifier.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { freePort } from "../helpers/ports.js";
import { budgetHalfSpent } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
let smtp: SMTPServer;
let port: number;
const delivered: string[][] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 6 });
  test = await openTestDatabase("postgres");
  port = await freePort();
  smtp = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    onRcptTo(address, _session, callback) {
      if (address.address === "gone@example.com") {
        const error = new Error("5.1.1 mailbox unavailable") as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
      } else callback();
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        delivered.push(session.envelope.rcptTo.map((r) => r.address));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await test.drop();
  await sandbox.close();
});

/** A config whose one channel emails `to` through the server on `smtpPort`, for budget notices, without waiting. */
function emailConfig(smtpPort: number, to: string[], more: Record<string, unknown> = {}): Config {
  return testConfig(sandbox, {
    notifications: {
      channels: {
        oncall: {
          type: "email",
          smtp: `smtp://127.0.0.1:${smtpPort}`,
          from: "topsync@example.com",
          to,
          pace: "0s",
        },
      },
      rules: [{ on: ["budget"], to: ["oncall"] }],
      group_wait: "0s",
      ...more,
    },
  });
}

function notifierOn(database: Database, config: Config): Notifier {
  return new Notifier({ database, config, logger: silentLogger(), clock: systemClock, claimer: "test" });
}

describe("the email channel", () => {
  it("delivers a message once when the server refuses one recipient and takes the others", async () => {
    await budgetHalfSpent(test.database, "2026-04-01");
    const notifier = notifierOn(test.database, emailConfig(port, ["ops@example.com", "gone@example.com"]));
    try {
      await notifier.flush(3000);
    } finally {
      await notifier.close();
    }
    expect(delivered).toEqual([["ops@example.com"]]);
    const [row] = await rows<{ status: string; answer: string }>(
      test.database.db,
      sql`select status, answer from notification_deliveries`,
    );
    expect(row!.status).toBe("sent");
    expect(row!.answer).toContain("refused 1 recipient");
  });

  it("ends a send within notifications.timeout when the server answers a line at a time and never finishes", async () => {
    // Each line came within the socket's idle timeout, so nodemailer's timeouts never fired: the send, and with it
    // the notifier's round (every channel's deliveries), waited as long as the server kept talking.
    const sockets = new Set<Socket>();
    const trickle = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.write("220 slow.example ESMTP\r\n");
      socket.once("data", () => {
        const timer = setInterval(() => socket.write("250-still thinking\r\n"), 100);
        socket.on("close", () => {
          clearInterval(timer);
          sockets.delete(socket);
        });
      });
    });
    const slowPort = await freePort();
    await new Promise<void>((resolve) => trickle.listen(slowPort, "127.0.0.1", resolve));
    const slow = await openTestDatabase("postgres");
    await budgetHalfSpent(slow.database, "2026-04-02");
    const notifier = notifierOn(slow.database, emailConfig(slowPort, ["ops@example.com"], { timeout: "1s" }));
    try {
      await notifier.flush(0);
      const [row] = await rows<{ status: string; last_error: string }>(
        slow.database.db,
        sql`select status, last_error from notification_deliveries`,
      );
      expect(row!.status).toBe("pending");
      expect(row!.last_error).toMatch(/within 1000 ms/);
      // The connection the send gave up is closed, not left to the server.
      await expect.poll(() => sockets.size).toBe(0);
    } finally {
      await notifier.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => trickle.close(() => resolve()));
      await slow.drop();
    }
  });
});
