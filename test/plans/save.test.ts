// `topsync purchases plan --save`: the dry run's projection saved exactly, recorded in the ledger, and nothing else.

import { statSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PurchasePlan, planDigest } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { DB_KINDS } from "../helpers/db.js";
import { type Ledger, mtnPhones, openLedgerFor, readJson } from "./helpers.js";

describe.each(DB_KINDS)("saving a purchase plan (%s)", { timeout: 120_000 }, (kind) => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  const team = mtnPhones(5);

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 5 });
    ledger = await openLedgerFor(kind, sandbox, {
      purchases: [
        {
          name: "promo",
          plan: { network: "MTN", plan_id: "102" },
          max_price: "400.00",
          recipients: [...team, "08051110002", "08001234567"],
        },
      ],
      approvals: { rules: [{ above: "1000.00", approvals: 1 }], approvers: {} },
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("refuses a config whose rules need more approvers than it names", async () => {
    const result = await ledger.cli(["config", "check"]);
    expect(result.code).toBe(78);
    expect(result.stderr).toContain("approvals.approvers");
    expect(result.stderr).toContain("a rule needs 1 distinct approvers but none is named");
  });

  it("writes the dry run's items to a 0600 file and the ledger, buying and queueing nothing", async () => {
    ledger.rewrite({
      approvals: {
        rules: [{ above: "1000.00", approvals: 1 }],
        approvers: { ada: `ed25519:${Buffer.alloc(32, 1).toString("base64")}` },
      },
    });
    const fireTime = "2026-03-01T08:00:00.000Z";
    const dry = await ledger.cli([
      "--json",
      "purchases",
      "run",
      "--job",
      "promo",
      "--fire-time",
      fireTime,
      "--dry-run",
      "--show-phone",
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    const file = join(ledger.dir, "promo.plan");
    const saved = await ledger.cli([
      "purchases",
      "plan",
      "--job",
      "promo",
      "--fire-time",
      fireTime,
      "--save",
      file,
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toMatch(/saved plan p_\w+ to .*promo\.plan: 5 purchases for 1525\.00; 2 not bought/);
    expect(saved.stdout).toContain("needs 1 approval before");
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const plan = readJson<PurchasePlan>(file);
    expect(plan).toMatchObject({
      format_version: "1",
      kind: "purchases",
      // Without --as, the author is the operating system's account.
      author: userInfo().username,
      author_proof: "account",
      author_signature: null,
      total: "1525.00",
      approvals_required: 1,
      request: { job: "promo", fire_time: fireTime, queued: false },
    });
    expect(plan.config_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Date.parse(plan.expires_at) - Date.parse(plan.created_at)).toBe(24 * 3_600_000);
    // The dry run of the same moment, item for item.
    const projected = (JSON.parse(dry.stdout) as { items: Array<Record<string, string>> }).items;
    const bought = projected.filter((i) => i.outcome === "buy");
    expect(plan.items.map((i) => [i.request_key, i.phone, `${i.plan_id} ${i.plan_name}`, i.price])).toEqual(
      bought.map((i) => [i.request_key, i.phone, i.plan, i.amount]),
    );
    expect(plan.items.map((i) => i.phone).sort()).toEqual([...team].sort());
    expect(plan.items.every((i) => i.fire_time === fireTime && i.network_id === "1")).toBe(true);
    expect(plan.rejected.map((r) => r.code).sort()).toEqual(["invalid_phone", "wrong_network"]);

    const [row] = await ledger.query<{
      id: string;
      status: string;
      digest: string;
      total: string;
      items: number;
    }>(sql`select id, status, digest, total::text as total, items from saved_plans`);
    expect(row).toEqual({
      id: plan.plan_id,
      status: "pending_approval",
      digest: planDigest(plan),
      total: "1525.00",
      items: 5,
    });
    expect(plan.digest).toBe(row!.digest);
    // The same items with their keys in another order hash alike (the file lists them in canonical order).
    const shuffled = plan.items.map((i) =>
      Object.fromEntries(Object.entries(i).reverse()),
    ) as PurchasePlan["items"];
    expect(planDigest({ kind: "purchases", items: shuffled })).toBe(plan.digest);
    const [{ n }] = (await ledger.query<{ n: number }>(sql`select count(*)::int as n from purchases`)) as [
      { n: number },
    ];
    expect(n).toBe(0);
    expect(sandbox.requests().filter((r) => r.method !== "GET")).toHaveLength(0);
  });

  it("orders nothing into the digest: the same items in another order hash alike, a changed price does not", () => {
    const items = [
      { request_key: "b", price: "1.00" },
      { request_key: "a", price: "2.00" },
    ] as unknown as PurchasePlan["items"];
    const digest = planDigest({ kind: "purchases", items });
    expect(planDigest({ kind: "purchases", items: [...items].reverse() })).toBe(digest);
    expect(planDigest({ kind: "purchases", items: [items[0]!, { ...items[1]!, price: "2.01" }] })).not.toBe(
      digest,
    );
  });
});
