// A channel taken out of the config (or renamed) leaves its undelivered messages behind: no deliverer takes them,
// so they would wait in the outbox for ever (notify list, the stuck-outbox alert). Once give_up_after has passed
// they fail, naming why; before that a replica whose config still has the channel may deliver them.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { Config } from "../../src/config/index.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { Notifier } from "../../src/notify/notifier.js";
import { writeNotices } from "../../src/notify/outbox/write.js";
import { routeReady } from "../../src/notify/route.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { HOOK_SECRET } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 7 });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  sandbox.receivers.reset();
  test = await openTestDatabase("postgres");
});
afterEach(() => test.drop());

function configWith(channel: string, giveUpAfter: string): Config {
  return testConfig(sandbox, {
    notifications: {
      channels: {
        [channel]: { type: "webhook", url: `${sandbox.receivers.url}/hooks/${channel}`, secret: HOOK_SECRET },
      },
      rules: [{ on: ["budget"], to: [channel] }],
      group_wait: "0s",
      give_up_after: giveUpAfter,
    },
  });
}

async function deliveries(): Promise<Array<{ channel: string; status: string; last_error: string | null }>> {
  return rows(
    test.database.db,
    sql`select channel, status, last_error from notification_deliveries order by id`,
  );
}

describe("messages to a channel no longer in the config", () => {
  it("fail once give_up_after has passed, naming why, and are left to other replicas before", async () => {
    await writeNotices(test.database.db, [
      {
        trigger: "budget",
        subject: "budget_day:2026-05-01",
        episode: "50%",
        facts: { day: "2026-05-01", threshold: 50, limit: "1000.00", committed: "500.00", refused: false },
      },
    ]);
    // Routed under the old config, to old-hook; the new config names the channel new-hook.
    await routeReady(test.database, configWith("old-hook", "1h").notifications, { flush: true });
    const renamed = (giveUpAfter: string) =>
      new Notifier({
        database: test.database,
        config: configWith("new-hook", giveUpAfter),
        logger: silentLogger(),
        clock: systemClock,
        claimer: "test",
      });
    const early = renamed("1h");
    await early.flush(500).finally(() => early.close());
    expect(await deliveries()).toEqual([{ channel: "old-hook", status: "pending", last_error: null }]);
    await test.database.all(sql`update notification_deliveries set created_at = now() - interval '2 hours'`);
    const late = renamed("1h");
    await late.flush(500).finally(() => late.close());
    expect(await deliveries()).toEqual([
      {
        channel: "old-hook",
        status: "failed",
        last_error: 'no channel named "old-hook" in the config: not delivered within give_up_after',
      },
    ]);
    expect(sandbox.receivers.requests()).toEqual([]);
  });
});
