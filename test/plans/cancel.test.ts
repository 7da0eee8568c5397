// `purchases cancel` of purchases the approval gate holds: each is cancelled with the operator's reason and an
// event, the plan that holds them stays true (what it reserves against the daily budget shrinks by the cancelled
// purchase's price, before and after approval), an approval then buys only what is left, and a plan whose every
// purchase is cancelled ends `cancelled`: nothing left to approve, apply or buy.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { DB_KINDS } from "../helpers/db.js";
import { approverKey, type Ledger, mtnPhones, openLedgerFor } from "./helpers.js";

describe.each(DB_KINDS)("purchases cancel of held purchases (%s)", { timeout: 180_000 }, (kind) => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  let key: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 27 });
    ledger = await openLedgerFor(kind, sandbox, {});
    let publicKey: string;
    ({ key, publicKey } = await approverKey(ledger.dir, "ada"));
    ledger.rewrite({
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 300) }],
      approvals: {
        rules: [{ above: "500.00", approvals: 1 }],
        approvers: { ada: publicKey },
      },
    });
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(() => sandbox.reset());

  /** Holds the promo job's fire at `fire` (3 purchases at 305.00, above 500.00); returns the plan and its rows. */
  const hold = async (fire: string) => {
    const run = await ledger.cli(["purchases", "run", "--job", "promo", "--fire-time", fire]);
    expect(run.code, run.stderr).toBe(0);
    const plan = /saved plan (p_\w+)/.exec(run.stdout)![1]!;
    const ids = (
      await ledger.query<{ id: number }>(
        sql`select id::int as id from purchases where approval = ${`plan:${plan}`} order by id`,
      )
    ).map((r) => r.id);
    expect(ids).toHaveLength(3);
    return { plan, ids };
  };
  const planRow = async (id: string) =>
    (
      await ledger.query<{ status: string; reserved: string; reason: string | null }>(
        sql`select status, reserved::text as reserved, reason from saved_plans where id = ${id}`,
      )
    )[0]!;
  const purchase = async (id: number) =>
    (
      await ledger.query<{ state: string; reason: string | null }>(
        sql`select state, reason from purchases where id = ${id}`,
      )
    )[0]!;

  it("cancels a held purchase with its reason and an event; the plan reserves only what is left, and an approval buys only that", async () => {
    const { plan, ids } = await hold("2026-06-02T08:00:00Z");
    const cancel = await ledger.cli([
      "purchases",
      "cancel",
      String(ids[0]),
      "--reason",
      "customer closed the line",
    ]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(
      `purchase ${ids[0]}: held → cancelled; saved plan ${plan} (pending_approval) keeps 2 purchases`,
    );
    expect(await purchase(ids[0]!)).toMatchObject({ state: "cancelled" });
    expect((await purchase(ids[0]!)).reason).toContain("customer closed the line");
    const events = await ledger.query<{
      actor: string;
      from_state: string;
      to_state: string;
      reason: string;
    }>(
      sql`select actor, from_state, to_state, reason from purchase_events where purchase_id = ${ids[0]} and to_state = 'cancelled'`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ from_state: "held", to_state: "cancelled" });
    expect(events[0]!.actor).toMatch(/^person:/);
    expect(events[0]!.reason).toContain("customer closed the line");
    expect(events[0]!.reason).toContain(plan);

    // Approved after the cancel: the plan reserves the two purchases left, not its whole planned total.
    expect((await ledger.cli(["approve", plan, "--as", "ada", "--key", key])).code).toBe(0);
    expect(await planRow(plan)).toMatchObject({ status: "approved", reserved: "610.00" });
    // Cancelled after approval, before a run released it: the reservation shrinks again.
    const second = await ledger.cli(["--json", "purchases", "cancel", String(ids[1])]);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      id: ids[1],
      from: "held",
      to: "cancelled",
      plan: { id: plan, status: "approved", left: 1, reserved: "305.00" },
    });

    const run = await ledger.cli(["purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(1);
    expect((await purchase(ids[2]!)).state).toBe("succeeded");
    expect((await purchase(ids[0]!)).state).toBe("cancelled");
    expect((await purchase(ids[1]!)).state).toBe("cancelled");
    expect(await planRow(plan)).toMatchObject({ status: "applied", reserved: "0.00" });
  });

  it("a plan whose every held purchase is cancelled ends cancelled: it cannot be approved or applied, and no run buys it", async () => {
    const { plan, ids } = await hold("2026-06-03T08:00:00Z");
    for (const id of ids.slice(0, 2))
      expect(
        (await ledger.cli(["purchases", "cancel", String(id), "--reason", "duplicate campaign"])).code,
      ).toBe(0);
    const last = await ledger.cli(["purchases", "cancel", String(ids[2]), "--reason", "duplicate campaign"]);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain(`saved plan ${plan} is cancelled: none of its purchases is left`);
    const row = await planRow(plan);
    expect(row).toMatchObject({ status: "cancelled", reserved: "0.00" });
    expect(row.reason).toContain("every purchase it held was cancelled by hand");

    const approve = await ledger.cli(["approve", plan, "--as", "ada", "--key", key]);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain("is cancelled");
    const apply = await ledger.cli(["apply", plan]);
    expect(apply.code).toBe(1);
    expect((await ledger.cli(["purchases", "run"])).code).toBe(0);
    expect(sandbox.debits()).toHaveLength(0);
    const listed = JSON.parse((await ledger.cli(["--json", "saved", "list"])).stdout) as Array<{
      id: string;
      status: string;
    }>;
    expect(listed.find((p) => p.id === plan)?.status).toBe("cancelled");

    // A purchase already cancelled (or sent) is not cancelled again: exit 64, naming the states that can be.
    const again = await ledger.cli(["purchases", "cancel", String(ids[0])]);
    expect(again.code).toBe(64);
    expect(again.stderr).toContain("it is cancelled, and only queued or held purchases can be cancelled");
    const empty = await ledger.cli(["purchases", "cancel", String(ids[0]), "--reason", "  "]);
    expect(empty.code).toBe(64);
  });
});
