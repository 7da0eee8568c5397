// The catch-up plan (pure): after downtime only the latest missed fire within catch_up runs; older ones
// are skipped with a reason (a scheduled job's fires from before it first appeared are not its own: neither run nor
// recorded; a one-off `at` from before then is recorded skipped); nothing at or before the last
// recorded fire is missed again.
import { describe, expect, it } from "vitest";
import type { PurchaseJob } from "../../src/config/index.js";
import { MAX_REPORTED, planCatchUp } from "../../src/purchases/catch-up.js";
import { atExpression, firesBefore } from "../../src/time/fires.js";

const MINUTE = 60_000;
const now = new Date("2026-03-01T10:00:30.000Z");
const minutes = (from: string, to: string) => {
  const out: string[] = [];
  for (let t = Date.parse(to); t >= Date.parse(from); t -= MINUTE) out.push(new Date(t).toISOString());
  return out;
};

function job(extra: Partial<PurchaseJob>): PurchaseJob {
  return {
    name: "minutely",
    schedule: "* * * * *",
    plan: { kind: "id", network: "MTN", plan_id: "102" },
    recipients: [{ phone: "08031234567", ported: false }],
    catch_up: 10 * MINUTE,
    enabled: true,
    ...extra,
  } as PurchaseJob;
}

const input = (extra: Partial<PurchaseJob>, firstSeen: Date, lastRecorded?: Date, at = now) => ({
  job: job(extra),
  globalTimeZone: "UTC",
  now: at,
  firstSeen,
  lastRecorded,
});

describe("catch-up after downtime", () => {
  it("runs the latest missed fire and skips the rest, older than catch_up or superseded", () => {
    const plan = planCatchUp(input({}, new Date("2026-03-01T09:30:30.000Z")));
    expect(plan.run?.toISOString()).toBe("2026-03-01T10:00:00.000Z");
    const skipped = plan.skipped.map((s) => s.fireTime.toISOString());
    expect(skipped).toEqual(minutes("2026-03-01T09:31:00.000Z", "2026-03-01T09:59:00.000Z"));
    const reasons = new Map(plan.skipped.map((s) => [s.fireTime.toISOString(), s.reason]));
    expect(reasons.get("2026-03-01T09:59:00.000Z")).toBe(
      "superseded: only the latest missed fire (2026-03-01T10:00:00.000Z) runs",
    );
    expect(reasons.get("2026-03-01T09:51:00.000Z")).toContain("superseded");
    expect(reasons.get("2026-03-01T09:50:00.000Z")).toBe("missed by more than catch_up (10m)");
    expect(reasons.get("2026-03-01T09:31:00.000Z")).toBe("missed by more than catch_up (10m)");
  });

  it("does not miss again what the last run already recorded", () => {
    const plan = planCatchUp(
      input({}, new Date("2026-03-01T09:00:00.000Z"), new Date("2026-03-01T09:58:00.000Z")),
    );
    expect(plan.run?.toISOString()).toBe("2026-03-01T10:00:00.000Z");
    expect(plan.skipped.map((s) => s.fireTime.toISOString())).toEqual(["2026-03-01T09:59:00.000Z"]);
    expect(planCatchUp(input({}, new Date(0), new Date("2026-03-01T10:00:00.000Z")))).toEqual({
      skipped: [],
    });
  });

  it("never replays a new job's ticks, nor reports them missed: the fires before it first appeared were never its own", () => {
    const started = new Date("2026-03-01T10:00:30.250Z");
    // A job added a quarter of a second after its tick: not run, and no missed_fire notice for every job added.
    expect(planCatchUp(input({ schedule: "* * * * * *" }, started, undefined, started))).toEqual({
      skipped: [],
    });
    expect(planCatchUp(input({}, now))).toEqual({ skipped: [] });
  });

  it("skips everything when the latest fire is older than catch_up, and reports at most MAX_REPORTED", () => {
    const hourly = planCatchUp(
      input({ schedule: "0 * * * *", catch_up: 20_000 }, new Date("2026-03-01T06:30:00.000Z")),
    );
    expect(hourly.run).toBeUndefined();
    expect(hourly.skipped.map((s) => s.fireTime.toISOString())).toEqual([
      "2026-03-01T10:00:00.000Z",
      "2026-03-01T09:00:00.000Z",
      "2026-03-01T08:00:00.000Z",
      "2026-03-01T07:00:00.000Z",
    ]);
    expect(new Set(hourly.skipped.map((s) => s.reason))).toEqual(
      new Set(["missed by more than catch_up (20s)"]),
    );
    // with catch_up 10m, the 10:00 fire (30 s old) runs
    expect(planCatchUp(input({ schedule: "0 * * * *" }, new Date(0))).run?.toISOString()).toBe(
      "2026-03-01T10:00:00.000Z",
    );
    const secondly = planCatchUp(input({ schedule: "* * * * * *" }, new Date("2026-02-28T10:00:00.000Z")));
    expect(secondly.run?.toISOString()).toBe("2026-03-01T10:00:30.000Z");
    expect(secondly.skipped).toHaveLength(MAX_REPORTED);
    expect(secondly.skipped[0]!.fireTime.toISOString()).toBe("2026-03-01T10:00:29.000Z");
  });

  it("treats a one-off `at` job the same way", () => {
    const at = new Date("2026-03-01T09:55:00.000Z");
    expect(planCatchUp(input({ schedule: undefined, at }, new Date(0))).run).toEqual(at);
    expect(planCatchUp(input({ schedule: undefined, at, catch_up: MINUTE }, new Date(0))).skipped).toEqual([
      { fireTime: at, reason: "missed by more than catch_up (1m)" },
    ]);
    expect(planCatchUp(input({ schedule: undefined, at }, now)).skipped[0]!.reason).toContain(
      "before the job first appeared",
    );
    expect(planCatchUp(input({ schedule: undefined, at }, new Date(0), at))).toEqual({ skipped: [] });
    const later = new Date("2026-03-01T11:00:00.000Z");
    expect(planCatchUp(input({ schedule: undefined, at: later }, new Date(0)))).toEqual({ skipped: [] });
  });
});

