// Approvers in the console with keys of their own: a plan that needs two approvals gets both there, each signed with
// the approver's own key, and counted as `topsync approve` counts them.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type ConsoleFixture, formFields, startConsoleFixture } from "./helpers.js";

describe("console approvers with their own keys", { timeout: 120_000 }, () => {
  let f: ConsoleFixture;
  beforeAll(async () => {
    f = await startConsoleFixture({}, { ownKeys: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  async function approveAs(user: string, planId: string): Promise<number> {
    const client = new Client(f.base);
    expect((await client.login(user)).status).toBe(303);
    const page = await client.get(`/console/plans/${planId}`);
    expect(page.body, `${user} sees no approve form`).toContain('id="approve"');
    const approved = await client.post(`/console/plans/${planId}/approve`, {
      ...formFields(page.body, "approve"),
      reason: `${user} checked it`,
    });
    return approved.status;
  }

  it("two approvers each approve in the console with their own key, and the plan needing both is approved", async () => {
    // A plan whose author dan is only named (--as, no key) needs the rule's one approval and one more.
    const file = `${f.ledger.dir}/claimed.plan`;
    const saved = await f.ledger.cli([
      "--json",
      "purchases",
      "plan",
      "--job",
      "promo",
      "--fire-time",
      "2026-03-01T08:00:00Z",
      "--save",
      file,
      "--as",
      "dan",
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    const { plan_id: planId, approvals_required } = JSON.parse(saved.stdout);
    expect(approvals_required).toBe(2);

    expect(await approveAs("ada", planId)).toBe(303);
    const half = await f.ledger.query<{ status: string }>(
      sql`select status from saved_plans where id = ${planId}`,
    );
    expect(half[0]?.status).toBe("pending_approval");
    expect(await approveAs("bola", planId)).toBe(303);

    const decisions = await f.ledger.query<{ approver: string; decision: string }>(
      sql`select approver, decision from plan_approvals where plan_id = ${planId} order by approver`,
    );
    expect(decisions).toEqual([
      { approver: "ada", decision: "approve" },
      { approver: "bola", decision: "approve" },
    ]);
    // Each signature verifies with the key approvals.approvers names for its approver: apply counts both.
    const listed = JSON.parse((await f.ledger.cli(["--json", "saved", "list"])).stdout) as Array<{
      id: string;
      status: string;
      approvals: string[];
    }>;
    expect(listed.find((p) => p.id === planId)).toMatchObject({
      status: "approved",
      approvals: ["ada", "bola"],
    });
  });
});
