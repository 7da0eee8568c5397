// Saved plans tell their approvers: a plan that needs approval (approval_needed), one about to expire unapplied
// (approval_expiring), one that expired (plan_expired) — each once, written with the ledger's record of the plan.
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { expireOpenPlans } from "../../src/plans/expire.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type Ledger, mtnPhones, openLedgerFor } from "../plans/helpers.js";

describe("notifications of saved plans", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 8 });
    ledger = await openLedgerFor("postgres", sandbox, {
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(5) }],
      approvals: {
        rules: [{ above: "1000.00", approvals: 1 }],
        approvers: { ada: `ed25519:${Buffer.alloc(32, 1).toString("base64")}` },
      },
      notifications: {
        channels: {
          hook: { type: "webhook", url: `${sandbox.receivers.url}/hooks/plans`, secret: "plans-hook-secret" },
        },
        rules: [{ on: ["approval_needed", "approval_expiring", "plan_expired"], to: ["hook"] }],
        group_wait: "0s",
      },
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  const told = () =>
    sandbox.receivers
      .received("webhook")
      .map((r) => JSON.parse(r.body) as { trigger: string; headline: string; text: string });

  it("tells a plan that needs approval, then that it is about to expire, then that it expired, once each", async () => {
    const file = join(ledger.dir, "promo.plan");
    const saved = await ledger.cli(["purchases", "plan", "--job", "promo", "--now", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toMatch(/1 notification from this command waits in the outbox/);
    expect((await ledger.cli(["notify", "flush"])).stdout).toBe("sent 1, failed 0\n");
    expect(told()[0]).toMatchObject({
      trigger: "approval_needed",
      headline: "1 plan awaiting approval, ₦1,525",
    });
    expect(told()[0]!.text).toMatch(/plan \S+ \(purchases\) by \S+: ₦1,525, 1 approval required, expires /);

    await ledger.query(sql`update saved_plans set expires_at = now() + interval '10 minutes'`);
    await ledger.cli(["notify", "flush"]);
    await ledger.cli(["notify", "flush"]);
    expect(told().map((m) => m.headline)).toEqual([
      "1 plan awaiting approval, ₦1,525",
      "1 plan expiring before it is applied, ₦1,525",
    ]);

    await ledger.query(sql`update saved_plans set expires_at = now() - interval '1 minute'`);
    const url = (await ledger.query<{ url: string }>(sql`select current_database() as url`))[0]!.url;
    const database = await openDatabase({
      url: `${process.env.TEST_DATABASE_SERVER ?? "postgres://postgres@127.0.0.1:5432"}/${url}`,
    });
    try {
      expect(await expireOpenPlans(database.db, new Date(), "test")).toHaveLength(1);
      expect(await expireOpenPlans(database.db, new Date(), "test")).toHaveLength(0);
    } finally {
      await database.close();
    }
    await ledger.cli(["notify", "flush"]);
    expect(told().map((m) => m.trigger)).toEqual(["approval_needed", "approval_expiring", "plan_expired"]);
    expect(told()[2]!.headline).toBe("1 plan expired, ₦1,525");
  });
});

describe("a saved plan that expires with no approval rules and no purchase run", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 9 });
    ledger = await openLedgerFor("postgres", sandbox, {
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(2, 70) }],
      notifications: {
        channels: {
          hook: { type: "webhook", url: `${sandbox.receivers.url}/hooks/plans`, secret: "plans-hook-secret" },
        },
        rules: [{ on: ["plan_expired"], to: ["hook"] }],
        group_wait: "0s",
      },
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("is ended, and told, by the notifier's own look (the daemon's, or notify flush)", async () => {
    const file = join(ledger.dir, "promo.plan");
    const saved = await ledger.cli(["purchases", "plan", "--job", "promo", "--now", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    await ledger.query(sql`update saved_plans set expires_at = now() - interval '1 minute'`);
    // No purchase run, apply or approve comes: only the notifier looks.
    await ledger.cli(["notify", "flush"]);
    const told = sandbox.receivers.received("webhook").map((r) => JSON.parse(r.body) as { trigger: string });
    expect(told.map((m) => m.trigger)).toEqual(["plan_expired"]);
    const [row] = await ledger.query<{ status: string; reserved: string }>(
      sql`select status, reserved::text as reserved from saved_plans`,
    );
    expect(row).toEqual({ status: "expired", reserved: "0.00" });
  });
});
