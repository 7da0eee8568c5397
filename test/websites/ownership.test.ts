import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.js";
import {
  forgetOwnership,
  loadOwnership,
  recordCreated,
  recordImported,
  recordUpdated,
  removeOwnership,
} from "../../src/websites/ownership.js";
import { OwnershipWriter } from "../../src/websites/ownership-writer.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe.each(DB_KINDS)("the ownership table on %s", (kind) => {
  let test: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    test = await openTestDatabase(kind);
    db = test.database.db;
  });
  afterAll(() => test.drop());
  beforeEach(async () => {
    await db.execute(sql`delete from website_ownership`);
  });

  const one = async (domain: string) => (await loadOwnership(db)).get(domain);

  it("merges the hashes of an update into those applied before, for the same website", async () => {
    await recordCreated(db, [
      { domain: "a.example.com", websiteId: 7, secrets: { password: "p1", exclude_params: "e1" } },
    ]);
    await recordUpdated(db, [{ domain: "a.example.com", websiteId: 7, secrets: { exclude_params: "e2" } }]);
    expect(await one("a.example.com")).toEqual({
      domain: "a.example.com",
      website_id: 7,
      origin: "created",
      applied_secrets: { password: "p1", exclude_params: "e2" },
    });
  });

  it("gives up ownership when an update lands on another website with the domain", async () => {
    await recordCreated(db, [{ domain: "a.example.com", websiteId: 7, secrets: { password: "p1" } }]);
    await recordUpdated(db, [{ domain: "a.example.com", websiteId: 9, secrets: { exclude_params: "e2" } }]);
    expect(await one("a.example.com")).toMatchObject({
      website_id: 9,
      origin: "declared",
      applied_secrets: { exclude_params: "e2" },
    });
  });

  it("fills in the id of a create in doubt without losing ownership", async () => {
    await recordCreated(db, [
      { domain: "a.example.com", websiteId: null, secrets: { exclude_params: "e1" } },
    ]);
    await recordUpdated(db, [{ domain: "a.example.com", websiteId: 4, secrets: {} }]);
    expect(await one("a.example.com")).toMatchObject({ website_id: 4, origin: "created" });
  });

  it("keeps hashes on import of the same website, drops them for another", async () => {
    await recordUpdated(db, [
      { domain: "a.example.com", websiteId: 1, secrets: { exclude_params: "e1" } },
      { domain: "b.example.com", websiteId: 2, secrets: { exclude_params: "e2" } },
    ]);
    await recordImported(db, "a.example.com", 1);
    await recordImported(db, "b.example.com", 3);
    expect(await one("a.example.com")).toMatchObject({
      origin: "imported",
      applied_secrets: { exclude_params: "e1" },
    });
    expect(await one("b.example.com")).toMatchObject({
      origin: "imported",
      website_id: 3,
      applied_secrets: null,
    });
  });

  it("removes a row only for the website that was deleted, and forgets by domain", async () => {
    await recordCreated(db, [
      { domain: "a.example.com", websiteId: 1, secrets: {} },
      { domain: "b.example.com", websiteId: 2, secrets: {} },
      { domain: "c.example.com", websiteId: 3, secrets: {} },
    ]);
    await removeOwnership(db, [
      { domain: "a.example.com", websiteId: 1 },
      { domain: "b.example.com", websiteId: 99 },
    ]);
    expect([...(await loadOwnership(db)).keys()].sort()).toEqual(["b.example.com", "c.example.com"]);
    await forgetOwnership(db, ["c.example.com"]);
    expect([...(await loadOwnership(db)).keys()]).toEqual(["b.example.com"]);
  });

  it("group-commits concurrent changes: fewer statements than changes, each caller told when stored", async () => {
    let statements = 0;
    const counting = new Proxy(db, {
      get(target, key, receiver) {
        if (key !== "execute") return Reflect.get(target, key, receiver);
        return (...args: Parameters<Db["execute"]>) => {
          statements += 1;
          return target.execute(...args);
        };
      },
    });
    const writer = new OwnershipWriter(counting);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        writer.record({ kind: "created", domain: `s${i}.example.com`, websiteId: i + 1, secrets: {} }),
      ),
    );
    expect((await loadOwnership(db)).size).toBe(200);
    expect(statements).toBeLessThan(200);
    await writer.record({ kind: "removed", domain: "s0.example.com", websiteId: 1 });
    expect((await loadOwnership(db)).has("s0.example.com")).toBe(false);
  });

  it("rejects every waiting caller when the batch cannot be stored", async () => {
    const broken = new Proxy(db, {
      get(target, key, receiver) {
        if (key === "execute") return async () => Promise.reject(new Error("database gone"));
        return Reflect.get(target, key, receiver);
      },
    });
    const writer = new OwnershipWriter(broken);
    const results = await Promise.allSettled([
      writer.record({ kind: "created", domain: "a.example.com", websiteId: 1, secrets: {} }),
      writer.record({ kind: "updated", domain: "b.example.com", websiteId: 2, secrets: {} }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
