// Shared by the report tests: a command context from a config, captured output, the exit code of a failed
// command, and a fingerprint of every table so a test can prove a command wrote nothing.
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { describeFailure } from "../../src/cli/fail.js";
import type { ReportIo } from "../../src/cli/report-output.js";
import { type Db, rows } from "../../src/db/client.js";

export interface CapturedIo extends ReportIo {
  stdout(): string;
  stderr(): string;
}

export function captureIo(): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

export { withContext } from "../helpers/context.js";

/** The exit code and the stderr paragraph the CLI would end a failed command with. */
export async function failureOf(promise: Promise<unknown>): Promise<{ code: number; text: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the command should have failed").toBeInstanceOf(Error);
  const failure = describeFailure(error, false);
  return { code: failure.exitCode, text: failure.text };
}

/** Row count and an md5 of the rows of every table: equal before and after means nothing was written. */
export async function fingerprint(db: Db): Promise<Record<string, string>> {
  const tables = await rows<{ name: string }>(
    db,
    sql`select schemaname || '.' || tablename as name from pg_tables
        where schemaname not in ('pg_catalog', 'information_schema') order by 1`,
  );
  const result: Record<string, string> = {};
  for (const { name } of tables) {
    const [schema, table] = name.split(".");
    const [row] = await rows<{ n: number; sum: string }>(
      db,
      sql`select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as sum
          from ${sql.identifier(schema!)}.${sql.identifier(table!)} t`,
    );
    result[name] = `${row!.n}:${row!.sum}`;
  }
  return result;
}
