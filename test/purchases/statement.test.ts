// `topsync purchases reconcile --statement`: a provider's export against the ledger over real HTTP and
// PostgreSQL. The report finds a debit with no ledger row, a purchase the provider does not list and an amount
// difference; `--apply` settles the in_doubt purchase a verify read proves, and nothing a verify read does not.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { type StatementLine, statementOf } from "../../src/purchases/sources/statement-csv.js";
import { applyStatement, reconcileStatement } from "../../src/purchases/statement.js";
import type { Debit } from "../../src/sandbox/records.js";
import { inert } from "../../src/text/inert.js";
import { runCli } from "../helpers/cli.js";
import { resellerFor } from "../helpers/clients.js";
import { writeConfigFile } from "../helpers/config.js";
import { resellerProxy, verifiedReference } from "../helpers/reseller-proxy.js";
import { rivalSettledByPerson, sandboxLedger } from "../helpers/sandbox-ledger.js";
import { reconcileApplied, statementOf as statementFileOf } from "../helpers/statement.js";
import { needs } from "../helpers/tools.js";
import { CHROMIUM_TOOL, DESKTOP, measureAt, PHONE } from "../report/chromium.js";

const purchase = (phone: string): NewPurchase => ({
  request_key: `stmt:${phone}`,
  source: "buy",
  network: "MTN",
  plan_id: "102",
  phone,
  ported: false,
});

