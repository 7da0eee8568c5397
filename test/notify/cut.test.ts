// A message longer than a channel takes (Telegram's 4,096 characters, a Slack section's 3,000) is cut — never in
// the middle of a character: half an emoji is not UTF-8, and Telegram refuses such a text, so the message would be
// tried again until it was given up.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { silentLogger } from "../../src/log/logger.js";
import { Notifier } from "../../src/notify/notifier.js";
import { writeNotices } from "../../src/notify/outbox/write.js";
import { renderSlack, renderText } from "../../src/notify/templates.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { notificationsTo } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 8 });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  sandbox.receivers.reset();
  test = await openTestDatabase("postgres");
});
afterEach(() => test.drop());

const EMOJI = "\u{1F4A5}";

/** No half of a surrogate pair on its own (String#isWellFormed, which this TypeScript lib lacks). */
function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

function notice(padding: number) {
  return {
    trigger: "run_failed" as const,
    subject: "run:cut",
    episode: "stopped",
    facts: { run: "cut", job: "long", reason: `${"x".repeat(padding)}${EMOJI}${"y".repeat(5000)}` },
  };
}

/** The padding that puts the emoji's first half last in a cut to `max` UTF-16 units of what `render` makes. */
function paddingFor(render: (padding: number) => string, max: number): number {
  const at = render(0).indexOf(EMOJI);
  return max - 1 - at;
}

describe("cutting a long message", () => {
  it("never cuts a character in two for Telegram or Slack", async () => {
    const now = new Date();
    const message = (padding: number) => ({
      trigger: "run_failed" as const,
      kind: "open" as const,
      count: 1,
      total: null,
      oldest: now.toISOString(),
      newest: now.toISOString(),
      events: [{ ...notice(padding), created_at: now.toISOString() }],
    });
    const ctx = { now, secrets: [] };
    const telegram = paddingFor((p) => renderText(message(p), ctx).text, 4095);
    const slack = paddingFor((p) => {
      const blocks = renderSlack(message(p), ctx).blocks as Array<{ text?: { text: string } }>;
      return blocks[1]!.text!.text;
    }, 2899);
    for (const [channel, padding] of [
      ["ops-tg", telegram],
      ["ops-slack", slack],
    ] as const) {
      const config = testConfig(sandbox, {
        notifications: notificationsTo(sandbox, {
          rules: [{ on: ["run_failed"], to: [channel] }],
          group_wait: "0s",
        }),
      });
      await writeNotices(test.database.db, [{ ...notice(padding), subject: `run:${channel}` }]);
      const notifier = new Notifier({
        database: test.database,
        config,
        logger: silentLogger(),
        clock: systemClock,
        claimer: "test",
      });
      await notifier.flush(3000).finally(() => notifier.close());
    }
    const tg = sandbox.receivers.received("telegram");
    const sl = sandbox.receivers.received("slack");
    expect(tg).toHaveLength(1);
    expect(sl).toHaveLength(1);
    const text = (JSON.parse(tg[0]!.body) as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(wellFormed(text)).toBe(true);
    const blocks = (JSON.parse(sl[0]!.body) as { blocks: Array<{ text?: { text: string } }> }).blocks;
    for (const block of blocks) expect(wellFormed(block.text?.text ?? "")).toBe(true);
  });
});
