// The approval gate on the embedded database: a run above the threshold held, approved, and bought by the next run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { approverKey, type Ledger, mtnPhones, openLedgerFor } from "./helpers.js";

describe("the approval gate on PGlite", { timeout: 180_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 18 });
    ledger = await openLedgerFor("pglite", sandbox, {});
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("holds a fire above the threshold and buys exactly it once approved", async () => {
    const { key, publicKey } = await approverKey(ledger.dir, "ada");
    const recipients = mtnPhones(4, 950);
    ledger.rewrite({
      purchases: [{ name: "promo", plan: { network: "MTN", plan_id: "102" }, recipients }],
      approvals: {
        rules: [{ above: "500.00", approvals: 1 }],
        approvers: { ada: publicKey },
      },
    });
    const run = await ledger.cli(["purchases", "run", "--job", "promo", "--now"]);
    expect(run.code, run.stderr).toBe(0);
    const id = /saved plan (p_\w+)/.exec(run.stdout)![1]!;
    expect(sandbox.debits()).toHaveLength(0);
    expect((await ledger.cli(["approve", id, "--as", "ada", "--key", key])).code).toBe(0);
    const next = await ledger.cli(["purchases", "run"]);
    expect(next.code, next.stderr).toBe(0);
    expect(
      sandbox
        .debits()
        .map((d) => d.phone_number)
        .sort(),
    ).toEqual([...recipients].sort());
  });
});
