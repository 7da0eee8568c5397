// A provider's notification stored in the ledger as the webhook receiver stores it, for tests that then process it.
import type { Db } from "../../src/db/client.js";
import { bodyHash, parseNotification, storeNotification } from "../../src/purchases/notifications.js";

/** Stores a notification `{ status, data }` as the webhook receiver does; returns what was parsed and the stored row. */
export async function storeNotice(db: Db, status: string, data: Record<string, unknown>) {
  const raw = Buffer.from(JSON.stringify({ status, data }));
  const parsed = parseNotification(JSON.parse(raw.toString()));
  if ("problem" in parsed) throw new Error(parsed.problem);
  const stored = await storeNotification(db, {
    sha256: bodyHash(raw),
    source: "127.0.0.1",
    body: raw.toString(),
    parsed,
  });
  return { parsed, stored };
}
