// The console while the reseller refuses every connection: a saved plan's page still shows the plan as the ledger
// recorded it, and says its items could not be checked against the live prices — not a 404 as if there were no plan;
// and a page that fails for another reason is the console's error page, not a 404 either.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type ConsoleFixture, formFields, startConsoleFixture } from "./helpers.js";

describe("the console with the reseller down", { timeout: 180_000 }, () => {
  let f: ConsoleFixture;
  beforeAll(async () => {
    f = await startConsoleFixture({}, { resellerDown: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  it("shows a saved plan from the ledger and says the live prices could not be read", async () => {
    const client = new Client(f.base);
    await client.login("ada");
    const page = await client.get(`/console/plans/${encodeURIComponent(f.planId)}`);
    expect(page.status, page.body).toBe(200);
    expect(page.body).toContain(f.planId);
    expect(page.body).toContain("pending_approval");
    expect(page.body).toMatch(/could not be checked now/);
    expect(page.body).toMatch(/refused|not_sent|could not connect|ECONNREFUSED/i);
    // The decision forms stay: approving needs no live price (apply checks them again).
    expect(page.body).toContain('id="approve"');
    // Approved here (a signature needs no live price), its page again: approved, still shown.
    const fields = formFields(page.body, "approve");
    const approved = await client.post(`/console/plans/${encodeURIComponent(f.planId)}/approve`, {
      ...fields,
      reason: "the promo list is the one marketing sent",
    });
    expect(approved.status).toBe(303);
    const after = await client.get(approved.headers.get("location")!);
    expect(after.status, after.body).toBe(200);
    expect(after.body).toContain("approved by ada");
    expect(after.body).toMatch(/could not be checked now/);
    // A plan the ledger never recorded is still no page.
    expect((await client.get("/console/plans/no-such-plan")).status).toBe(404);
  });

  it("answers a plan page whose ledger read fails with the error page, not Not found", async () => {
    // Every failure of the page once became 404 "Not found", as if the plan did not exist: here the ledger's
    // approvals cannot be read (their table renamed away for the moment).
    const client = new Client(f.base);
    await client.login("ada");
    await f.ledger.query(sql`alter table plan_approvals rename to plan_approvals_away`);
    try {
      const page = await client.get(`/console/plans/${encodeURIComponent(f.planId)}`);
      expect(page.status).toBe(500);
      expect(page.body).toContain("Something failed");
      expect(page.body).not.toContain("Not found");
    } finally {
      await f.ledger.query(sql`alter table plan_approvals_away rename to plan_approvals`);
    }
    expect((await client.get(`/console/plans/${encodeURIComponent(f.planId)}`)).status).toBe(200);
  });
});
