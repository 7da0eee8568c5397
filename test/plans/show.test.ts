// `show`, `saved list`, `saved show`: a plan as it stands, stale items marked with why, changing nothing.
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PurchasePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type Ledger, mtnPhones, openLedgerFor, readJson } from "./helpers.js";

describe("showing saved plans", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  const team = mtnPhones(3, 500);
  let file: string;
  let plan: PurchasePlan;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 13 });
    ledger = await openLedgerFor("postgres", sandbox, {
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: team }],
      approvals: {
        rules: [{ above: "500.00", approvals: 1 }],
        approvers: { ada: `ed25519:${Buffer.alloc(32, 7).toString("base64")}` },
      },
    });
    file = join(ledger.dir, "promo.plan");
    const saved = await ledger.cli([
      "purchases",
      "plan",
      "--job",
      "promo",
      "--now",
      "--save",
      file,
      "--as",
      "bola",
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    plan = readJson<PurchasePlan>(file);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("marks stale items with why and the approvals still needed, without refusing or buying", async () => {
    sandbox.setOptions({ planPrices: { "102": "320.00" } });
    const shown = await ledger.cli(["show", file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Saved plan ${plan.plan_id}`);
    expect(shown.stdout).toContain("Waiting for approval: 0 of 2 distinct approvals. 3 items stale now.");
    expect(shown.stdout.match(/STALE price_rose: price rose from 305\.00 to 320\.00/g)).toHaveLength(3);
    expect(shown.stdout).toContain("0803****500");
    expect(shown.stdout).not.toContain(team[0]);

    const json = await ledger.cli(["show", file, "--format", "json", "--show-phone"]);
    const value = JSON.parse(json.stdout) as {
      status: string;
      stale: Array<{ code: string; why: string }>;
      approvals: { required: number; valid: string[] };
      plan: PurchasePlan;
    };
    expect(value.status).toBe("pending_approval");
    expect(value.approvals).toMatchObject({ required: 2, valid: [] });
    // bola is named with --as and did not sign: one approval more than the rule's one.
    expect(shown.stdout).toMatch(/Author +bola \(named with --as, not signed: needs one approval more\)/);
    expect(value.stale.map((s) => s.code)).toEqual(["price_rose", "price_rose", "price_rose"]);
    expect(value.plan.items.map((i) => i.phone).sort()).toEqual([...team].sort());

    const byId = await ledger.cli(["saved", "show", plan.plan_id, "--format", "json", "--show-phone"]);
    expect(JSON.parse(byId.stdout).stale).toEqual(value.stale);
    const html = await ledger.cli(["show", file, "--format", "html"]);
    expect(html.stdout).toContain('id="table-plan-items"');
    const markdown = await ledger.cli(["show", file, "--format", "markdown"]);
    expect(markdown.stdout).toContain("| Phone |");
    expect(sandbox.requests().filter((r) => r.method !== "GET")).toHaveLength(0);
    sandbox.setOptions({ planPrices: {} });
  });

  it("lists every saved plan with its status, author, approvals, total and when", async () => {
    const listed = await ledger.cli(["--json", "saved", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id: plan.plan_id,
        kind: "purchases",
        status: "pending_approval",
        author: "bola",
        author_proof: "claimed",
        approvals: [],
        approvals_required: 2,
        total: "915.00",
        items: 3,
      }),
    ]);
    const text = await ledger.cli(["saved", "list"]);
    expect(text.stdout).toMatch(
      new RegExp(
        `${plan.plan_id}\\s+purchases\\s+pending_approval\\s+bola \\(claimed\\)\\s+0/2\\s+915\\.00\\s+3`,
      ),
    );
    // A --limit the database cannot hold is a usage error naming the flag, not an unexpected failure.
    for (const limit of ["99999999999999999999", "1e300", "0", "abc"]) {
      const refused = await ledger.cli(["saved", "list", "--limit", limit]);
      expect(refused.code, `${limit}: ${refused.stderr}`).toBe(64);
      expect(refused.stderr).toContain(`--limit must be a whole number from 1 to 1000000, got "${limit}"`);
    }
    expect((await ledger.cli(["saved", "list", "--limit", "1000000"])).code).toBe(0);
  });

  it("shows a plan past its time as expired, and a file this ledger never recorded as such", async () => {
    await ledger.query(
      sql`update saved_plans set expires_at = now() - interval '1 second' where id = ${plan.plan_id}`,
    );
    const listed = JSON.parse((await ledger.cli(["--json", "saved", "list"])).stdout) as Array<{
      status: string;
    }>;
    expect(listed[0]?.status).toBe("expired");
    const shown = await ledger.cli(["show", file]);
    expect(shown.stdout).toContain("Expired: not applied before");
    // Showing wrote nothing: the ledger still says pending_approval until a command that acts on plans runs.
    const [row] = await ledger.query<{ status: string }>(sql`select status from saved_plans`);
    expect(row?.status).toBe("pending_approval");
    const unknown = await ledger.cli(["saved", "show", "p_zzzzzzzzzzzz"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain("this ledger never recorded plan p_zzzzzzzzzzzz");
  });
});
