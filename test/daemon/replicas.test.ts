// Three `topsync run` replicas on one PostgreSQL database, a job firing every second and 1,000 intake rows:
// every fire's purchases are created once, every request is bought once (the sandbox's own debit record),
// and when one replica is killed with SIGKILL mid-purchase the others finish its work: its `submitting`
// rows become `in_doubt` and nothing is bought again.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  count,
  type DaemonProcess,
  daemonConfig,
  freePort,
  insertIntake,
  spawnDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "./helpers.js";

const JOB_RECIPIENTS = ["08035550001", "08035550002", "08035550003"];
const INTAKE = 1000;
const DOMAINS = ["a.example", "b.example", "c.example"];

interface Row {
  id: string;
  source: string;
  job_name: string | null;
  fire_time: Date | string | null;
  phone: string;
  state: string;
  reference: string | null;
  claimed_by: string | null;
}

describe("three replicas on one PostgreSQL database", () => {
  // each purchase call takes a while, so a replica always has some in flight; a website pass outlasts
  // the one-second website schedule, so passes of different replicas would overlap without the lock
  const fixture = useLedger({
    seed: 21,
    faults: { endpoints: { data: { latencyMs: 250 }, "websites.list": { latencyMs: 1500 } } },
  });
  const replicas: DaemonProcess[] = [];
  afterAll(() => {
    for (const r of replicas) r.child.kill("SIGKILL");
  });

  it("share fires and intake, survive a SIGKILL, and buy every request exactly once", {
    timeout: 240_000,
  }, async () => {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = daemonConfig(fixture.sandbox, fixture.url, port, {
        purchases: [
          {
            name: "tick",
            schedule: "* * * * * *",
            plan: { network: "MTN", plan_id: "102" },
            recipients: JOB_RECIPIENTS,
          },
        ],
        websites: { schedule: "* * * * * *", items: DOMAINS.map((domain) => ({ domain })) },
      });
      replicas.push(spawnDaemon(file, port));
    }
    for (const r of replicas) await waitReady(r);
    const phones = await insertIntake(fixture.database, INTAKE);

    // kill replica 0 while it has purchases in submitting (their calls are in flight at the sandbox): claimed
    // less than 100 ms ago, so their 250 ms calls cannot have been answered by the time the signal lands
    const [victim, ...survivors] = replicas as [DaemonProcess, ...DaemonProcess[]];
    const claimedBy = (prefix: string, within = "1 year") =>
      count(
        fixture.database,
        sql`select count(*) as n from purchases p where p.state = 'submitting' and exists (
              select 1 from purchase_events e where e.purchase_id = p.id and e.to_state = 'submitting'
              and e.actor like ${`${prefix}%`} and e.at > now() - ${within}::interval)`,
      );
    await waitFor(
      "the victim to have purchases in flight",
      async () => (await claimedBy(victim.actorPrefix, "100 milliseconds")) > 0,
      {
        daemons: replicas,
      },
    );
    victim.child.kill("SIGKILL");
    await victim.exited;

    // the survivors finish everything: every intake request settled, the victim's submitting rows swept
    await waitFor(
      "every intake purchase to settle",
      async () =>
        (await count(
          fixture.database,
          sql`select count(*) as n from purchases where source = 'intake'
              and state in ('succeeded', 'failed', 'in_doubt', 'unverified', 'rejected')`,
        )) === INTAKE && (await claimedBy(victim.actorPrefix)) === 0,
      { daemons: survivors, timeoutMs: 180_000 },
    );
    for (const r of survivors) r.child.kill("SIGTERM");
    for (const r of survivors) expect(await r.exited).toBe(0);

    const ledger = await rows<Row>(
      fixture.database.db,
      sql`select p.id, p.source, p.job_name, p.fire_time, p.phone, p.state, p.reference,
            (select e.actor from purchase_events e where e.purchase_id = p.id and e.to_state = 'submitting'
             order by e.id limit 1) as claimed_by
          from purchases p`,
    );
    const debits = fixture.sandbox.debits();
    expect(ledger.filter((r) => r.state === "submitting")).toEqual([]);

    // intake: every request moved into the ledger once, bought at most once, and settled
    const intake = ledger.filter((r) => r.source === "intake");
    expect(intake).toHaveLength(INTAKE);
    expect(new Set(intake.map((r) => r.phone))).toEqual(new Set(phones));
    const debitsByPhone = new Map<string, number>();
    for (const d of debits) debitsByPhone.set(d.phone_number, (debitsByPhone.get(d.phone_number) ?? 0) + 1);
    for (const phone of phones) expect(debitsByPhone.get(phone) ?? 0).toBeLessThanOrEqual(1);
    for (const r of intake) expect(["succeeded", "in_doubt"]).toContain(r.state);
    expect(intake.filter((r) => r.state === "succeeded").every((r) => debitsByPhone.get(r.phone) === 1)).toBe(
      true,
    );

    // the victim's in-flight purchases became in_doubt, and only those
    const inDoubt = ledger.filter((r) => r.state === "in_doubt");
    expect(inDoubt.length).toBeGreaterThan(0);
    for (const r of inDoubt) expect(r.claimed_by?.startsWith(victim.actorPrefix)).toBe(true);
    const [swept] = await rows<{ n: string }>(
      fixture.database.db,
      sql`select count(*) as n from purchase_events where to_state = 'in_doubt'
          and reason like 'found in submitting after its run stopped%' and actor not like ${`${victim.actorPrefix}%`}`,
    );
    expect(Number(swept!.n)).toBe(inDoubt.length);
    // the survivors did the rest
    for (const r of survivors)
      expect(intake.some((row) => row.claimed_by?.startsWith(r.actorPrefix))).toBe(true);

    // every debit is one ledger row: a reference is recorded once, and the only debits without a recorded
    // reference are in_doubt purchases whose answer the victim never read
    const references = ledger.filter((r) => r.reference !== null).map((r) => r.reference!);
    expect(new Set(references).size).toBe(references.length);
    const debitRefs = new Set(debits.map((d) => d.reference));
    expect(debitRefs.size).toBe(debits.length);
    for (const ref of references) expect(debitRefs.has(ref)).toBe(true);
    expect(debits.length - references.length).toBeLessThanOrEqual(inDoubt.length);
    expect(debits.length).toBe(
      ledger.filter((r) => r.reference !== null).length + (debits.length - references.length),
    );

    // fires: each elected once; each done fire has exactly its recipients' purchases, and no purchase
    // belongs to a fire that was not run
    const fires = await rows<{ fire_time: Date | string; status: string; claimed_by: string }>(
      fixture.database.db,
      sql`select fire_time, status, claimed_by from schedule_fires where job_name = 'tick'`,
    );
    expect(fires.filter((f) => f.status === "running" || f.status === "failed")).toEqual([]);
    const done = fires.filter((f) => f.status === "done").map((f) => new Date(f.fire_time).getTime());
    expect(done.length).toBeGreaterThan(3);
    const jobRows = ledger.filter((r) => r.job_name === "tick");
    const perFire = new Map<number, string[]>();
    for (const r of jobRows) {
      const t = new Date(r.fire_time!).getTime();
      perFire.set(t, [...(perFire.get(t) ?? []), r.phone]);
    }
    expect([...perFire.keys()].sort()).toEqual([...done].sort());
    for (const recipients of perFire.values()) expect(recipients.sort()).toEqual([...JOB_RECIPIENTS].sort());
    // more than one replica ran fires
    expect(
      new Set(fires.filter((f) => f.status === "done").map((f) => f.claimed_by.split(":")[2])).size,
    ).toBeGreaterThan(1);
    // the website loop: one replica at a time (passes never overlap), so each website was created once
    const passes = await rows<{
      started_at: Date | string;
      finished_at: Date | string | null;
      status: string;
    }>(
      fixture.database.db,
      sql`select started_at, finished_at, status from website_runs order by started_at`,
    );
    expect(passes.length).toBeGreaterThan(0);
    for (let i = 1; i < passes.length; i++)
      expect(new Date(passes[i]!.started_at).getTime()).toBeGreaterThanOrEqual(
        new Date(passes[i - 1]!.finished_at!).getTime(),
      );
    const lockSkips = replicas.map(
      (r) => r.stderr().split("website pass skipped: another replica is reconciling").length - 1,
    );
    expect(lockSkips.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(
      fixture.sandbox
        .websites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(DOMAINS);
    expect(fixture.sandbox.websiteMutations().filter((m) => m.method === "POST")).toHaveLength(
      DOMAINS.length,
    );
    // job purchases were bought at most once each: a debit per recorded reference, none twice
    const jobDebits = debits.filter((d) => JOB_RECIPIENTS.includes(d.phone_number)).length;
    const jobBought = jobRows.filter((r) => r.reference !== null).length;
    const jobInDoubt = jobRows.filter((r) => r.state === "in_doubt").length;
    expect(jobDebits).toBeGreaterThanOrEqual(jobBought);
    expect(jobDebits).toBeLessThanOrEqual(jobBought + jobInDoubt);
  });
});
