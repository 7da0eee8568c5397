// Reseller plan prices remembered between runs (kv key "plan_prices"), so `topsync plan` can say which prices
// changed since the last purchase run. Every purchase run records them (CLI and daemon, through run-once.ts);
// the plan only reads and compares (pure).
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { type Money, parseMoney } from "../money.js";
import { priceKey } from "./projection.js";
import type { Catalogue } from "./resolve.js";

export interface PriceChange {
  networkId: string;
  network: string;
  planId: string;
  name: string;
  from: Money;
  to: Money;
}

export interface PriceReport {
  recordedAt: Date | null;
  /** Changes of the plans this plan would buy or refuse. */
  changes: PriceChange[];
  /** How many other plans changed price. */
  otherChanges: number;
}

export const PLAN_PRICES_KEY = "plan_prices";

/** As stored: prices by `<network id>:<plan id>`, exact decimal strings. */
export interface RecordedPrices {
  as_of: string;
  plans: Record<string, { network: string; name: string; price: string }>;
}

/**
 * Records the prices of a run's catalogue (one upsert). Networks whose plans could not be read this run keep
 * their earlier prices. Call it at the end of each `purchases run`, with the catalogue the run bought from.
 */
export async function recordPlanPrices(db: Executor, catalogue: Catalogue, now = new Date()): Promise<void> {
  const previous = await readPlanPrices(db);
  const plans: RecordedPrices["plans"] = {};
  const read = new Set(catalogue.plans.keys());
  for (const [key, value] of Object.entries(previous?.plans ?? {})) {
    if (!read.has(key.slice(0, key.indexOf(":")))) plans[key] = value;
  }
  for (const network of catalogue.networks) {
    for (const plan of catalogue.plans.get(network.id) ?? []) {
      plans[priceKey(network.id, plan.id)] = {
        network: network.name,
        name: plan.name,
        price: plan.price.toFixed(2),
      };
    }
  }
  const value: RecordedPrices = { as_of: now.toISOString(), plans };
  await liftOvercharges(db, catalogue);
  await rows(
    db,
    sql`insert into kv (key, value, updated_at) values (${PLAN_PRICES_KEY}, ${JSON.stringify(value)}::jsonb, now())
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at
        returning key`,
  );
}

export async function readPlanPrices(db: Executor): Promise<RecordedPrices | null> {
  const [row] = await rows<{ value: RecordedPrices | string }>(
    db,
    sql`select value from kv where key = ${PLAN_PRICES_KEY}`,
  );
  if (!row) return null;
  return typeof row.value === "string" ? (JSON.parse(row.value) as RecordedPrices) : row.value;
}

/** Live prices against the recorded ones: the changes of the plans in `used` listed, the others counted. */
export function priceChanges(
  recorded: RecordedPrices | null,
  catalogue: Catalogue | null,
  used: ReadonlySet<string>,
): PriceReport {
  if (!recorded || !catalogue)
    return { recordedAt: recorded ? new Date(recorded.as_of) : null, changes: [], otherChanges: 0 };
  const changes: PriceChange[] = [];
  let otherChanges = 0;
  for (const network of catalogue.networks) {
    for (const plan of catalogue.plans.get(network.id) ?? []) {
      const key = priceKey(network.id, plan.id);
      const before = recorded.plans[key];
      if (!before || parseMoney(before.price).eq(plan.price)) continue;
      if (!used.has(key)) {
        otherChanges++;
        continue;
      }
      changes.push({
        networkId: network.id,
        network: network.name,
        planId: plan.id,
        name: plan.name,
        from: parseMoney(before.price),
        to: plan.price,
      });
    }
  }
  return { recordedAt: new Date(recorded.as_of), changes, otherChanges };
}

export const OVERCHARGED_KEY = "overcharged_plans";

interface Overcharge {
  network: string;
  plan: string;
  listed: string;
  charged: string;
  at: string;
}

/** Plans the provider charged more for than it listed (kv "overcharged_plans"), with the amount it charged. */
export async function readOvercharges(db: Executor): Promise<Map<string, Money>> {
  const [row] = await rows<{ value: Record<string, Overcharge> | string }>(
    db,
    sql`select value from kv where key = ${OVERCHARGED_KEY}`,
  );
  const value =
    typeof row?.value === "string" ? (JSON.parse(row.value) as Record<string, Overcharge>) : row?.value;
  return new Map(Object.entries(value ?? {}).map(([key, o]) => [key, parseMoney(o.charged)]));
}

/** Remembers that a plan was charged above its listed price: later runs do not buy it while the list is lower. */
export async function recordOvercharge(
  db: Executor,
  key: string,
  details: { network: string; plan: string; listed: Money; charged: Money },
): Promise<void> {
  const entry: Overcharge = {
    network: details.network,
    plan: details.plan,
    listed: details.listed.toFixed(2),
    charged: details.charged.toFixed(2),
    at: new Date().toISOString(),
  };
  const value = JSON.stringify({ [key]: entry });
  await rows(
    db,
    sql`insert into kv (key, value, updated_at) values (${OVERCHARGED_KEY}, ${value}::jsonb, now())
        on conflict (key) do update set value = kv.value || excluded.value, updated_at = now() returning key`,
  );
}

/** A plan whose live listed price now reaches what it was charged is bought again (subject to max_price). */
async function liftOvercharges(db: Executor, catalogue: Catalogue): Promise<void> {
  const lifted: string[] = [];
  for (const [key, charged] of await readOvercharges(db)) {
    const [networkId, planId] = key.split(":");
    const plan = catalogue.plans.get(networkId!)?.find((p) => p.id === planId);
    if (plan?.price.gte(charged)) lifted.push(key);
  }
  if (lifted.length === 0) return;
  await rows(
    db,
    sql`update kv set value = value - ${`{${lifted.join(",")}}`}::text[], updated_at = now()
        where key = ${OVERCHARGED_KEY} returning key`,
  );
}
