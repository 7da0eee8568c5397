// The daemon's fires pass the approval gate: a fire above the first threshold is held as a pending plan written by
// `daemon` and bought by neither replica; once approved, the replicas buy exactly its rows, each once.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  count,
  type DaemonProcess,
  daemonConfig,
  freePort,
  spawnDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "../daemon/helpers.js";
import { runCli } from "../helpers/cli.js";
import { approverKey, mtnPhones } from "./helpers.js";

describe("a daemon fire above the threshold", () => {
  const fixture = useLedger({ seed: 16 });
  const replicas: DaemonProcess[] = [];
  afterAll(() => {
    for (const r of replicas) r.child.kill("SIGKILL");
  });

  it("is held, and once approved is bought exactly once across two replicas", {
    timeout: 180_000,
  }, async () => {
    const recipients = mtnPhones(6, 900);
    const { key: keyFile, publicKey } = await approverKey(
      mkdtempSync(join(tmpdir(), "topsync-keys-")),
      "ada",
    );
    const at = new Date(Date.now() + 20_000);
    at.setMilliseconds(0);
    const settings = {
      purchases: [
        { name: "payday", at: at.toISOString(), plan: { network: "MTN", plan_id: "102" }, recipients },
      ],
      approvals: {
        rules: [{ above: "1000.00", approvals: 1 }],
        approvers: { ada: publicKey },
      },
    };
    let file = "";
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      file = daemonConfig(fixture.sandbox, fixture.url, port, settings);
      replicas.push(spawnDaemon(file, port));
    }
    for (const r of replicas) await waitReady(r);

    const plan = await waitFor(
      "the fire to be held as a pending plan",
      async () => {
        const found = await rows<{
          id: string;
          author: string;
          status: string;
          items: number;
          total: string;
        }>(
          fixture.database.db,
          sql`select id, author, status, items, total::text as total from saved_plans where origin = 'held'`,
        );
        return found[0];
      },
      { daemons: replicas, timeoutMs: 60_000 },
    );
    expect(plan).toMatchObject({ author: "daemon", status: "pending_approval", items: 6, total: "1830.00" });
    // Held: neither replica buys it, however many passes they make.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(fixture.sandbox.debits()).toHaveLength(0);
    expect(await count(fixture.database, sql`select count(*) as n from purchases where state = 'held'`)).toBe(
      6,
    );
    const listed = await runCli(["-c", file, "--json", "saved", "list"]);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: plan.id, status: "pending_approval" }),
    ]);

    const approved = await runCli(["-c", file, "approve", plan.id, "--as", "ada", "--key", keyFile]);
    expect(approved.code, approved.stderr).toBe(0);
    await waitFor(
      "the approved plan to be bought and applied",
      async () =>
        (await count(
          fixture.database,
          sql`select count(*) as n from purchases where approval = ${`plan:${plan.id}`} and state = 'succeeded'`,
        )) === 6 &&
        (await count(
          fixture.database,
          sql`select count(*) as n from saved_plans where status = 'applied'`,
        )) === 1,
      { daemons: replicas, timeoutMs: 60_000 },
    );
    const debits = fixture.sandbox.debits();
    expect(debits.map((d) => d.phone_number).sort()).toEqual([...recipients].sort());
    expect(debits.every((d) => d.amount === "305.00")).toBe(true);
    for (const r of replicas) r.child.kill("SIGTERM");
    for (const r of replicas) expect(await r.exited).toBe(0);
  });
});
