// Approvals: tiers by amount, distinct approvers who are not the author, keys the config names, signatures over
// the digest that `apply` checks again; a rejection ends a plan.
import { execFileSync } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PurchasePlan } from "../../src/plans/document.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { approverKey, type Ledger, mtnPhones, openLedgerFor, readJson } from "./helpers.js";

const posts = (sandbox: Sandbox) => sandbox.requests().filter((r) => r.method === "POST").length;

describe("approvals", { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;
  const keys: Record<string, { file: string; publicKey: string }> = {};
  let settings: Record<string, unknown>;
  let fire = 0;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 14 });
    ledger = await openLedgerFor("postgres", sandbox, {});
    for (const name of ["ada", "bola", "cara"]) {
      const { key, publicKey } = await approverKey(ledger.dir, name);
      expect(statSync(key).mode & 0o777).toBe(0o600);
      keys[name] = { file: key, publicKey };
    }
    settings = {
      purchases: [
        { name: "three", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(3, 600) },
        { name: "five", plan: { network: "MTN", plan_id: "102" }, recipients: mtnPhones(5, 610) },
      ],
      approvals: {
        rules: [
          { above: "500.00", approvals: 1 },
          { above: "1000.00", approvals: 2 },
        ],
        approvers: Object.fromEntries(Object.entries(keys).map(([name, k]) => [name, k.publicKey])),
      },
    };
    ledger.rewrite(settings);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });
  beforeEach(() => sandbox.reset());

  /**
   * Saves a plan of the job's next test fire: by the operating system's account, by an approver proven by their key,
   * or (`claim`) under a name `--as` gives without a key.
   */
  async function save(
    job: string,
    author?: string,
    how: "signed" | "claim" = "signed",
  ): Promise<{ file: string; plan: PurchasePlan; stdout: string }> {
    fire++;
    const file = join(ledger.dir, `${job}-${fire}.plan`);
    const fireTime = `2026-05-${String(fire).padStart(2, "0")}T08:00:00Z`;
    const as = author === undefined ? [] : ["--as", author];
    const key = author !== undefined && how === "signed" ? ["--key", keys[author]!.file] : [];
    const saved = await ledger.cli([
      "purchases",
      "plan",
      "--job",
      job,
      "--fire-time",
      fireTime,
      "--save",
      file,
      ...as,
      ...key,
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    return { file, plan: readJson<PurchasePlan>(file), stdout: saved.stdout };
  }
  const approve = (file: string, as: string, key = keys[as]!.file) =>
    ledger.cli(["approve", file, "--as", as, "--key", key]);

  it("refuses an apply without approval, and an approval by the author or with another's key", async () => {
    const { file, plan } = await save("three", "ada");
    expect(plan.approvals_required).toBe(1);
    const unapproved = await ledger.cli(["apply", file]);
    expect(unapproved.code).toBe(1);
    expect(unapproved.stderr).toContain(`plan ${plan.plan_id} needs 1 distinct approval, has 0`);
    const byAuthor = await approve(file, "ada");
    expect(byAuthor.code).toBe(1);
    expect(byAuthor.stderr).toContain("an author cannot approve their own plan");
    const wrongKey = await approve(file, "bola", keys.cara!.file);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain("the key given is not bola's");
    expect(posts(sandbox)).toBe(0);

    const approved = await approve(file, "bola");
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain("1 of 1 distinct approvals; it is approved and can be applied");
    // The file carries the approval, signed over the digest.
    const carried = readJson<PurchasePlan>(file).approvals;
    expect(carried).toEqual([
      expect.objectContaining({ approver: "bola", decision: "approve", digest: plan.digest }),
    ]);
    const [row] = await ledger.query<{ status: string; reserved: string }>(
      sql`select status, reserved::text as reserved from saved_plans where id = ${plan.plan_id}`,
    );
    expect(row).toEqual({ status: "approved", reserved: "915.00" });
    // The dry-run report says what of today's committed budget is the approved plan's reservation.
    const report = await ledger.cli(["plan"]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(
      "Committed today includes NGN 915.00 reserved by approved plans not yet applied (under Approvals)",
    );
    const applied = await ledger.cli(["apply", file]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(3);
  });

  it("a two-tier rule needs two distinct approvers; one approver counts once", async () => {
    const { file, plan } = await save("five");
    expect(plan.approvals_required).toBe(2);
    expect((await approve(file, "bola")).stdout).toContain("1 of 2 distinct approvals");
    const twice = await approve(file, "bola");
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("bola has decided on plan");
    const short = await ledger.cli(["apply", file]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("needs 2 distinct approvals, has 1 (bola)");
    expect(posts(sandbox)).toBe(0);
    const second = await approve(file, "cara");
    expect(second.stdout).toContain("2 of 2 distinct approvals; it is approved");
    const applied = await ledger.cli(["apply", file]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sandbox.debits()).toHaveLength(5);
  });

  it("an approval of other items is void, and apply checks every signature against the config's keys", async () => {
    const first = await save("three");
    const other = await save("three");
    expect((await approve(first.file, "bola")).code).toBe(0);
    // bola's approval of the first plan copied into the second plan's file: signed over other items.
    const copied = readJson<PurchasePlan>(first.file).approvals;
    writeFileSync(other.file, JSON.stringify({ ...readJson<PurchasePlan>(other.file), approvals: copied }));
    const forged = await ledger.cli(["apply", other.file]);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain("needs 1 distinct approval, has 0; void: bola approved other items");

    // bola's key is no longer the config's: the ledger's approval no longer counts.
    const stranger = {
      ...settings,
      approvals: {
        ...(settings.approvals as object),
        approvers: {
          ada: keys.ada!.publicKey,
          bola: `ed25519:${Buffer.alloc(32, 9).toString("base64")}`,
          cara: keys.cara!.publicKey,
        },
      },
    };
    ledger.rewrite(stranger);
    const revoked = await ledger.cli(["apply", first.file]);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain("bola's signature does not verify with the key in approvals.approvers");
    expect(posts(sandbox)).toBe(0);
    ledger.rewrite(settings);
  });

  it("one key named as two approvers is refused: one person cannot be two distinct approvals", async () => {
    const { file } = await save("three");
    ledger.rewrite({
      ...settings,
      approvals: {
        ...(settings.approvals as Record<string, unknown>),
        approvers: { ada: keys.ada!.publicKey, bola: keys.bola!.publicKey, ada2: keys.ada!.publicKey },
      },
    });
    try {
      const checked = await ledger.cli(["config", "check"]);
      expect(checked.code).toBe(78);
      expect(checked.stderr).toContain("approvals.approvers.ada2");
      expect(checked.stderr).toContain("the same public key as approvals.approvers.ada");
      // Nothing runs on such a config: no plan is approved twice by ada under two names.
      expect((await ledger.cli(["approve", file, "--as", "ada2", "--key", keys.ada!.file])).code).toBe(78);
    } finally {
      ledger.rewrite(settings);
    }
  });

  it("a rejection ends the plan", async () => {
    const { file, plan } = await save("three");
    const missing = await ledger.cli(["reject", file, "--as", "cara", "--key", keys.cara!.file]);
    expect(missing.code).toBe(64);
    const rejected = await ledger.cli([
      "reject",
      file,
      "--as",
      "cara",
      "--key",
      keys.cara!.file,
      "--reason",
      "not this month",
    ]);
    expect(rejected.code, rejected.stderr).toBe(0);
    const apply = await ledger.cli(["apply", file]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`plan ${plan.plan_id} was rejected: rejected by cara: not this month`);
    const late = await approve(file, "bola");
    expect(late.code).toBe(1);
    expect(late.stderr).toContain("is rejected");
    expect(readJson<PurchasePlan>(file).approvals.map((a) => a.decision)).toEqual(["reject"]);
    expect(posts(sandbox)).toBe(0);
  });

  it("a rejection says what the ledger did: a plan that moved meanwhile is not called rejected", async () => {
    // An apply starts at the moment the rejection's decision is written (an approved plan becomes applying).
    const raced = await save("three");
    expect((await approve(raced.file, "ada")).code).toBe(0);
    await ledger.query(sql`create or replace function apply_starts() returns trigger language plpgsql as $$
      begin
        update saved_plans set status = 'applying' where id = new.plan_id and status = 'approved';
        return new;
      end $$`);
    await ledger.query(sql`create trigger apply_starts after insert on plan_approvals for each row
      when (new.decision = 'reject') execute function apply_starts()`);
    try {
      const said = await ledger.cli([
        "reject",
        raced.file,
        "--as",
        "cara",
        "--key",
        keys.cara!.file,
        "--reason",
        "no",
      ]);
      const [row] = await ledger.query<{ status: string; rejects: number }>(
        sql`select status, (select count(*)::int from plan_approvals a where a.plan_id = s.id
              and a.decision = 'reject') as rejects from saved_plans s where id = ${raced.plan.plan_id}`,
      );
      if (said.code === 0) {
        expect(said.stdout).toContain(`plan ${raced.plan.plan_id} rejected by cara`);
        expect(row).toEqual({ status: "rejected", rejects: 1 });
      } else {
        expect(said.stderr).toContain("nothing was rejected");
        expect(row).toEqual({ status: "applying", rejects: 0 });
      }
    } finally {
      await ledger.query(sql`drop trigger apply_starts on plan_approvals`);
    }

    // The ledger takes the plan out of the rejection's reach at the last moment (as an apply that took it first).
    const taken = await save("three");
    expect((await approve(taken.file, "ada")).code).toBe(0);
    await ledger.query(sql`create or replace function taken_first() returns trigger language plpgsql as $$
      begin
        if new.status = 'rejected' then return null; end if;
        return new;
      end $$`);
    await ledger.query(
      sql`create trigger taken_first before update on saved_plans for each row execute function taken_first()`,
    );
    try {
      const said = await ledger.cli([
        "reject",
        taken.file,
        "--as",
        "cara",
        "--key",
        keys.cara!.file,
        "--reason",
        "no",
      ]);
      expect(said.code).toBe(1);
      expect(said.stderr).toContain(`plan ${taken.plan.plan_id} is approved now; nothing was rejected`);
      const [row] = await ledger.query<{ status: string; rejects: number }>(
        sql`select status, (select count(*)::int from plan_approvals a where a.plan_id = s.id
              and a.decision = 'reject') as rejects from saved_plans s where id = ${taken.plan.plan_id}`,
      );
      expect(row).toEqual({ status: "approved", rejects: 0 });
      expect(readJson<PurchasePlan>(taken.file).approvals.map((a) => a.decision)).toEqual(["approve"]);
    } finally {
      await ledger.query(sql`drop trigger taken_first on saved_plans`);
    }
    expect(posts(sandbox)).toBe(0);
  });

  it("a rejection carried in a file counts only when it is signed: the author's forged one is void", async () => {
    const { file, plan } = await save("three", "ada");
    expect((await approve(file, "bola")).code).toBe(0);
    const forged = join(ledger.dir, "forged-reject.plan");
    const approvals = [
      ...readJson<PurchasePlan>(file).approvals,
      {
        approver: "ada",
        decision: "reject",
        digest: plan.digest,
        signature: Buffer.alloc(64).toString("base64"),
        at: new Date().toISOString(),
        reason: "forged",
      },
    ];
    writeFileSync(forged, JSON.stringify({ ...readJson<PurchasePlan>(file), approvals }));
    const shown = await ledger.cli(["show", forged]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("void: not signed by this approver's key over this plan");
    const applied = await ledger.cli(["apply", forged]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`plan ${plan.plan_id} is applied`);

    // The author may still withdraw their own plan, with their key.
    const own = await save("three", "ada");
    const withdrawn = await ledger.cli([
      "reject",
      own.file,
      "--as",
      "ada",
      "--key",
      keys.ada!.file,
      "--reason",
      "mine, wrong",
    ]);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect((await ledger.cli(["apply", own.file])).stderr).toContain("was rejected: rejected by ada");
  });

  it("a --key that is not a key file (a FIFO, a folder) is refused at once, with exit 64", async () => {
    const { file } = await save("three");
    const fifo = join(ledger.dir, "key.fifo");
    execFileSync("mkfifo", [fifo]);
    // Without a writer, reading a FIFO waited for ever (and reading /dev/zero filled memory until the process died:
    // not tried here, since a regression would take the machine's memory with it).
    for (const key of [fifo, ledger.dir]) {
      const result = await ledger.cli(["approve", file, "--as", "bola", "--key", key]);
      expect(result.code, `${key}: ${result.stderr}`).toBe(64);
      expect(result.stderr).toContain(`cannot read the private key ${key}: it is`);
    }
    expect((await approve(file, "bola")).code).toBe(0);
  });

  it("an author named with --as and no key needs one approval more: an approver cannot save as another and approve", async () => {
    // ada saves under dan's name, then approves "dan's" plan herself: a claim proves nothing, so the rule's one
    // approval is two, and another approver than whoever wrote it must approve too.
    const claimed = await save("three", "dan", "claim");
    expect(claimed.plan).toMatchObject({ author: "dan", author_proof: "claimed", approvals_required: 2 });
    expect(claimed.stdout).toContain(
      'needs 2 approvals (one more than the rules ask: its author "dan" is named with --as and not signed;',
    );
    expect((await approve(claimed.file, "ada")).stdout).toContain("1 of 2 distinct approvals");
    const short = await ledger.cli(["apply", claimed.file]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(
      'needs 2 distinct approvals (one more than its rules ask: its author "dan" was named with --as and did not sign it), has 1 (ada)',
    );
    expect(posts(sandbox)).toBe(0);
    // Editing the file to say its author was proven changes nothing the ledger holds: the file is refused.
    writeFileSync(
      claimed.file,
      JSON.stringify({
        ...readJson<PurchasePlan>(claimed.file),
        author_proof: "account",
        approvals_required: 1,
      }),
    );
    const edited = await ledger.cli(["apply", claimed.file]);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('the file\'s author_proof "account" is not the recorded "claimed"');
    expect(posts(sandbox)).toBe(0);

    // Signed with ada's key, the author is ada: one approval by someone else is enough, and hers does not count.
    const signed = await save("three", "ada");
    expect(signed.plan).toMatchObject({ author: "ada", author_proof: "key", approvals_required: 1 });
    expect(signed.plan.author_signature).toEqual(expect.any(String));
    expect((await approve(signed.file, "ada")).stderr).toContain("an author cannot approve their own plan");
    expect((await approve(signed.file, "bola")).stdout).toContain(
      "1 of 1 distinct approvals; it is approved",
    );
    // Without --as, the author is the operating system's account, and the rules' count stands.
    const account = await save("three");
    expect(account.plan).toMatchObject({ author_proof: "account", approvals_required: 1 });
  });

  it("refuses a --key that does not prove the --as name, saving nothing", async () => {
    const count = async () =>
      Number((await ledger.query<{ n: string }>(sql`select count(*)::text as n from saved_plans`))[0]!.n);
    const before = await count();
    const file = join(ledger.dir, "refused.plan");
    const base = [
      "purchases",
      "plan",
      "--job",
      "three",
      "--fire-time",
      "2026-06-01T08:00:00Z",
      "--save",
      file,
    ];
    const notTheirs = await ledger.cli([...base, "--as", "bola", "--key", keys.ada!.file]);
    expect(notTheirs.code).toBe(64);
    expect(notTheirs.stderr).toContain("the key given is not bola's: approvals.approvers.bola names another");
    const notAnApprover = await ledger.cli([...base, "--as", "dan", "--key", keys.ada!.file]);
    expect(notAnApprover.code).toBe(64);
    expect(notAnApprover.stderr).toContain('"dan" is not among approvals.approvers');
    const noName = await ledger.cli([...base, "--key", keys.ada!.file]);
    expect(noName.code).toBe(64);
    expect(noName.stderr).toContain("--key needs --as NAME");
    const unreadable = join(ledger.dir, "no-such.key");
    const noFile = await ledger.cli([...base, "--as", "ada", "--key", unreadable]);
    expect(noFile.code).toBe(64);
    expect(noFile.stderr).toContain(`cannot read the private key ${unreadable}`);
    expect(await count()).toBe(before);
    expect(() => statSync(file)).toThrow();
  });

  it("a signed author whose key left approvals.approvers is no longer proven: the plan needs one approval more", async () => {
    const { file, plan } = await save("three", "cara");
    expect(plan.approvals_required).toBe(1);
    expect((await approve(file, "bola")).code).toBe(0);
    ledger.rewrite({
      ...settings,
      approvals: {
        ...(settings.approvals as Record<string, unknown>),
        approvers: { ada: keys.ada!.publicKey, bola: keys.bola!.publicKey },
      },
    });
    try {
      const short = await ledger.cli(["apply", file]);
      expect(short.code).toBe(1);
      expect(short.stderr).toContain(
        "needs 2 distinct approvals (one more than its rules ask: its author cara signed it but is no longer among approvals.approvers), has 1 (bola)",
      );
      expect(posts(sandbox)).toBe(0);
      expect((await approve(file, "ada")).stdout).toContain("2 of 2 distinct approvals");
      const applied = await ledger.cli(["apply", file]);
      expect(applied.code, applied.stderr).toBe(0);
      expect(sandbox.debits()).toHaveLength(3);
    } finally {
      ledger.rewrite(settings);
    }
  });
});
