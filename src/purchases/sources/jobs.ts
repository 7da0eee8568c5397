// A job fire becomes ledger rows: one per recipient, keyed `job:<name>:<fire ISO time>:<phone>` so a fire
// repeated by a replica, a restart or an operator adds nothing (its request key is the fire's).
import { isAbsolute, resolve } from "node:path";
import type { PurchaseJob } from "../../config/index.js";
import type { Db } from "../../db/client.js";
import { type FireRows, insertFireRows, type NewPurchase } from "../ledger.js";
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

/** What every ledger row of one fire has in common (all but the recipient). */
export function fireTemplate(job: PurchaseJob, fireTime: Date, defaultAttempts: number): FireRows {
  const plan = job.plan;
  return {
    keyPrefix: `${fireKey(job.name, fireTime)}:`,
    job_name: job.name,
    fire_time: fireTime,
    network: plan.network,
    plan_id: plan.kind === "id" ? plan.plan_id : null,
    plan_selector:
      plan.kind === "selector"
        ? { size_mb: plan.size_mb, type: plan.type, name_contains: plan.name_contains }
        : null,
    max_price: job.max_price ? job.max_price.toFixed(2) : null,
    max_attempts: job.max_attempts ?? defaultAttempts,
    not_before: fireTime,
    requested_by: `job:${job.name}`,
  };
}

/** A recipient as its fire's row holds it: the phone normalised, or kept as given (trimmed) when invalid. */
export function fireRecipient(recipient: { phone: string; ported: boolean }): {
  phone: string;
  ported: boolean;
} {
  const check = normalisePhone(recipient.phone);
  return { phone: check.ok ? check.phone : recipient.phone.trim(), ported: recipient.ported };
}

/** The ledger row of one recipient of a fire (`fireTemplate`); an invalid phone is kept as given and rejected later. */
export function firePurchase(fire: FireRows, recipient: { phone: string; ported: boolean }): NewPurchase {
  const { keyPrefix, ...common } = fire;
  const { phone, ported } = fireRecipient(recipient);
  return { ...common, request_key: `${keyPrefix}${phone}`, source: "job", phone, ported };
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
  db: Db,
  job: PurchaseJob,
  fireTime: Date,
  options: { configDir: string; defaultAttempts: number; actor: string; onRows?: () => void },
): Promise<FireResult> {
  const file = recipientsFilePath(job, options.configDir);
  if (file) await checkRecipientsFile(file);
  const fire = fireTemplate(job, fireTime, options.defaultAttempts);
  let recipients = 0;
  let inserted = 0;
  const write = async (batch: Array<{ phone: string; ported: boolean }>) => {
    recipients += batch.length;
    inserted += await insertFireRows(db, fire, batch.map(fireRecipient), options.actor);
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
  const fire = fireTemplate(job, fireTime, attempts);
  yield job.recipients.map((r) => firePurchase(fire, r));
  if (!file) return;
  for await (const batch of recipientBatches(file, BATCH)) yield batch.map((r) => firePurchase(fire, r));
}