describe("purchases reconcile --statement, on postgres", () => {
  // Each test starts with the sandbox reset (no debits, verify reads answered at once).
  const env = sandboxLedger(8);

  const buy = async (phones: string[]) => {
    await insertPurchases(env.test.database.db, phones.map(purchase), "test");
    await env.run();
  };
  /** Buys the phones with every purchase answer lost after the debit (a 500): each ends in_doubt. */
  const buyLosingAnswers = async (phones: string[]) => {
    await insertPurchases(env.test.database.db, phones.map(purchase), "test");
    await env.runLosingAnswers();
  };
  /** The report of a statement listing `debit` on line 2 with its phone shown as `shown`, as most exports mask it. */
  const maskedReport = (debit: Debit, shown: string) => {
    const line: StatementLine = {
      line: 2,
      reference: debit.reference,
      phone: shown,
      amount: debit.amount,
      date: new Date(debit.at),
      status: "successful",
    };
    return reconcileStatement(env.test.database.db, statementOf([line], new Date()), { file: "masked.csv" });
  };
  const state = async (phone: string) =>
    (
      await rows<{ id: number; state: string; reference: string | null }>(
        env.test.database.db,
        sql`select id::int as id, state, reference from purchases where phone = ${phone}`,
      )
    )[0]!;
  const stateAndNote = async (id: number) =>
    (
      await rows<{ state: string; note: string | null }>(
        env.test.database.db,
        sql`select state, note from purchases where id = ${id}`,
      )
    )[0]!;

  it("reports what differs, and --apply settles only what a verify read proves", async () => {
    await buy(["08031230020", "08031230021"]); // both succeeded
    await buyLosingAnswers(["08031230022", "08031230023"]); // both in_doubt
    const direct = await env.reseller.buyData({
      network_id: "1",
      plan_id: "102",
      phone_number: "08031230024",
    });
    expect(direct.accepted).toBe(true);
    const debit = (phone: string) => env.sandbox.debits().find((d) => d.phone_number === phone)!;
    const line = (phone: string, extra: { amount?: string; reference?: string } = {}) => {
      const d = debit(phone);
      return `${extra.reference ?? d.reference},${phone},"${extra.amount ?? d.amount}",${d.at},successful`;
    };
    const file = join(tmpdir(), `statement-${process.pid}-${Date.now()}.csv`);
    writeFileSync(
      file,
      [
        "Ref,Phone,Amount,Date,Status",
        line("08031230020", { amount: "1,305.00" }), // an amount difference
        // 08031230021 is not listed: a ledger purchase the provider does not have
        line("08031230022"), // resolves an in_doubt purchase
        line("08031230023", { reference: "FABRICATED0000000001" }), // a reference verify does not know
        line("08031230024"), // a debit with no ledger row
      ].join("\n"),
    );
    const config = writeConfigFile(env.sandbox, env.test.url).file;
    const columns = "reference=Ref,phone=Phone,amount=Amount,date=Date,status=Status";
    const dry = await runCli([
      "-c",
      config,
      "--json",
      "purchases",
      "reconcile",
      "--statement",
      file,
      "--columns",
      columns,
    ]);
    expect(dry.stderr).toBe("");
    const report = JSON.parse(dry.stdout);
    expect(report.dry_run).toBe(true);
    expect(report.providerOnly.map((r: { reference: string }) => r.reference)).toEqual([
      debit("08031230024").reference,
    ]);
    expect(report.ledgerOnly.map((r: { id: number }) => r.id)).toEqual([(await state("08031230021")).id]);
    expect(report.amountDifferences).toMatchObject([
      { id: (await state("08031230020")).id, ledger: "305.00", statement: "1305.00" },
    ]);
    expect(report.resolvable.map((r: { id: number }) => r.id)).toEqual([
      (await state("08031230022")).id,
      (await state("08031230023")).id,
    ]);
    expect(report.resolvable[0].phone).toBe("0803****022"); // the line's phone, masked in output
    expect((await state("08031230022")).state).toBe("in_doubt"); // dry: nothing changed

    const applied = await runCli([
      "-c",
      config,
      "--json",
      "purchases",
      "reconcile",
      "--statement",
      file,
      "--columns",
      columns,
      "--apply",
    ]);
    expect(applied.stderr).toBe("");
    expect(JSON.parse(applied.stdout).applied).toMatchObject([
      { id: (await state("08031230022")).id, result: "succeeded" },
      { id: (await state("08031230023")).id, result: "unchanged" },
    ]);
    expect(await state("08031230022")).toMatchObject({
      state: "succeeded",
      reference: debit("08031230022").reference,
    });
    expect(await state("08031230023")).toMatchObject({ state: "in_doubt", reference: null });
    const [event] = await rows<{ actor: string; reason: string }>(
      env.test.database.db,
      sql`select actor, reason from purchase_events where to_state = 'succeeded' and actor = 'statement+verify'`,
    );
    expect(event!.reason).toContain("line 3");
    expect(env.sandbox.debits()).toHaveLength(5);

    const missing = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(missing.code).toBe(65);
    expect(missing.stderr).toContain('no column "reference"');

    // The sandbox's own export, default columns: only the direct debit lacks a ledger row, and the in_doubt
    // purchase left is the one its true line resolves.
    const exported = join(tmpdir(), `export-${process.pid}-${Date.now()}.csv`);
    writeFileSync(exported, env.sandbox.statementCsv());
    const again = JSON.parse(
      (await runCli(["-c", config, "--json", "purchases", "reconcile", "--statement", exported])).stdout,
    );
    expect(again.lines, JSON.stringify(again)).toBe(5);
    expect(again.providerOnly.map((r: { reference: string }) => r.reference)).toEqual([
      debit("08031230024").reference,
    ]);
    expect(again.ledgerOnly).toEqual([]);
    expect(again.amountDifferences).toEqual([]);
    expect(again.resolvable).toMatchObject([
      { id: (await state("08031230023")).id, reference: debit("08031230023").reference },
    ]);
  });

  it("--apply does not settle in_doubt purchase A by the line of purchase B, which a person settled without its reference: A stays in_doubt, the line goes to a person", async () => {
    const phone = "08031230050";
    const ledger = () =>
      rows<{ id: number; state: string; reference: string | null }>(
        env.test.database.db,
        sql`select id::int as id, state, reference from purchases order by id`,
      );
    // A: the provider answers 500 before taking it (no debit). B: taken, its answer lost (a debit). A person settles
    // B from the provider's dashboard, without its reference.
    const as = (key: string) => ({ ...purchase(phone), request_key: `stmt:${key}` });
    const { a, b, debit, file } = await rivalSettledByPerson(env, as("A"), as("B"));
    expect(env.sandbox.debits()).toHaveLength(1);

    // The provider's statement lists B's transaction: phone and amount agree with A too.
    const statement = join(tmpdir(), `statement-ab-${process.pid}-${Date.now()}.csv`);
    writeFileSync(statement, env.sandbox.statementCsv());
    const reconcile = (...flags: string[]) =>
      runCli(["-c", file, "--json", "purchases", "reconcile", "--statement", statement, ...flags]);
    const dry = JSON.parse((await reconcile()).stdout);
    expect(dry.resolvable).toEqual([]);
    expect(dry.providerOnly.map((r: { reference: string }) => r.reference)).toEqual([debit.reference]);
    expect(dry.unmatched).toHaveLength(1);
    expect(dry.unmatched[0]).toMatchObject({ line: 2, reference: debit.reference });
    expect(dry.unmatched[0].why).toContain(
      `in_doubt purchase ${a} could be it, but so could purchase ${b} (succeeded)`,
    );

    const applied = await reconcile("--apply");
    expect(applied.stderr).toBe("");
    expect(JSON.parse(applied.stdout).applied).toEqual([]);
    expect(await ledger()).toEqual([
      { id: a, state: "in_doubt", reference: null },
      { id: b, state: "succeeded", reference: null },
    ]);
    const text = await runCli(["-c", file, "purchases", "reconcile", "--statement", statement]);
    expect(text.stdout).toContain("\nLines an in_doubt purchase could be, but not the only one\n");
    expect(env.sandbox.debits()).toHaveLength(1);
  });

  it("--apply leaves a purchase whose verify answer disagreed (verify_mismatch) to a person, whatever verify says now", async () => {
    env.sandbox.reset({ verifyNotFoundPolls: 0, verifyPendingPolls: 0, verifyLie: "phone" });
    const phone = "08031230060";
    await buy([phone]);
    const before = await state(phone);
    expect(before.state).toBe("unverified");
    // The provider's verify now names the purchase's phone; its statement lists the transaction as successful.
    env.sandbox.setOptions({ verifyLie: "none" });
    const file = writeConfigFile(env.sandbox, env.test.url).file;
    const statement = join(tmpdir(), `statement-mismatch-${process.pid}-${Date.now()}.csv`);
    writeFileSync(statement, env.sandbox.statementCsv());
    const { code, stderr, report } = await reconcileApplied<{ applied: Array<{ why: string }> }>(
      file,
      statement,
    );
    expect(code, stderr).toBe(0);
    const [entry] = report.applied;
    expect(entry).toMatchObject({ id: before.id, result: "unchanged" });
    expect(entry!.why).toContain("verify_mismatch");
    expect(await state(phone)).toMatchObject({ state: "unverified", reference: before.reference });
  });

  it("--apply makes the match again as the line shows the phone (masked): a rival bought between the report and the apply keeps the line from the in_doubt purchase", async () => {
    const [ours, rival] = ["08031230070", "08035550070"]; // both show as 0803****070
    await buyLosingAnswers([ours]);
    expect((await state(ours)).state).toBe("in_doubt");
    const debit = env.sandbox.debits().find((d) => d.phone_number === ours)!;
    const report = await maskedReport(debit, "0803****070");
    expect(report.resolvable.map((r) => r.id)).toEqual([(await state(ours)).id]);

    // Meanwhile another run buys the same plan for the rival phone and loses its answer too: the masked line
    // could now be either purchase.
    await buyLosingAnswers([rival]);
    expect((await state(rival)).state).toBe("in_doubt");

    const applied = await applyStatement(env.test.database.db, env.reseller, report, "masked.csv");
    expect(applied).toMatchObject([{ id: (await state(ours)).id, result: "unchanged" }]);
    expect(applied[0]!.why).toContain("is no longer the only purchase it can be");
    expect(applied[0]!.why).toContain("2 in_doubt purchases could be it");
    expect(await state(ours)).toMatchObject({ state: "in_doubt", reference: null });
    expect(await state(rival)).toMatchObject({ state: "in_doubt", reference: null });
  });

  it("--apply makes the match again after the verify read: a rival bought while the read was in flight keeps the line from the in_doubt purchase", async () => {
    const [ours, rival] = ["08031230090", "08035550090"]; // both show as 0803****090
    await buyLosingAnswers([ours]);
    const debit = env.sandbox.debits().find((d) => d.phone_number === ours)!;
    const report = await maskedReport(debit, "0803****090");
    expect(report.resolvable.map((r) => r.id)).toEqual([(await state(ours)).id]);
    // The verify read of the line's reference is held until another run has bought for the rival phone and lost
    // its answer.
    const proxy = await resellerProxy(
      env.sandbox.resellerUrl,
      () => undefined,
      async (request) => {
        if (!verifiedReference(request.path)) return;
        await buyLosingAnswers([rival]);
      },
    );
    const through = resellerFor({ resellerUrl: proxy.url, apiKey: env.sandbox.apiKey });
    try {
      const applied = await applyStatement(env.test.database.db, through, report, "masked.csv");
      expect((await state(rival)).state).toBe("in_doubt");
      expect(applied).toMatchObject([{ id: (await state(ours)).id, result: "unchanged" }]);
      expect(applied[0]!.why).toContain("2 in_doubt purchases could be it");
      expect(await state(ours)).toMatchObject({ state: "in_doubt", reference: null });
    } finally {
      await through.close();
      await proxy.close();
    }
  });

  it("a statement listing one purchase's reference on two lines (debited twice, or a line repeated) is not reported as agreeing: the purchase is listed for a person, once", async () => {
    await buy(["08031230080"]);
    const own = await state("08031230080");
    expect(own.state).toBe("succeeded");
    const d = env.sandbox.debits().find((x) => x.phone_number === "08031230080")!;
    const line = `${d.reference},0803****080,${d.amount},${d.at},successful`;
    const file = join(tmpdir(), `statement-twice-${process.pid}-${Date.now()}.csv`);
    writeFileSync(file, ["reference,phone,amount,date,status", line, line].join("\n"));
    const config = writeConfigFile(env.sandbox, env.test.url).file;
    const json = await runCli(["-c", config, "--json", "purchases", "reconcile", "--statement", file]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.duplicates).toEqual([{ id: own.id, reference: d.reference, lines: 2 }]);
    expect(report.totals.duplicates).toBe(1);
    const text = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(text.stdout).not.toContain("The statement and the ledger agree");
    expect(text.stdout).toContain(
      "A person should look at: 1 ledger purchase the statement lists more than once.",
    );
    expect(text.stdout).toContain("\nLedger purchases the statement lists more than once\n");
  });

  it("a line naming a purchase's reference with another phone (the provider says it delivered elsewhere) is a phone difference, not agreement", async () => {
    await buy(["08031230085", "08031230086"]);
    const [a, b] = [await state("08031230085"), await state("08031230086")];
    const debit = (phone: string) => env.sandbox.debits().find((x) => x.phone_number === phone)!;
    const [da, db] = [debit("08031230085"), debit("08031230086")];
    const file = join(tmpdir(), `statement-phone-${process.pid}-${Date.now()}.csv`);
    writeFileSync(
      file,
      [
        "reference,phone,amount,date,status",
        `${da.reference},08069990011,${da.amount},${da.at},successful`, // another number
        `${db.reference},0803****086,${db.amount},${db.at},successful`, // its own, masked: agrees
      ].join("\n"),
    );
    const config = writeConfigFile(env.sandbox, env.test.url).file;
    const json = await runCli(["-c", config, "--json", "purchases", "reconcile", "--statement", file]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.phoneDifferences).toEqual([
      { id: a.id, reference: da.reference, ledger: "0803****085", statement: "0806****011" },
    ]);
    expect(b.state).toBe("succeeded");
    const text = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(text.stdout).toContain("A person should look at: 1 phone difference.");
    expect(text.stdout).not.toContain("08069990011");
  });

  it("an unverified purchase whose line the statement repeats is resolvable once, and verified once by --apply", async () => {
    const phone = "08031230081";
    await insertPurchases(env.test.database.db, [purchase(phone)], "test");
    await env.run({
      settings: {
        verification: { initial_delay: "5ms", timeout: "1ms", max_interval: "5ms", horizon: "72h" },
      },
    });
    const own = await state(phone);
    await rows(env.test.database.db, sql`update purchases set state = 'unverified' where id = ${own.id}`);
    const d = env.sandbox.debits().find((x) => x.phone_number === phone)!;
    const line: StatementLine = {
      line: 2,
      reference: d.reference,
      phone,
      amount: d.amount,
      date: new Date(d.at),
      status: "successful",
    };
    const report = await reconcileStatement(
      env.test.database.db,
      statementOf([line, { ...line, line: 3 }], new Date()),
    );
    expect(report.resolvable.map((r) => r.id)).toEqual([own.id]);
    expect(report.totals.resolvable).toBe(1);
    expect(report.duplicates).toEqual([{ id: own.id, reference: d.reference, lines: 2 }]);
    const applied = await applyStatement(env.test.database.db, env.reseller, report, "twice.csv");
    expect(applied).toMatchObject([{ id: own.id, result: "succeeded" }]);
  });

  /** Statement cells written to act on a terminal, a markdown viewer or a browser. */
  const HOSTILE = {
    script: "<script>alert(1)</script>REF1",
    pipes: "REF2|</td></tr><tr><td>forged|row",
    ticks: "REF3`rm -rf /`\n| injected | row |\n# heading",
    markup: "REF4 **bold** [link](javascript:alert(1)) <img src=x onerror=alert(1)>",
    terminal: "REF5\u001b[2J\u001b]0;owned\u0007\u202Eright-to-left",
  };
  const csvQuote = (value: string) => `"${value.replace(/"/g, '""')}"`;

  it("--apply flags a succeeded purchase the statement lists as reversed once its verify says so too; it stays succeeded, for a person", async () => {
    await buy(["08031230049"]);
    const bought = await state("08031230049");
    expect(bought.state).toBe("succeeded");
    env.sandbox.setOptions({ notifiedPendingPolls: 1 });
    env.sandbox.reverse(bought.reference!); // verify says success for one more read, then reversed
    const debit = env.sandbox.debits().find((d) => d.reference === bought.reference)!;
    const file = statementFileOf([debit], "reversed");
    const config = writeConfigFile(env.sandbox, env.test.url).file;
    type Report = {
      statusDifferences: Array<{ id: number; state: string; statement: string }>;
      applied: Array<{ id: number; result: string; why: string }>;
    };
    const noted = () => stateAndNote(bought.id);

    const dry = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(dry.stdout).toContain("Dry run: --apply flags a succeeded purchase listed as failed or reversed");

    const lagging = await reconcileApplied<Report>(config, file);
    expect(lagging.report.statusDifferences).toEqual([
      { id: bought.id, reference: bought.reference, state: "succeeded", statement: "reversed" },
    ]);
    expect(lagging.report.applied).toEqual([
      {
        id: bought.id,
        reference: bought.reference,
        result: "unchanged",
        why: "its verify still says success: the line's reversed is not confirmed",
      },
    ]);
    expect(await noted()).toEqual({ state: "succeeded", note: null });

    const confirmed = await runCli(["-c", config, "purchases", "reconcile", "--statement", file, "--apply"]);
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toContain("1 succeeded purchase flagged reversed.");
    expect(confirmed.stdout).toMatch(
      new RegExp(`${bought.id}\\s+${bought.reference}\\s+reversed\\s+verify: reversed`),
    );
    const flagged = await noted();
    expect(flagged.state).toBe("succeeded");
    expect(flagged.note).toMatch(
      new RegExp(
        `^reversed: \\S+ lists reference ${bought.reference} as reversed, and the provider's verify now says reversed, after the purchase succeeded`,
      ),
    );
    const told = await rows<{ trigger: string; subject: string }>(
      env.test.database.db,
      sql`select trigger, subject from notification_outbox where trigger = 'reversed'`,
    );
    expect(told).toEqual([{ trigger: "reversed", subject: `purchase:${bought.id}` }]);

    const again = await reconcileApplied<Report>(config, file);
    expect(again.report.applied).toEqual([
      {
        id: bought.id,
        reference: bought.reference,
        result: "unchanged",
        why: "it is flagged reversed already",
      },
    ]);
  });

  type Applied = { id: number; reference: string; result: string; why: string };
  const committed = async () =>
    (
      await rows<{ committed: string }>(
        env.test.database.db,
        sql`select coalesce(sum(committed), 0)::text as committed from budget_days`,
      )
    )[0]!.committed;
  /** Buys the phone with the provider failing it (its verify says failed: refunded). */
  const buyFailed = async (phone: string) => {
    env.sandbox.setOptions({ failRate: 1 });
    await buy([phone]);
    env.sandbox.setOptions({ failRate: 0 });
    const bought = await state(phone);
    expect(bought.state).toBe("failed");
    return bought;
  };

  it("--apply flags a failed purchase the statement lists as successful once its verify says so too; it stays failed, for a person, and its charge counts against the daily budget", async () => {
    const bought = await buyFailed("08031230051");
    env.sandbox.setOptions({ notifiedPendingPolls: 1 });
    env.sandbox.deliverLate(bought.reference!); // verify says failed for one more read, then success
    const [debit] = env.sandbox.debits();
    const file = statementFileOf([debit!], "successful");
    const config = writeConfigFile(env.sandbox, env.test.url).file;
    type Report = {
      statusDifferences: Array<{ id: number; state: string; statement: string }>;
      applied: Applied[];
    };
    const noted = () => stateAndNote(bought.id);

    const dry = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(dry.stdout).toContain("and a failed purchase listed as successful (still failed, with a");

    const lagging = await reconcileApplied<Report>(config, file);
    expect(lagging.report.statusDifferences).toEqual([
      { id: bought.id, reference: bought.reference, state: "failed", statement: "successful" },
    ]);
    expect(lagging.report.applied).toEqual([
      {
        id: bought.id,
        reference: bought.reference,
        result: "unchanged",
        why: "its verify still says failed: the line's successful is not confirmed",
      },
    ]);
    expect(await noted()).toEqual({ state: "failed", note: null });
    expect(await committed()).toBe("0.00");

    const confirmed = await runCli(["-c", config, "purchases", "reconcile", "--statement", file, "--apply"]);
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toContain("1 failed purchase flagged delivered_after_failure.");
    expect(confirmed.stdout).toMatch(
      new RegExp(`${bought.id}\\s+${bought.reference}\\s+delivered_after_failure\\s+verify: success`),
    );
    const flagged = await noted();
    expect(flagged.state).toBe("failed");
    expect(flagged.note).toMatch(
      new RegExp(
        `^delivered_after_failure: \\S+ lists reference ${bought.reference} as successful, and the provider's verify now says success, after the purchase failed: the provider charged for it`,
      ),
    );
    const told = await rows<{ trigger: string; subject: string }>(
      env.test.database.db,
      sql`select trigger, subject from notification_outbox where trigger = 'delivered_after_failure'`,
    );
    expect(told).toEqual([{ trigger: "delivered_after_failure", subject: `purchase:${bought.id}` }]);
    expect(await committed()).toBe("305.00");

    const again = await reconcileApplied<Report>(config, file);
    expect(again.report.applied).toEqual([
      {
        id: bought.id,
        reference: bought.reference,
        result: "unchanged",
        why: "it is flagged delivered_after_failure already",
      },
    ]);
    expect(await committed()).toBe("305.00");
  });

  it("--apply flags a requeued purchase whose failed attempt the statement lists as successful once that attempt's verify says so too: earlier_attempt_delivered, never its new attempt's delivery, that attempt's charge counted once; the new attempt's own late delivery is flagged after it", async () => {
    const first = await buyFailed("08031230052");
    const config = writeConfigFile(env.sandbox, env.test.url).file;
    const requeued = await runCli(["-c", config, "purchases", "requeue", String(first.id)]);
    expect(requeued.code, requeued.stderr).toBe(0);
    env.sandbox.setOptions({ failRate: 1 }); // the new attempt fails too, with a reference of its own
    await env.run();
    env.sandbox.setOptions({ failRate: 0, notifiedPendingPolls: 1 });
    const second = await state("08031230052");
    expect(second).toMatchObject({ id: first.id, state: "failed" });
    expect(second.reference).not.toBe(first.reference);
    env.sandbox.deliverLate(first.reference!); // verify says failed for one more read, then success
    const old = env.sandbox.debits().find((d) => d.reference === first.reference)!;
    const file = statementFileOf([old], "successful");
    type Report = { statusDifferences: unknown[]; applied: Applied[] };
    const row = async () =>
      (
        await rows<{ state: string; reference: string; note: string | null }>(
          env.test.database.db,
          sql`select state, reference, note from purchases where id = ${first.id}`,
        )
      )[0]!;
    const told = (trigger: string) =>
      rows<{ subject: string; facts: { reference: string; amount: string; state: string } }>(
        env.test.database.db,
        sql`select subject, facts from notification_outbox where trigger = ${trigger}`,
      );

    const dry = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(dry.stdout).toContain("failed (an attempt before a requeue)");
    expect(dry.stdout).toContain("whose attempt before a person requeued it");
    const lagging = await reconcileApplied<Report>(config, file);
    expect(lagging.report.statusDifferences).toEqual([
      { id: first.id, reference: first.reference, state: "failed", statement: "successful", earlier: true },
    ]);
    expect(lagging.report.applied).toEqual([
      {
        id: first.id,
        reference: first.reference,
        result: "unchanged",
        why: "its verify still says failed: the line's successful is not confirmed",
      },
    ]);
    expect(await committed()).toBe("0.00");

    const confirmed = await runCli(["-c", config, "purchases", "reconcile", "--statement", file, "--apply"]);
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toContain("1 requeued purchase flagged earlier_attempt_delivered.");
    expect(confirmed.stdout).toMatch(
      new RegExp(`${first.id}\\s+${first.reference}\\s+earlier_attempt_delivered\\s+verify: success`),
    );
    // The new attempt keeps its state and reference: the success is the earlier attempt's, not its own.
    const flagged = await row();
    expect(flagged).toMatchObject({ state: "failed", reference: second.reference });
    expect(flagged.note).toMatch(
      new RegExp(
        `^earlier_attempt_delivered: \\S+ lists reference ${first.reference} \\(this purchase's attempt before a person requeued it, which ended failed\\) as successful, and the provider's verify now says success: the provider charged for that attempt`,
      ),
    );
    expect(await told("earlier_attempt_delivered")).toEqual([
      {
        subject: `purchase:${first.id}`,
        facts: expect.objectContaining({ reference: first.reference, amount: "305.00", state: "failed" }),
      },
    ]);
    expect(await told("delivered_after_failure")).toEqual([]);
    expect(await committed()).toBe("305.00");

    const again = await reconcileApplied<Report>(config, file);
    expect(again.report.applied).toEqual([
      {
        id: first.id,
        reference: first.reference,
        result: "unchanged",
        why: "that attempt's delivery is flagged already",
      },
    ]);
    expect(await committed()).toBe("305.00");

    // The provider delivers the new attempt late too: its own line flags it delivered_after_failure, over the
    // earlier attempt's flag, and each charge is counted once however often the statement is applied.
    env.sandbox.setOptions({ notifiedPendingPolls: 0 });
    env.sandbox.deliverLate(second.reference!);
    const latest = env.sandbox.debits().find((d) => d.reference === second.reference)!;
    const both = statementFileOf([old, latest], "successful");
    for (const [n, why] of [
      [1, "verify: success"],
      [2, "it is flagged delivered_after_failure already"],
    ] as const) {
      const applied = await reconcileApplied<Report>(config, both);
      expect(applied.report.applied, `apply ${n}`).toEqual([
        {
          id: first.id,
          reference: second.reference,
          result: n === 1 ? "delivered_after_failure" : "unchanged",
          why,
        },
        {
          id: first.id,
          reference: first.reference,
          result: "unchanged",
          why: "that attempt's delivery is flagged already",
        },
      ]);
      expect(await committed()).toBe("610.00");
    }
    const last = await row();
    expect(last.note).toMatch(/^delivered_after_failure: .* \(earlier note: earlier_attempt_delivered: /);
    expect(await told("delivered_after_failure")).toHaveLength(1);
    expect(await told("earlier_attempt_delivered")).toHaveLength(1);
  });

  it("reports as text, markdown, json and html (--format, --out like report); hostile statement cells stay inert", async () => {
    await buy(["08031230040"]); // succeeded
    await buyLosingAnswers(["08031230041"]); // in_doubt
    const debit = (phone: string) => env.sandbox.debits().find((d) => d.phone_number === phone)!;
    const good = debit("08031230040");
    const lost = debit("08031230041");
    const dir = mkdtempSync(join(tmpdir(), "topsync-reconcile-"));
    const file = join(dir, "statement.csv");
    writeFileSync(
      file,
      [
        "reference,phone,amount,date,status",
        `${good.reference},08031230040,"1,305.00",${good.at},successful`, // an amount difference
        `${lost.reference},08031230041,305.00,${lost.at},successful`, // resolves the in_doubt purchase
        ...Object.values(HOSTILE).map(
          (reference, i) =>
            `${csvQuote(reference)},0809999000${i},100.00,${good.at},${csvQuote(i === 0 ? "<b>failed</b>|`x`" : "successful")}`,
        ),
      ].join("\n"),
    );
    const config = writeConfigFile(env.sandbox, env.test.url, { timezone: "Africa/Lagos" }).file;
    const reconcile = (...flags: string[]) =>
      runCli(["-c", config, "purchases", "reconcile", "--statement", file, ...flags]);
    const before = await rows(env.test.database.db, sql`select id, state from purchases order by id`);

    const json = await reconcile("--format", "json");
    expect(json.stderr).toBe("");
    const report = JSON.parse(json.stdout);
    expect(report.providerOnly.map((r: { reference: string }) => r.reference)).toEqual(
      Object.values(HOSTILE),
    );
    expect(report.providerOnly[0].status).toBe("<b>failed</b>|`x`");
    expect((await reconcile("--json")).stdout).toBe(json.stdout); // --json is --format json

    const text = await reconcile();
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^topsync purchases reconcile: .*statement\.csv\n=+\n/);
    expect(text.stdout).toContain("lines      7, 1 on ledger purchases\n");
    expect(text.stdout).toContain("mode       dry run: nothing was changed\n");
    expect(text.stdout).toContain(
      "\nA person should look at: 5 provider debits with no ledger purchase, 1 amount difference. " +
        "1 purchase the statement can resolve (dry run).\n",
    );
    expect(text.stdout).toContain("\nProvider debits with no ledger purchase\n---");
    expect(text.stdout).toContain(`\n 1  ${good.reference}  NGN 305.00  NGN 1,305.00\n`); // the amount difference
    expect(text.stdout).toContain(`REF3\`rm -rf /\`\\n| injected | row |\\n# heading`);
    expect(text.stdout).toContain("REF5\\x1B[2J\\x1B]0;owned\\x07\\u202Eright-to-left");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control character reaches the terminal
    expect(text.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
    expect(text.stdout).toContain(
      "Dry run: --apply settles these when a verify read of each reference proves it.",
    );

    const markdown = await reconcile("--format", "markdown");
    expect(markdown.code).toBe(0);
    const md = markdown.stdout;
    expect(md).toMatch(/^# topsync purchases reconcile: /);
    expect(md).toContain("## Provider debits with no ledger purchase\n");
    // The provider-only table: a header, the rule and one line per debit; every row has exactly 5 cells.
    const table = md.split("## Provider debits with no ledger purchase\n")[1]!.split("\n## ")[0]!;
    const tableLines = table.split("\n").filter((line) => line.startsWith("|"));
    expect(tableLines).toHaveLength(2 + 5);
    for (const line of tableLines) expect(line.split(/(?<!\\)\|/).length - 2, line).toBe(5);
    expect(md).toContain("\\<script>alert(1)\\</script>REF1");
    expect(md).toContain("REF2\\|\\</td>\\</tr>\\<tr>\\<td>forged\\|row");
    expect(md).toContain("REF3\\`rm -rf /\\`\\\\n\\| injected \\| row \\|\\\\n# heading");
    expect(md).toContain(
      "REF4 \\*\\*bold\\*\\* \\[link\\](javascript:alert(1)) \\<img src=x onerror=alert(1)>",
    );
    expect(md).toContain("\\<b>failed\\</b>\\|\\`x\\`");
    expect(md).not.toMatch(/(?<!\\)<(script|img|b|td|tr)\b/);
    expect(md).not.toMatch(/(?<!\\)`/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control character in the markdown
    expect(md).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);

    const out = join(dir, "reconcile.html");
    const html = await reconcile("--format", "html", "--out", out);
    expect(html.code).toBe(0);
    expect(html.stdout).toBe("");
    expect(html.stderr).toContain(`the reconciliation written to ${out}`);
    const page = readFileSync(out, "utf8");
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<table id="table-provider-only"');
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;REF1");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(page).not.toMatch(/<script|<img|<tr><td>forged|onerror=alert\(1\)>/i);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control character or bidi mark in the page
    expect(page).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);

    // Nothing was changed by any of these; a format reconcile does not know is a usage error, before any work.
    expect(await rows(env.test.database.db, sql`select id, state from purchases order by id`)).toEqual(
      before,
    );
    const bad = await reconcile("--format", "pdf");
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--format must be one of text, markdown, json, html; got "pdf"/);

    // --apply in markdown: the in_doubt purchase settled by its verify read, in the Applied table.
    const applied = await reconcile("--apply", "--format", "markdown");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("## Applied\n");
    expect(applied.stdout).toMatch(/\| \d+ \| [A-Z0-9]{20} \| succeeded \| verify: success \|/);
    expect((await state("08031230041")).state).toBe("succeeded");
    if (!(await needs(CHROMIUM_TOOL, "the reconcile HTML in Chromium (the end of the --format test)")))
      return;

    // In a browser: no element from the statement, every hostile cell shown as the text it is.
    const LAYOUT = `(() => ({
      scripts: document.scripts.length,
      images: document.images.length,
      links: document.links.length,
      rows: [...document.querySelectorAll("#table-provider-only tbody tr")].map((tr) =>
        [...tr.cells].map((td) => td.textContent)),
      tables: [...document.querySelectorAll("table")].map((t) => ({
        id: t.id, boxWidth: t.parentElement.clientWidth, scrollWidth: t.parentElement.scrollWidth,
      })),
      pageWidth: document.documentElement.scrollWidth,
      width: window.innerWidth,
    }))()`;
    interface Seen {
      scripts: number;
      images: number;
      links: number;
      rows: string[][];
      tables: Array<{ id: string; boxWidth: number; scrollWidth: number }>;
      pageWidth: number;
      width: number;
    }
    for (const [viewport, shot] of [
      [PHONE, "reconcile-390.png"],
      [DESKTOP, "reconcile-1280.png"],
    ] as const) {
      const seen = await measureAt<Seen>(out, LAYOUT, viewport, join(dir, shot));
      expect([seen.scripts, seen.images, seen.links]).toEqual([0, 0, 0]);
      // As text, escapes for the control characters and bidi marks included (nothing reordered on screen).
      expect(seen.rows.map((row) => row[1])).toEqual(Object.values(HOSTILE).map(inert));
      expect(seen.rows[4]![1]).toBe("REF5\\x1B[2J\\x1B]0;owned\\x07\\u202Eright-to-left");
      expect(seen.rows.map((row) => row.length)).toEqual([5, 5, 5, 5, 5]);
      expect(seen.rows[0]![4]).toBe("<b>failed</b>|`x`");
      expect(seen.pageWidth).toBeLessThanOrEqual(seen.width);
      if (viewport === DESKTOP)
        for (const t of seen.tables) expect(t.scrollWidth, t.id).toBeLessThanOrEqual(t.boxWidth);
    }
    console.info(
      `reconcile HTML screenshots: ${join(dir, "reconcile-390.png")}, ${join(dir, "reconcile-1280.png")}`,
    );
  });
});
