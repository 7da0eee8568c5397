// `topsync run` with webhooks enabled: the sandbox's signed notification for a purchase whose answer
// was lost reaches the daemon's receiver and settles the in_doubt purchase by its verify answer; a forged
// delivery is refused; both are counted in topsync_notifications_total.
import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  daemonConfig,
  freePort,
  insertIntake,
  spawnDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "./helpers.js";
import { parsePrometheus, sampleValue } from "./prometheus.js";

const SECRET = "sandbox-webhook-secret";

describe("webhooks on topsync run", () => {
  const ledger = useLedger({ seed: 21, verifyNotFoundPolls: 0, verifyPendingPolls: 0 });

  it("a lost answer ends in_doubt, the provider's notification settles it by verify; a forged one is refused", {
    timeout: 120_000,
  }, async () => {
    const { sandbox, database } = ledger;
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${port}/webhooks/reseller`;
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    sandbox.setOptions({ notifyUrl: hookUrl, notifyHold: true });
    const daemon = spawnDaemon(
      daemonConfig(sandbox, ledger.url, port, { webhooks: { enabled: true, secret: SECRET } }),
      port,
    );
    try {
      await waitReady(daemon);
      const [phone] = await insertIntake(database, 1);
      const state = async () =>
        (
          await rows<{ state: string; reference: string | null }>(
            database.db,
            sql`select state, reference from purchases where phone = ${phone!}`,
          )
        )[0];
      await waitFor("the purchase to be in_doubt", async () => (await state())?.state === "in_doubt", {
        daemons: [daemon],
      });
      sandbox.setFaults({ endpoints: {} });

      const forgedBody = JSON.stringify({ status: "successful", data: { reference: "FORGED" } });
      const forged = await fetch(hookUrl, {
        method: "POST",
        headers: { "x-signature": createHmac("sha256", "wrong").update(forgedBody).digest("hex") },
        body: forgedBody,
      });
      expect(forged.status).toBe(401);

      await sandbox.deliverNotifications();
      const settled = await waitFor(
        "the purchase to be settled",
        async () => {
          const now = await state();
          return now?.state === "succeeded" ? now : undefined;
        },
        { daemons: [daemon] },
      );
      expect(settled.reference).toBe(sandbox.debits()[0]!.reference);
      expect(sandbox.debits()).toHaveLength(1);
      const metrics = await waitFor(
        "the notification to be counted",
        async () => {
          const seen = parsePrometheus((await daemon.get("/metrics")).body);
          return sampleValue(seen, "topsync_notifications_total", { outcome: "settled" }) === 1
            ? seen
            : undefined;
        },
        { daemons: [daemon] },
      );
      expect(sampleValue(metrics, "topsync_notifications_total", { outcome: "rejected" })).toBe(1);
      const stored = await rows<{ reference: string }>(
        database.db,
        sql`select reference from provider_notifications`,
      );
      expect(stored.map((s) => s.reference)).toEqual([settled.reference]);
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exited;
    }
  });
});
