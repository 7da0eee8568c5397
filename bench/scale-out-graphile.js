// One graphile-worker process of bench:scale-out: the reference a fleet of `topsync run` replicas is compared with.
// Its task does the work a replica does per purchase — POST the purchase, read its status until final, through
// the same HTTP client at the same concurrency — and records the outcome with one insert. Configured as
// graphile-worker's performance docs advise: a local queue and batched completions. Prints `ready` once it is
// polling; stops on SIGTERM and prints its own CPU seconds.
import { Logger, run } from "graphile-worker";
import { ServiceClient } from "../dist/http/service-client.js";
import { ResellerClient } from "../dist/reseller/client.js";

const { databaseUrl, resellerUrl, concurrency, verifyDelayMs } = JSON.parse(process.argv[2]);

const client = new ResellerClient(
  new ServiceClient({
    service: "reseller",
    baseUrl: resellerUrl,
    apiKey: "sandbox-reseller-key",
    timeout: { connect: 5000, headers: 15000, body: 15000 },
    concurrency,
    rateLimit: 1_000_000,
    // config.yaml's retry of calls certainly not sent, as the replicas have it
    retry: { max_attempts: 5, base_delay: 200, max_delay: 30_000 },
  }),
);

/** Buy, then poll until a final status. */
async function buyAndVerify(phone) {
  const answer = await client.buyData({ network_id: "1", plan_id: "102", phone_number: phone });
  if (!answer.accepted) return "failed";
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, verifyDelayMs));
    const v = await client.verifyTransaction(answer.reference);
    if (v.found && v.status !== "pending" && v.status !== "unknown")
      return v.status === "success" ? "succeeded" : "failed";
  }
}

const runner = await run({
  connectionString: databaseUrl,
  concurrency,
  noHandleSignals: true,
  pollInterval: 100,
  logger: new Logger(() => () => {}),
  taskList: {
    buy: async (payload, helpers) => {
      const status = await buyAndVerify(payload.phone);
      await helpers.query(
        "insert into bench_results (phone, status, queued_at, done_at) values ($1, $2, $3, clock_timestamp())",
        [payload.phone, status, helpers.job.created_at],
      );
    },
  },
  preset: {
    worker: { localQueue: { size: concurrency * 4 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 },
  },
});
console.log("ready");

process.once("SIGTERM", async () => {
  await runner.stop();
  await client.close();
  process.exit(0);
});
