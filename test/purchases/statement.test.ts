// `topsync purchases reconcile --statement` (issue 19): a provider's export against the ledger over real HTTP and
// PostgreSQL. The report finds a debit with no ledger row, a purchase the provider does not list and an amount
// difference; `--apply` settles the in_doubt purchase a verify read proves, and nothing a verify read does not.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const purchase = (phone: string): NewPurchase => ({
  request_key: `stmt:${phone}`,
  source: "buy",
  network: "MTN",
  plan_id: "102",
  phone,
  ported: false,
});

describe("purchases reconcile --statement, on postgres", () => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 8, verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    test = await openTestDatabase("postgres");
    reseller = resellerFor(sandbox);
  });
  afterEach(async () => {
    await reseller.close();
    await test.drop();
  });

  const buy = async (phones: string[]) => {
    await insertPurchases(test.database.db, phones.map(purchase), "test");
    await executePurchases(
      { database: test.database, reseller, config: testConfig(sandbox), logger: silentLogger() },
      { concurrency: 1, retryWaitMs: 0 },
    );
  };
  const state = async (phone: string) =>
    (
      await rows<{ id: number; state: string; reference: string | null }>(
        test.database.db,
        sql`select id::int as id, state, reference from purchases where phone = ${phone}`,
      )
    )[0]!;

  it("reports what differs, and --apply settles only what a verify read proves", async () => {
    await buy(["08031230020", "08031230021"]); // both succeeded
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    await buy(["08031230022", "08031230023"]); // both in_doubt
    sandbox.setFaults({ endpoints: {} });
    const direct = await reseller.buyData({ network_id: "1", plan_id: "102", phone_number: "08031230024" });
    expect(direct.accepted).toBe(true);
    const debit = (phone: string) => sandbox.debits().find((d) => d.phone_number === phone)!;
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
    const config = writeConfigFile(sandbox, test.url).file;
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
      test.database.db,
      sql`select actor, reason from purchase_events where to_state = 'succeeded' and actor = 'statement+verify'`,
    );
    expect(event!.reason).toContain("line 3");
    expect(sandbox.debits()).toHaveLength(5);

    const missing = await runCli(["-c", config, "purchases", "reconcile", "--statement", file]);
    expect(missing.code).toBe(65);
    expect(missing.stderr).toContain('no column "reference"');

    // The sandbox's own export, default columns: only the direct debit lacks a ledger row, and the in_doubt
    // purchase left is the one its true line resolves.
    const exported = join(tmpdir(), `export-${process.pid}-${Date.now()}.csv`);
    writeFileSync(exported, sandbox.statementCsv());
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
});
