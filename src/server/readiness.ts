// /readyz: ready when the database answers, every migration is applied and the daemon is not stopping.
// A probe never waits long: each database check gives up after PROBE_TIMEOUT_MS.
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { rows } from "../db/client.js";
import { pendingMigrations } from "../db/migrate.js";
import { databaseReason } from "../db/sql-state.js";
import { withTimeout } from "./timeout.js";

const PROBE_TIMEOUT_MS = 2000;

export interface ReadyReport {
  ready: boolean;
  checks: { database: string; migrations: string; shutdown: string };
}

export class Readiness {
  private database: Database | undefined;
  private connectError = "not connected yet";
  private stopping = false;

  connected(database: Database): void {
    this.database = database;
  }

  connectFailed(message: string): void {
    this.connectError = message;
  }

  shuttingDown(): void {
    this.stopping = true;
  }

  async check(): Promise<ReadyReport> {
    const shutdown = this.stopping ? "shutting down" : "ok";
    const database = this.database;
    if (!database) return report({ database: this.connectError, migrations: "unknown", shutdown });
    try {
      await withTimeout(rows(database.db, sql`select 1`), PROBE_TIMEOUT_MS, "the database did not answer");
    } catch (error) {
      return report({
        database: `unreachable: ${databaseReason(error)}`,
        migrations: "unknown",
        shutdown,
      });
    }
    let migrations = "ok";
    try {
      const pending = await withTimeout(
        pendingMigrations(database.db),
        PROBE_TIMEOUT_MS,
        "the migrations check did not answer",
      );
      if (pending.length > 0) migrations = `pending: ${pending.join(", ")}`;
    } catch (error) {
      migrations = `unknown: ${databaseReason(error)}`;
    }
    return report({ database: "ok", migrations, shutdown });
  }
}

function report(checks: ReadyReport["checks"]): ReadyReport {
  return { ready: Object.values(checks).every((c) => c === "ok"), checks };
}