describe("schedule helpers", () => {
  it("lists the fires before an instant, newest first, in the job's time zone", () => {
    const fires = firesBefore(
      "0 8 * * *",
      "Africa/Lagos",
      new Date("2026-03-03T07:00:00.000Z"),
      new Date("2026-02-27T00:00:00.000Z"),
      10,
    );
    expect(fires.map((f) => f.toISOString())).toEqual([
      "2026-03-02T07:00:00.000Z",
      "2026-03-01T07:00:00.000Z",
      "2026-02-28T07:00:00.000Z",
      "2026-02-27T07:00:00.000Z",
    ]);
  });

  it("writes a one-off time as a six-field UTC expression", () => {
    expect(atExpression(new Date("2026-12-01T07:05:09.250Z"))).toBe("9 5 7 1 12 *");
  });
});

describe("a pass without a daemon on a job with no fire recorded (lookBackUnrecorded: false)", () => {
  const seen = new Date("2026-02-01T00:00:00.000Z");
  it("runs the latest fire within catch_up and reports nothing older", () => {
    const plan = planCatchUp({ ...input({}, seen), lookBackUnrecorded: false });
    expect(plan).toEqual({ run: new Date("2026-03-01T10:00:00.000Z"), skipped: [] });
  });

  it("reports no past `at` beyond catch_up: an earlier pass may have bought it before fires were recorded", () => {
    const at = new Date("2026-03-01T08:00:00.000Z");
    expect(planCatchUp({ ...input({ schedule: undefined, at }, seen), lookBackUnrecorded: false })).toEqual({
      skipped: [],
    });
    // Once the job has a fire recorded, or for the daemon, it is missed.
    expect(planCatchUp(input({ schedule: undefined, at }, seen)).skipped).toHaveLength(1);
  });
});
