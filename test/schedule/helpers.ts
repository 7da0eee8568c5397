// What the schedule tests that run the CLI start from: the sandbox over HTTP and a fresh, migrated PostgreSQL
// database, with a connection of the test's own to look at the ledger.
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { createPostgresDatabase } from "../helpers/db.js";

export interface ScheduleLedger {
  sandbox: Sandbox;
  url: string;
  database: Database;
  /** Closes the connection, drops the database and stops the sandbox. */
  close(): Promise<void>;
}

export async function openScheduleLedger(seed: number): Promise<ScheduleLedger> {
  const sandbox = await startSandbox({ verifyLag: "reads", seed });
  const created = await createPostgresDatabase();
  const database = await openDatabase({ url: created.url, maxConnections: 2 });
  await migrate(database.db);
  return {
    sandbox,
    url: created.url,
    database,
    async close() {
      await database.close();
      await created.drop();
      await sandbox.close();
    },
  };
}
