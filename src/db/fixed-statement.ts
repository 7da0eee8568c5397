// A statement whose text never changes, only its values: compiled from drizzle's `sql` tree once, then handed
// to either driver at each call as that text with the call's values. Compiling a large tree (the ledger's
// transition statement: common table expressions, a column list per column) costs drizzle some 100 µs a statement
// on a hot path that runs hundreds a second.
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";

const dialect = new PgDialect();

/** A value that stands for argument `i` while the statement is compiled. */
const slot = (i: number) => `\u0000topsync-fixed-statement-argument-${i}\u0000`;

type Compiled = ReturnType<PgDialect["sqlToQuery"]>;

/**
 * `build` as a function whose SQL is compiled once. `build` must make the same text whatever its arguments (no
 * branch on them): only the values may differ. The statement it returns compiles (`toQuery`, which both drivers'
 * sessions and `PgDialect.sqlToQuery` call) to that text with the call's values where the arguments go.
 */
export function fixedStatement<A extends unknown[]>(
  arity: number,
  build: (...args: A) => SQL,
): (...args: A) => SQL {
  const slots = Array.from({ length: arity }, (_, i) => slot(i));
  const compiled: Compiled = dialect.sqlToQuery(build(...(slots as A)));
  // Each value: the index of the argument it stands for, or -1 for a value of the statement's own.
  const argumentAt = compiled.params.map((value) => (typeof value === "string" ? slots.indexOf(value) : -1));
  return (...args: A) => {
    const params = compiled.params.map((value, i) => {
      const argument = argumentAt[i]!;
      return argument >= 0 ? args[argument] : value;
    });
    const statement = sql``;
    statement.toQuery = () => ({ sql: compiled.sql, params, typings: compiled.typings });
    return statement;
  };
}
