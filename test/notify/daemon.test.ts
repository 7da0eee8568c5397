// Two `topsync run` replicas on one PostgreSQL database deliver the outbox: one in_doubt purchase is one message
// per subscribed channel, across both replicas and a restart of one of them, and /metrics counts it.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  count,
  type DaemonProcess,
  daemonConfig,
  freePort,
  insertIntake,
  spawnDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "../daemon/helpers.js";
import { HOOK_SECRET, notificationsTo, SLACK_PATH, TG_TOKEN } from "./helpers.js";

describe("notifications from two replicas", () => {
  const fixture = useLedger({ seed: 17, faults: { endpoints: { data: { rate500After: 1 } } } });
  const replicas: DaemonProcess[] = [];
  afterAll(() => {
    for (const r of replicas) r.child.kill("SIGKILL");
  });

  it("deliver one in_doubt purchase once per subscribed channel, across a restart", {
    timeout: 180_000,
  }, async () => {
    const files: Array<{ file: string; port: number }> = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const file = daemonConfig(fixture.sandbox, fixture.url, port, {
        notifications: notificationsTo(fixture.sandbox, { group_wait: "500ms" }),
      });
      files.push({ file, port });
      replicas.push(spawnDaemon(file, port));
    }
    for (const r of replicas) await waitReady(r);
    const { receivers } = fixture.sandbox;
    const delivered = (n: number) => () =>
      receivers.received("slack").length >= n && receivers.received("webhook").length >= n;

    const phones = await insertIntake(fixture.database, 1);
    await waitFor("the first message on Slack and the webhook", delivered(1), { daemons: replicas });

    // One replica stops and starts again; a second purchase goes in_doubt once it is back, and its message
    // arriving shows both replicas have delivered since.
    const first = replicas[0]!;
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    replicas[0] = spawnDaemon(files[0]!.file, files[0]!.port);
    await waitReady(replicas[0]);
    phones.push(...(await insertIntake(fixture.database, 1, 1)));
    await waitFor("the second message", delivered(2), { daemons: replicas });
    await waitFor(
      "every delivery recorded sent",
      async () =>
        (await count(
          fixture.database,
          sql`select count(*) as n from notification_deliveries where status <> 'sent'`,
        )) === 0,
      { daemons: replicas },
    );

    expect(receivers.received("slack")).toHaveLength(2);
    expect(receivers.received("webhook")).toHaveLength(2);
    expect(receivers.received("telegram")).toHaveLength(0);
    const purchasesNamed = receivers
      .received("webhook")
      .map((r) =>
        (JSON.parse(r.body) as { events: Array<{ subject: string }> }).events.map((e) => e.subject),
      );
    expect(purchasesNamed.map((s) => s.length)).toEqual([1, 1]);
    expect(new Set(purchasesNamed.flat()).size).toBe(2);
    const deliveries = await rows<{ channel: string; n: number }>(
      fixture.database.db,
      sql`select channel, count(*)::int as n from notification_deliveries group by channel order by channel`,
    );
    expect(deliveries).toEqual([
      { channel: "audit-hook", n: 2 },
      { channel: "ops-slack", n: 2 },
    ]);

    const metrics = await Promise.all(replicas.map((r) => r.get("/metrics")));
    const sent = metrics
      .flatMap((m) => m.body.split("\n"))
      .filter((line) =>
        line.startsWith('topsync_notifications_sent_total{channel="ops-slack",trigger="in_doubt"}'),
      )
      .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(metrics[0]!.body).toMatch(/^topsync_notification_outbox_oldest_seconds 0$/m);

    // Neither the daemons' logs nor what the channels received carry a phone or a secret.
    const everything = [
      first.stderr(),
      ...replicas.map((r) => r.stderr()),
      ...receivers.requests().map((r) => `${r.body} ${JSON.stringify(r.headers)}`),
    ].join("\n");
    expect(everything).toContain("sent to ops-slack");
    for (const secret of [
      ...phones,
      fixture.sandbox.apiKey,
      fixture.sandbox.analyticsApiKey,
      HOOK_SECRET,
      TG_TOKEN,
      SLACK_PATH,
    ])
      expect(everything).not.toContain(secret);
  });
});
