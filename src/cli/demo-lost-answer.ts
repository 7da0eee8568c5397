// The demo's lost answer: one purchase whose answer the sandbox loses after the debit (a 500), so it goes
// in_doubt; the sandbox then posts its signed notification to topsync's webhook receiver (in-process, on a
// loopback port), and the purchase is settled by the verify answer of the notification's reference.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { systemClock } from "../clock.js";
import type { PurchaseJob } from "../config/index.js";
import { type Database, rows } from "../db/client.js";
import { maskPhone } from "../log/mask.js";
import { executePurchases } from "../purchases/executor.js";
import {
  type NotificationResult,
  notificationDeps,
  processNotification,
} from "../purchases/notifications.js";
import { prepareRun } from "../purchases/run-once.js";
import type { Sandbox } from "../sandbox/index.js";
import { createWebhookReceiver } from "../server/webhook.js";
import { onDemandFire } from "../time/fires.js";
import type { CommandContext } from "./context.js";
import { write } from "./output.js";
import { purchasesShowCommand } from "./purchases-ledger.js";

export const LOST_ANSWER_JOB = "demo-lost-answer";
const PHONE = "08035559999";

/**
 * Buys one purchase with its answer lost, delivers the provider's notification and prints the purchase as
 * the ledger has it then. `ctx.config.webhooks` must be enabled; the sandbox signs with its secret. Leaves
 * the sandbox without faults or a notification address, and with failure rates at 0.
 */
export async function demoLostAnswer(
  ctx: CommandContext,
  sandbox: Sandbox,
  database: Database,
): Promise<void> {
  const hooks = ctx.config.webhooks;
  if (!hooks.enabled || hooks.secret === undefined)
    throw new Error("the demo's lost answer needs webhooks enabled with a secret");
  const processing: Promise<NotificationResult | undefined>[] = [];
  const deps = notificationDeps({
    db: database.db,
    reseller: await ctx.reseller(),
    config: ctx.config,
    logger: ctx.logger,
    clock: systemClock,
  });
  const receiver = createWebhookReceiver({
    config: hooks,
    database: () => database.db,
    secrets: [hooks.secret, ctx.config.reseller.api_key, ctx.config.analytics.api_key],
    logger: ctx.logger,
    onStored: (id) => processing.push(processNotification(deps, id)),
  });
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (receiver.owns(path)) void receiver.handle(request, response);
    else response.writeHead(404).end();
  });
  const url = `${await listen(server)}${hooks.path}`;
  try {
    write("\n== a lost answer: in_doubt, then settled by the provider's own notification ==\n");
    sandbox.setOptions({
      notifyUrl: url,
      notifySecret: hooks.secret,
      notifyHold: true,
      failRate: 0,
      reverseRate: 0,
    });
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const lost = await buyLosingTheAnswer(ctx, database);
    sandbox.setFaults({ endpoints: {} });
    const posts = () =>
      sandbox.requests().filter((r) => r.method === "POST" && r.path === "/public/api/data");
    const postsBefore = posts().length;
    const debits = () => sandbox.debits().filter((d) => d.phone_number === PHONE);
    const debit = debits()[0];
    write(
      `purchase ${lost.id} (${maskPhone(PHONE)}): ${lost.state}. The sandbox debited its wallet` +
        `${debit ? ` NGN ${debit.amount} (reference ${debit.reference})` : ""}\n` +
        "and then answered 500, so topsync cannot know whether it was bought; it never sends it again by itself.\n",
    );
    write(`the sandbox posts the transaction's notification, signed, to topsync's receiver at ${url}\n`);
    await sandbox.deliverNotifications();
    for (const result of await settled(processing))
      if (result) write(`notification: ${result.outcome}: ${result.reason}\n`);
    write(
      "(a notification is a hint: the verify answer of its reference is the proof that settled the purchase)\n" +
        `bought once: ${debits().length} debit for ${maskPhone(PHONE)}, and ${posts().length - postsBefore} ` +
        "purchase POSTs since the lost one\n\n",
    );
    await purchasesShowCommand(ctx, String(lost.id), false, database);
  } finally {
    sandbox.setOptions({ notifyUrl: "", notifyHold: false });
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Fires a one-recipient job now and runs it (its answer lost: in_doubt); the purchase's id and state. */
async function buyLosingTheAnswer(
  ctx: CommandContext,
  database: Database,
): Promise<{ id: number; state: string }> {
  const job: PurchaseJob = {
    name: LOST_ANSWER_JOB,
    plan: { kind: "id", network: "MTN", plan_id: "102" },
    recipients: [{ phone: PHONE, ported: false }],
    catch_up: 6 * 3_600_000,
    enabled: true,
  };
  const now = new Date();
  await prepareRun(database, ctx.config, {
    now,
    actor: "demo",
    configDir: ".",
    fires: [{ job, fireTime: onDemandFire(now) }],
    intake: false,
  });
  write(`${LOST_ANSWER_JOB}: 1 recipient queued; the sandbox will lose the answer of its purchase POST\n`);
  await executePurchases(
    { database, reseller: await ctx.reseller(), config: ctx.config, logger: ctx.logger, actor: "demo" },
    { jobName: LOST_ANSWER_JOB, retryWaitMs: 0 },
  );
  const [row] = await rows<{ id: number | string; state: string }>(
    database.db,
    sql`select id, state from purchases where job_name = ${LOST_ANSWER_JOB} order by id desc limit 1`,
  );
  if (!row) throw new Error(`the ${LOST_ANSWER_JOB} purchase was not written`);
  return { id: Number(row.id), state: row.state };
}

/** Every notification stored so far, processed (each starts once its delivery has been answered). */
async function settled(processing: Promise<NotificationResult | undefined>[]) {
  for (let waited = 0; processing.length === 0 && waited < 10_000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return Promise.all(processing);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}
