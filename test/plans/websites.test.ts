// Saved website plans: each change with the remote record it was planned against; apply does exactly those
// changes, refuses (or with --stale drop, leaves out) a change whose remote record changed since, and applies once.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebsitePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { approverKey, type Ledger, openLedgerFor, readJson } from "./helpers.js";

describe("saved website plans", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  let key: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 17 });
    sandbox.seedWebsites([
      { domain: "kept.example.com", privacy: 1 },
      { domain: "changed.example.com", privacy: 1 },
      { domain: "old.example.com", privacy: 1 },
    ]);
    ledger = await openLedgerFor("postgres", sandbox, {});
    let publicKey: string;
    ({ key, publicKey } = await approverKey(ledger.dir, "ada"));
    ledger.rewrite({
      websites: {
        prune: true,
        items: [
          { domain: "kept.example.com", privacy: "public" },
          { domain: "changed.example.com", privacy: "public" },
          { domain: "new.example.com", privacy: "private" },
        ],
      },
      approvals: { rules: [{ deletes: 1 }], approvers: { ada: publicKey } },
    });
    const imported = await ledger.cli(["websites", "import", "old.example.com"]);
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("saves each change with its remote record, and apply does exactly the changes still current", async () => {
    const file = join(ledger.dir, "sites.plan");
    const saved = await ledger.cli(["websites", "plan", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain("1 to create, 2 to update, 1 to delete");
    expect(saved.stdout).toContain("needs 1 approval");
    expect(sandbox.websiteMutations()).toHaveLength(0);
    const plan = readJson<WebsitePlan>(file);
    const changed = plan.items.find((i) => i.domain === "changed.example.com")!;
    expect(changed).toMatchObject({ action: "update", remote: { privacy: "1" }, desired: { privacy: "0" } });
    expect(plan.items.find((i) => i.action === "delete")).toMatchObject({ domain: "old.example.com" });

    const unapproved = await ledger.cli(["apply", file]);
    expect(unapproved.code).toBe(1);
    expect(unapproved.stderr).toContain("needs 1 distinct approval, has 0");
    expect((await ledger.cli(["approve", file, "--as", "ada", "--key", key])).code).toBe(0);

    // Someone changes a website by hand after the plan was made.
    const id = changed.website_id!;
    const put = await fetch(`${sandbox.analyticsUrl}/api/v1/websites/${id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${sandbox.analyticsApiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ privacy: 2, password: "hunter22" }),
    });
    expect(put.status).toBe(200);
    const byHand = sandbox.websiteMutations().length;

    const shown = await ledger.cli(["show", file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/STALE: the remote record changed since the plan: privacy "1" → "2"/);
    expect(shown.stdout).toContain("1 item stale now");
    const refused = await ledger.cli(["apply", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("1 of 4 changes are stale; nothing was changed");
    expect(refused.stderr).toMatch(
      /update changed\.example\.com: the remote record changed since the plan: privacy "1" → "2"/,
    );
    expect(sandbox.websiteMutations()).toHaveLength(byHand);

    const dropped = await ledger.cli(["apply", file, "--stale", "drop"]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain("1 created, 1 updated, 1 deleted");
    expect(dropped.stdout).toContain("left out 1 stale changes");
    const domains = sandbox.websites().map((w) => [w.domain, w.privacy]);
    expect(domains).toEqual(
      expect.arrayContaining([
        ["kept.example.com", 0],
        ["changed.example.com", 2],
        ["new.example.com", 1],
      ]),
    );
    expect(domains.find(([d]) => d === "old.example.com")).toBeUndefined();
    const after = sandbox.websiteMutations().length;
    const again = await ledger.cli(["apply", file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("was applied at");
    expect(sandbox.websiteMutations()).toHaveLength(after);
  });
});

describe("a saved website plan cut short", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 18 });
    // Seeded, so topsync never applied its exclude_params: the update sends them (a write-only value).
    sandbox.seedWebsites([{ domain: "kept.example.com", privacy: 1 }]);
    ledger = await openLedgerFor("postgres", sandbox, {});
    ledger.rewrite({
      websites: {
        defaults: { exclude_params: ["utm_source"] },
        items: [
          { domain: "kept.example.com", privacy: "public" },
          { domain: "new.example.com", privacy: "private" },
        ],
      },
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("is resumed by applying it again: the update it made is done, not stale", async () => {
    const file = join(ledger.dir, "sites.plan");
    const saved = await ledger.cli(["websites", "plan", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain("1 to create, 1 to update");
    // The create is refused (the plan limit is reached), after the update went through.
    sandbox.setOptions({ maxWebsites: 1 });
    const short = await ledger.cli(["apply", file]);
    expect(short.code).not.toBe(0);
    expect(sandbox.websites().find((w) => w.domain === "kept.example.com")?.privacy).toBe(0);
    const updates = sandbox.websiteMutations().length;

    sandbox.setOptions({ maxWebsites: 10 });
    const resumed = await ledger.cli(["apply", file]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("1 created");
    expect(resumed.stdout).not.toContain("stale");
    expect(
      sandbox
        .websiteMutations()
        .slice(updates)
        .map((m) => m.method),
    ).toEqual(["POST"]);
  });
});
