// `npm run bench:webhooks`: how many provider notifications per second the daemon's receiver accepts and stores
// (authenticated by HMAC, parsed, redacted, inserted with its body hash, answered 200) on this machine. The
// receiver runs in this process on PostgreSQL; a client process posts distinct signed deliveries to it.
import { createHmac } from "node:crypto";
import { loadavg } from "node:os";
import { createDatabase, machine, writeSection } from "./lib.js";

const { openDatabase, rows: readRows } = await import("../dist/db/client.js");
const { sql } = await import("drizzle-orm");
const { migrate } = await import("../dist/db/migrate.js");
const { startHealthServer } = await import("../dist/server/health.js");
const { Readiness } = await import("../dist/server/readiness.js");
const { createWebhookReceiver } = await import("../dist/server/webhook.js");
const { silentLogger } = await import("../dist/log/logger.js");

if (process.argv[2] === "client") {
  const { url, secret, n, concurrency, offset } = JSON.parse(process.argv[3]);
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = offset + next++;
        const body = JSON.stringify({
          success: true,
          code: 200,
          status: "successful",
          message: `Dear Customer, You have successfully gifted 0803${String(1_000_000 + i)} with 1GB of data.`,
          data: {
            service: "MTN Data",
            amount: "305.00",
            plan: "1GB",
            phone_number: `0803${String(1_000_000 + i)}`,
            date: new Date().toISOString(),
            reference: `BENCH${String(i).padStart(15, "0")}`,
            network: "MTN",
            wallet_balance: 1000000,
          },
        });
        const signature = createHmac("sha256", secret).update(body).digest("hex");
        const answer = await fetch(url, { method: "POST", headers: { "x-signature": signature }, body });
        await answer.arrayBuffer();
        if (answer.status !== 200) failed++;
      }
    }),
  );
  console.log(JSON.stringify({ ms: performance.now() - started, failed }));
  process.exit(0);
}

const SECRET = "bench-webhook-secret";
const created = await createDatabase("topsync_bench_hooks");
const database = await openDatabase({ url: created.url, maxConnections: 10 });
await migrate(database.db);
const logger = silentLogger();
const port = 19_000 + Math.floor(Math.random() * 1000);
const server = await startHealthServer({
  host: "127.0.0.1",
  port,
  readiness: new Readiness(),
  logger,
  metrics: async () => ({ contentType: "text/plain", body: "" }),
  webhook: createWebhookReceiver({
    config: {
      enabled: true,
      path: "/webhooks/reseller",
      auth: "hmac",
      secret: SECRET,
      signature_header: "X-Signature",
      algorithm: "sha256",
      encoding: "hex",
      tolerance: 300_000,
      token_in: "header",
      token_header: "X-Webhook-Token",
      allow_from: [],
      match_window: 1_800_000,
      body_timeout: 10_000,
      max_per_source: 64,
    },
    database: () => database.db,
    secrets: [SECRET, "sandbox-reseller-key"],
    logger,
    onStored: () => {},
  }),
});
const url = `${server.url}/webhooks/reseller`;
const rows = [];
let offset = 0;
try {
  const script = new URL(import.meta.url).pathname;
  for (const [n, concurrency] of [
    [5000, 8],
    [10000, 32],
  ]) {
    const load = loadavg()[0];
    const result = await runClient(script, { url, secret: SECRET, n, concurrency, offset });
    offset += n;
    rows.push({ n, concurrency, rate: Math.round((n * 1000) / result.ms), failed: result.failed, load });
    console.error(`${n} deliveries at concurrency ${concurrency}: ${Math.round((n * 1000) / result.ms)}/s`);
  }
  const [{ n: count }] = await readRows(
    database.db,
    sql`select count(*)::int as n from provider_notifications`,
  );
  const table = rows
    .map(
      (r) =>
        `| ${r.n.toLocaleString("en")} | ${r.concurrency} | ${r.rate}/s | ${r.failed} | ${r.load.toFixed(1)} |`,
    )
    .join("\n");
  writeSection(
    "Webhooks",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:webhooks\` on ${machine()}, 2 cores shared by the
receiver (this process), the client (its own process) and PostgreSQL. Each delivery is a distinct notification
signed with HMAC-SHA256: verified, parsed, redacted, stored in \`provider_notifications\` with its body hash, and
answered 200 (processing happens after the answer and is not part of this figure).

**Target:** 1,000 notifications per second accepted and stored: ${rows.every((r) => r.rate >= 1000 && r.failed === 0) ? "met" : "not met"} (every row).

| deliveries | client concurrency | accepted and stored | refused | load average at start |
|---:|---:|---:|---:|---:|
${table}

Rows stored: ${count.toLocaleString("en")} (every delivery once).`,
  );
} finally {
  await server.close();
  await database.close();
  await created.drop();
}

function runClient(script, args) {
  return new Promise((resolve, reject) => {
    import("node:child_process").then(({ spawn }) => {
      const child = spawn(process.execPath, [script, "client", JSON.stringify(args)], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      child.once("exit", (code) => {
        const last = out.trim().split("\n").pop();
        if (code !== 0 || !last) reject(new Error(`client exited with ${code}: ${out}`));
        else resolve(JSON.parse(last));
      });
    }, reject);
  });
}
