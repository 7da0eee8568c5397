// `npm start`'s demo tours saved plans: saved, shown, refused without approval, approved with a demo key, refused
// while stale, applied, and applied again buying nothing. Run in an empty folder without -c (a global install tried
// anywhere), it runs on the example config the package comes with and says so.
// Each of its steps opens the ledger, as the command it shows does: all on one embedded database.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers/cli.js";

describe("the demo", () => {
  it("saves a plan, is refused without approval, approves it, applies it once", {
    timeout: 120_000,
  }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), "topsync-demo-"));
    const result = await runCli(["demo"], {}, cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `no ./config.yaml here: the demo runs on the example config topsync comes with, ${join(ROOT, "config.yaml")}`,
    );
    const tour = result.stdout.slice(result.stdout.indexOf("== saved plans"));
    const steps = [
      /saved plan (p_\w+) to .*promo\.plan: 5 purchases for 1525\.00/,
      /Waiting for approval: 0 of 1 distinct approvals\./,
      /apply refused: plan p_\w+ needs 1 distinct approval, has 0/,
      /approved by ada: 1 of 1 distinct approvals/,
      /apply refused: 5 of 5 items are stale; nothing was bought/,
      /price_rose: price rose from 305\.00 to 350\.00/,
      /5 claimed, 5 succeeded/,
      /\(5 debits at the sandbox\)/,
      /was applied at .*; nothing was bought again/,
      /\(0 debits at the sandbox: a plan applies once\)/,
    ];
    let at = 0;
    for (const step of steps) {
      const found = step.exec(tour.slice(at));
      expect(found, `${step} after position ${at}`).not.toBeNull();
      at += found!.index + found![0].length;
    }
    // Its closing plan reads the websites it applied from the same ledger (each command of the demo opens the
    // ledger; two instances of the embedded database on one folder did not see each other's writes).
    const plan = result.stdout.slice(result.stdout.indexOf("== plan: what topsync would buy"));
    expect(plan).toMatch(/websites +0 to create, 0 to update, 0 to delete, 3 unchanged\./);
    // What waits in the outbox is said once at the end, though its steps opened the ledger more than once.
    expect(result.stderr.match(/from this command waits? in the outbox/g)).toHaveLength(1);
  });
});
