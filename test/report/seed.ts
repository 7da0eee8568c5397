// A small ledger with known values for the report tests: purchases in every interesting state over three
// budget days (and one older than the period), and three website passes.
import { sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.js";
import { budgetDay } from "../../src/purchases/guards.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const TIME_ZONE = "Africa/Lagos";

export interface SeededDays {
  d1: string;
  d2: string;
  today: string;
}

interface Row {
  key: string;
  source: string;
  job: string | null;
  network: string;
  networkId: string | null;
  plan: string;
  phone: string;
  amount: string | null;
  state: string;
  day: string | null;
  submittedAgo: number | null;
  settleMs: number | null;
  reference?: string;
  message?: string;
  refund?: string;
  reason?: string;
}

/**
 * Spent 915.00 (three MTN at 305.00), one GLO failure refunded 465.00, one in_doubt (305.00), one
 * unverified (168.00), one rejected; latencies 1s, 2s, 3s, 4s; an older succeeded purchase outside 7d.
 */
export async function seedLedger(db: Db, now = new Date()): Promise<SeededDays> {
  const days = {
    d1: budgetDay(new Date(now.getTime() - 2 * DAY), TIME_ZONE),
    d2: budgetDay(new Date(now.getTime() - DAY), TIME_ZONE),
    today: budgetDay(now, TIME_ZONE),
  };
  const staff = { source: "job", job: "staff", network: "MTN", networkId: "1", plan: "102" };
  const rows: Row[] = [
    {
      ...staff,
      key: "k1",
      phone: "08031110001",
      amount: "305.00",
      state: "succeeded",
      day: days.d1,
      submittedAgo: 2 * DAY,
      settleMs: 1000,
    },
    {
      ...staff,
      key: "k2",
      phone: "08031110002",
      amount: "305.00",
      state: "succeeded",
      day: days.d1,
      submittedAgo: 2 * DAY,
      settleMs: 2000,
    },
    {
      ...staff,
      key: "k3",
      phone: "08031110003",
      amount: "305.00",
      state: "succeeded",
      day: days.d2,
      submittedAgo: DAY,
      settleMs: 3000,
    },
    {
      key: "crm-4",
      source: "intake",
      job: null,
      network: "glo",
      networkId: "2",
      plan: "203",
      phone: "08051110004",
      amount: "465.00",
      state: "failed",
      day: days.d2,
      submittedAgo: DAY,
      settleMs: 4000,
      message: "Insufficient stock for 08051234567",
      refund: "465.00",
    },
    {
      ...staff,
      key: "k5",
      phone: "08031110005",
      amount: "305.00",
      state: "in_doubt",
      day: days.today,
      submittedAgo: 2 * HOUR,
      settleMs: null,
    },
    {
      key: "buy:6",
      source: "buy",
      job: null,
      network: "MTN",
      networkId: "1",
      plan: "101",
      phone: "08031110006",
      amount: "168.00",
      state: "unverified",
      day: days.d2,
      submittedAgo: DAY,
      settleMs: null,
      reference: "REF-UNVERIFIED-6",
    },
    {
      ...staff,
      key: "k7",
      phone: "0803111",
      networkId: null,
      amount: null,
      state: "rejected",
      day: null,
      submittedAgo: null,
      settleMs: null,
      reason: "invalid_phone: invalid phone number",
    },
    {
      ...staff,
      key: "k8",
      phone: "08031110008",
      amount: "305.00",
      state: "succeeded",
      day: budgetDay(new Date(now.getTime() - 10 * DAY), TIME_ZONE),
      submittedAgo: 10 * DAY,
      settleMs: 500,
    },
  ];
  for (const row of rows) await insertRow(db, row, now);
  await seedWebsiteRuns(db, now);
  return days;
}

async function insertRow(db: Db, row: Row, now: Date): Promise<void> {
  const submitted = row.submittedAgo === null ? null : new Date(now.getTime() - row.submittedAgo);
  const settled = submitted && row.settleMs !== null ? new Date(submitted.getTime() + row.settleMs) : null;
  const created = submitted ? new Date(submitted.getTime() - 60_000) : new Date(now.getTime() - HOUR);
  await db.execute(
    sql`insert into purchases (request_key, source, job_name, network, network_id, plan_id, phone, amount, state,
          budget_day, submitted_at, settled_at, reference, provider_message, refund_amount, reason, created_at, updated_at)
        values (${row.key}, ${row.source}, ${row.job}, ${row.network}, ${row.networkId}, ${row.plan}, ${row.phone},
          ${row.amount}::numeric, ${row.state}, ${row.day}::date, ${submitted?.toISOString() ?? null}::timestamptz,
          ${settled?.toISOString() ?? null}::timestamptz, ${row.reference ?? null}, ${row.message ?? null},
          ${row.refund ?? null}::numeric, ${row.reason ?? null}, ${created.toISOString()}::timestamptz,
          ${(settled ?? submitted ?? created).toISOString()}::timestamptz)`,
  );
}

/** An apply pass that created a website, a quiet plan pass, and a failed pass. */
async function seedWebsiteRuns(db: Db, now: Date): Promise<void> {
  const at = (ago: number) => new Date(now.getTime() - ago).toISOString();
  const changes = JSON.stringify({ changes: [{ action: "create", domain: "shop.example.org" }] });
  const errors = JSON.stringify([
    { domain: "*", action: "list", code: "HTTP_5XX", message: "listing the remote websites failed" },
  ]);
  await db.execute(
    sql`insert into website_runs (started_at, finished_at, mode, status, created, unchanged, errors, summary) values
          (${at(3 * HOUR)}::timestamptz, ${at(3 * HOUR - 1000)}::timestamptz, 'apply', 'ok', 1, 1, '[]'::jsonb, ${changes}::jsonb),
          (${at(2 * HOUR)}::timestamptz, ${at(2 * HOUR - 1000)}::timestamptz, 'plan', 'ok', 0, 2, '[]'::jsonb, '{"changes": []}'::jsonb),
          (${at(HOUR)}::timestamptz, ${at(HOUR - 1000)}::timestamptz, 'apply', 'failed', 0, 0, ${errors}::jsonb, '{}'::jsonb)`,
  );
}
