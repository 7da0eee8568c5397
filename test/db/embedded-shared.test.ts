// The embedded database's folder opened twice in one process (the demo runs one command after another on one
// context, each opening the ledger) is one PGlite instance, shared: two instances on one folder each kept their own
// buffers, so what one wrote the other did not see (the demo's plan showed websites it had just applied as changed),
// and both wrote the same files. The folder closes when its last user closes it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";

describe("the embedded database opened twice in one process", { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), "topsync-shared-pglite-"));
    dirs.push(dir);
    return join(dir, "pglite");
  };

  it("sees at once what the other opening wrote, and stays open until both are closed", async () => {
    const dir = folder();
    const first = await openDatabase({ pgliteDir: dir });
    const second = await openDatabase({ pgliteDir: `${dir}/` }); // the same folder, written another way
    await rows(first.db, sql`create table marks (n int)`);
    await rows(first.db, sql`insert into marks values (1)`);
    expect(await rows<{ n: number }>(second.db, sql`select n from marks`)).toEqual([{ n: 1 }]);
    await rows(second.db, sql`insert into marks values (2)`);
    expect(await rows<{ n: number }>(first.db, sql`select n from marks order by n`)).toEqual([
      { n: 1 },
      { n: 2 },
    ]);

    await first.close();
    await first.close(); // closing one opening twice does not close the other's
    expect(await rows<{ n: number }>(second.db, sql`select count(*)::int as n from marks`)).toEqual([
      { n: 2 },
    ]);
    await second.close();

    // Closed by its last user: the folder can be opened again, with everything in it.
    const again = await openDatabase({ pgliteDir: dir });
    expect(await rows<{ n: number }>(again.db, sql`select count(*)::int as n from marks`)).toEqual([
      { n: 2 },
    ]);
    await again.close();
  });

  it("in memory, each opening is a database of its own", async () => {
    const a = await openDatabase({ pgliteDir: "memory://" });
    const b = await openDatabase({ pgliteDir: "memory://" });
    await rows(a.db, sql`create table only_in_a (n int)`);
    await expect(rows(b.db, sql`select * from only_in_a`)).rejects.toThrow();
    await Promise.all([a.close(), b.close()]);
  });
});
