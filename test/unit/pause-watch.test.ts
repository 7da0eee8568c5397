// A run's watch over pause_on, on its own: what pauses a job (unknown outcomes in a row, a refused key, no answer
// for long enough) and what never does (a purchase the provider refused, one bad phone), and the cap that keeps a
// job from sending more purchases than the unknowns it may still take.
import { describe, expect, it } from "vitest";
import type { PurchaseJob } from "../../src/config/index.js";
import type { PurchaseOutcome } from "../../src/purchases/outcome.js";
import { PauseWatch } from "../../src/purchases/pause-watch.js";

const unknown: PurchaseOutcome = { kind: "in_doubt", why: "HTTP_SERVER_ERROR: HTTP 500" };
const refused: PurchaseOutcome = { kind: "failed", message: "HTTP 422: invalid phone", stopRun: false };
const bought: PurchaseOutcome = { kind: "submitted", reference: "R1" };
const badKey: PurchaseOutcome = {
  kind: "failed",
  message: "the service refused the API key (HTTP 401)",
  stopRun: true,
};
const notSent: PurchaseOutcome = { kind: "retry", why: "not sent: connection refused" };

function watch(pauseOn: PurchaseJob["pause_on"], now = () => 0): PauseWatch {
  return new PauseWatch([{ name: "j", pause_on: pauseOn } as PurchaseJob], now);
}

describe("PauseWatch", () => {
  it("pauses after N unknown outcomes in a row, and an answer breaks the row", () => {
    const w = watch({ consecutive_unknown: 3, auth_failure: false, below_wallet_floor: false });
    expect(w.observe("j", 1, unknown, true)).toBeUndefined();
    expect(w.observe("j", 2, unknown, true)).toBeUndefined();
    expect(w.observe("j", 3, refused, true)).toBeUndefined();
    expect(w.observe("j", 4, bought, true)).toBeUndefined();
    expect(w.observe("j", 5, unknown, true)).toBeUndefined();
    expect(w.observe("j", 6, unknown, true)).toBeUndefined();
    const pause = w.observe("j", 7, unknown, true);
    expect(pause).toMatchObject({ job: "j", purchases: [5, 6, 7] });
    expect(pause?.cause).toContain("pause_on.consecutive_unknown: 3");
    expect(w.isPaused("j")).toBe(true);
    // told once
    expect(w.observe("j", 8, unknown, true)).toBeUndefined();
  });

  it("never pauses a job without pause_on, nor for purchases the provider refused one by one", () => {
    const w = watch({ consecutive_unknown: 1, auth_failure: true, below_wallet_floor: true });
    for (let i = 0; i < 50; i++) expect(w.observe("j", i, refused, true)).toBeUndefined();
    const other = watch(undefined);
    for (let i = 0; i < 50; i++) expect(other.observe("j", i, unknown, true)).toBeUndefined();
  });

  it("pauses on a refused key only with auth_failure", () => {
    expect(
      watch({ auth_failure: true, below_wallet_floor: false }).observe("j", 1, badKey, true)?.cause,
    ).toContain("pause_on.auth_failure");
    expect(
      watch({ auth_failure: false, below_wallet_floor: false }).observe("j", 1, badKey, true),
    ).toBeUndefined();
  });

  it("pauses when the reseller has answered nothing for provider_down", () => {
    let now = 0;
    const w = watch({ provider_down: 10_000, auth_failure: false, below_wallet_floor: false }, () => now);
    expect(w.observe("j", 1, notSent, false)).toBeUndefined();
    now = 9_000;
    expect(w.observe("j", 2, notSent, false)).toBeUndefined();
    now = 9_500;
    expect(w.observe("j", 3, bought, true)).toBeUndefined(); // an answer: the silence starts over
    now = 19_000;
    expect(w.observe("j", 4, notSent, false)).toBeUndefined();
    now = 29_000;
    expect(w.observe("j", 5, unknown, false)).toMatchObject({ purchases: [4, 5] });
  });

  it("lets no more purchases of the job go than the unknowns it may still take", async () => {
    const w = watch({ consecutive_unknown: 2, auth_failure: false, below_wallet_floor: false });
    expect(await w.admit("j")).toBe(true);
    expect(await w.admit("j")).toBe(true);
    let third: boolean | undefined;
    const waiting = w.admit("j").then((admitted) => {
      third = admitted;
    });
    await Promise.resolve();
    expect(third).toBeUndefined();
    w.observe("j", 1, unknown, true);
    w.release("j");
    await Promise.resolve();
    // one unknown so far: one place left, and the second purchase still holds it
    expect(third).toBeUndefined();
    w.observe("j", 2, unknown, true);
    w.release("j");
    await waiting;
    expect(third).toBe(false);
    expect(await w.admit("other")).toBe(true);
  });
});
