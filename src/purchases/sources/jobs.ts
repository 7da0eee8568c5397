// A job fire becomes ledger rows: one per recipient, keyed `job:<name>:<fire ISO time>:<phone>` so a fire
// repeated by a replica, a restart or an operator adds nothing (DESIGN §4).
import { isAbsolute, resolve } from "node:path";
import type { PurchaseJob } from "../../config/index.js";
import type { Executor } from "../../db/client.js";
import { insertPurchases, type NewPurchase } from "../ledger.js";
import { normalisePhone } from "../phone.js";
import { checkRecipientsFile, recipientBatches } from "./recipients-csv.js";

const BATCH = 1000;
/**
 * The first batch of a fire's inline recipients is small, and each next one twice the last up to BATCH: the run
 * starts buying as soon as the first rows are in (a batch of 1,000 takes some 100 ms to check and write), while
 * the rest follow in batches large enough to cost little per row.
 */
const FIRST_BATCH = 125;

export interface FireResult {
  job: string;
  fireTime: Date;
  recipients: number;
  inserted: number;
}

export function fireKey(job: string, fireTime: Date): string {
  return `job:${job}:${fireTime.toISOString()}`;
}

/** The ledger row for one recipient of one fire; an invalid phone is kept as given and rejected later. */
export function jobPurchase(
  job: PurchaseJob,
  fireTime: Date,
  recipient: { phone: string; ported: boolean },
  defaultAttempts: number,
): NewPurchase {
  const check = normalisePhone(recipient.phone);
  const phone = check.ok ? check.phone : recipient.phone.trim();
  const plan = job.plan;
  return {
    request_key: `${fireKey(job.name, fireTime)}:${phone}`,
    source: "job",
    job_name: job.name,
    fire_time: fireTime,
    network: plan.network,
    plan_id: plan.kind === "id" ? plan.plan_id : null,
    plan_selector:
      plan.kind === "selector"
        ? { size_mb: plan.size_mb, type: plan.type, name_contains: plan.name_contains }
        : null,
    phone,
    ported: recipient.ported,
    max_price: job.max_price ? job.max_price.toFixed(2) : null,
    max_attempts: job.max_attempts ?? defaultAttempts,
    not_before: fireTime,
    requested_by: `job:${job.name}`,
  };
}

export function recipientsFilePath(job: PurchaseJob, configDir: string): string | undefined {
  if (!job.recipients_file) return undefined;
  return isAbsolute(job.recipients_file) ? job.recipients_file : resolve(configDir, job.recipients_file);
}

/**
 * Writes the rows of one fire, in batches (calling `onRows` after each); checks the recipients file first so a bad
 * file queues nothing.
 */
export async function fireJob(
  db: Executor,
  job: PurchaseJob,
  fireTime: Date,
  options: { configDir: string; defaultAttempts: number; actor: string; onRows?: () => void },
): Promise<FireResult> {
  const file = recipientsFilePath(job, options.configDir);
  if (file) await checkRecipientsFile(file);
  const toRow = (r: { phone: string; ported: boolean }) =>
    jobPurchase(job, fireTime, r, options.defaultAttempts);
  let recipients = 0;
  let inserted = 0;
  const write = async (batch: Array<{ phone: string; ported: boolean }>) => {
    recipients += batch.length;
    inserted += await insertPurchases(db, batch.map(toRow), options.actor);
    options.onRows?.();
  };
  for (let i = 0, size = FIRST_BATCH; i < job.recipients.length; i += size, size = Math.min(BATCH, 2 * size))
    await write(job.recipients.slice(i, i + size));
  if (file) for await (const batch of recipientBatches(file, BATCH)) await write(batch);
  return { job: job.name, fireTime, recipients, inserted };
}

/** The ledger rows one fire would write, in batches: the inline recipients, then the recipients file. */
export async function* fireRows(
  job: PurchaseJob,
  fireTime: Date,
  attempts: number,
): AsyncGenerator<NewPurchase[]> {
  // The file is checked whole before anything is yielded, as a fire checks it before it writes anything.
  const file = recipientsFilePath(job, "/");
  if (file) await checkRecipientsFile(file);
  yield job.recipients.map((r) => jobPurchase(job, fireTime, r, attempts));
  if (!file) return;
  for await (const batch of recipientBatches(file, BATCH))
    yield batch.map((r) => jobPurchase(job, fireTime, r, attempts));
}
