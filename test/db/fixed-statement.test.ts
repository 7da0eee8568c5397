// A statement compiled once: at each call the same text and values as building it anew.
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { fixedStatement } from "../../src/db/fixed-statement.js";

const dialect = new PgDialect();
const STATES = "{queued,submitting}";

describe("fixedStatement", () => {
  const build = (payload: string, ids: string) =>
    sql`with v as (select * from json_to_recordset(${payload}::json) as v(id bigint))
      select ${sql.raw("id")}, ${"a constant"} as c from v where id = any(${ids}::bigint[])
        and state = any(${STATES}::text[]) and ${sql`note = ${"x"}`} is not null`;
  const fixed = fixedStatement(2, build);

  it("makes the text and values building the tree makes, for any values", () => {
    for (const [payload, ids] of [
      ['[{"id":1}]', "{1}"],
      ["$1 $2 \u0000 '; drop table purchases; --", "{}"],
      ["", "{1,2,3}"],
    ] as const) {
      const made = dialect.sqlToQuery(fixed(payload, ids));
      expect(made).toEqual(dialect.sqlToQuery(build(payload, ids)));
      expect(made.params).toEqual([payload, "a constant", ids, STATES, "x"]);
    }
  });

  it("puts each argument wherever it goes, once or more, beside values of the statement's own", () => {
    const twice = (id: string) => sql`select ${id}, ${new Date(0)}, ${id} in ${[1, 2]}`;
    expect(dialect.sqlToQuery(fixedStatement(1, twice)("7"))).toEqual(dialect.sqlToQuery(twice("7")));
  });
});
