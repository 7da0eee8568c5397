// A plan file whose header was edited by hand (its author, the approvals it says it needs, its times) though its
// items still hash to the recorded digest: `show` presents what the ledger recorded and enforces (its author, its
// time to expire), names each edit of what it checks, and `approve` and `apply` refuse the file as they refuse
// edited items.
import { writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PurchasePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { approverKey, type Ledger, mtnPhones, openLedgerFor, readJson } from "./helpers.js";

describe("a plan file with a hand-edited header", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  let key: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 43 });
    ledger = await openLedgerFor("postgres", sandbox, {});
    let publicKey: string;
    ({ key, publicKey } = await approverKey(ledger.dir, "ada"));
    ledger.rewrite({
      purchases: [
        { name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 4300) },
      ],
      approvals: {
        plan_ttl: "1h",
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

  it("is shown with the ledger's facts and each edit named, and approve and apply refuse it", async () => {
    const file = join(ledger.dir, "promo.plan");
    const saved = await ledger.cli(["purchases", "plan", "--job", "promo", "--now", "--save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    const plan = readJson<PurchasePlan>(file);
    const edited = join(ledger.dir, "edited.plan");
    writeFileSync(
      edited,
      JSON.stringify({
        ...plan,
        author: "ada",
        created_at: "2026-01-01T00:00:00.000Z",
        expires_at: "2030-01-01T00:00:00.000Z",
        approvals_required: 0,
      }),
    );

    const shown = await ledger.cli(["show", edited]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Tampered");
    expect(shown.stdout).toMatch(new RegExp(`Author +${userInfo().username}\n`));
    expect(shown.stdout).toMatch(/Expires +2026-/);
    expect(shown.stdout).not.toMatch(/Expires +2030/);
    for (const field of ["author", "approvals_required"])
      expect(shown.stdout).toContain(`the file's ${field}`);
    const json = JSON.parse((await ledger.cli(["--json", "show", edited])).stdout) as { mismatch: string[] };
    expect(json.mismatch).toHaveLength(2);

    // The author (the ledger says the account that saved it) is not ada; ada's approval of the edited file is refused all the same.
    const approved = await ledger.cli(["approve", edited, "--as", "ada", "--key", key]);
    expect(approved.code).toBe(1);
    expect(approved.stderr).toContain(`the file's author "ada" is not the recorded "${userInfo().username}"`);
    const applied = await ledger.cli(["apply", edited]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("the file's approvals_required");

    // The file as saved is approved and applied as before.
    expect((await ledger.cli(["approve", file, "--as", "ada", "--key", key])).code).toBe(0);
    const again = await ledger.cli(["apply", file]);
    expect(again.code, again.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(plan.items.length);
  });
});
