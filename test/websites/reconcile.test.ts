import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { saveWebsitePlan } from "../../src/plans/save.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { applyPlan } from "../../src/websites/apply.js";
import { loadOwnership } from "../../src/websites/ownership.js";
import { planWebsites } from "../../src/websites/plan.js";
import { type ReconcileOptions, reconcile } from "../../src/websites/reconcile.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import {
  changeRemotely,
  configFor,
  depsFor,
  failingLookups,
  idOf,
  mutations,
  shiftedListing,
  startProxy,
  type Target,
} from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  test = await openTestDatabase("postgres");
});
afterEach(async () => {
  sandbox.reset();
  await test.drop();
});

/** One pass with `websites` as config declares it. */
async function pass(
  websites: Record<string, unknown>,
  options: Partial<ReconcileOptions> = {},
  target: Target = sandbox,
) {
  const deps = depsFor(target, configFor(target, websites), test.database.db);
  try {
    return await reconcile(deps, { mode: "apply", ...options });
  } finally {
    await deps.close();
  }
}

const plan = (websites: Record<string, unknown>, target?: Target) => pass(websites, { mode: "plan" }, target);

const THREE = {
  defaults: { privacy: "public", exclude_params: ["utm_source"] },
  items: [
    { domain: "example.com" },
    { domain: "shop.example.com", exclude_ips: ["203.0.113.7", "198.51.100.1"], email: true },
    { domain: "staff.example.com", privacy: "password", password: "staff-only-pw" },
  ],
};

describe("convergence", () => {
  it("applies the declared websites, then plans no changes", async () => {
    const first = await pass(THREE);
    expect(first.status).toBe("ok");
    expect(first.counts).toMatchObject({ created: 3, updated: 0, deleted: 0 });
    const stored = sandbox.websites().sort((a, b) => a.domain.localeCompare(b.domain));
    expect(stored.map((w) => [w.domain, w.privacy, w.email, w.exclude_ips])).toEqual([
      ["example.com", 0, 0, null],
      ["shop.example.com", 0, 1, "203.0.113.7\n198.51.100.1"],
      ["staff.example.com", 2, 0, null],
    ]);
    expect(sandbox.websites().find((w) => w.domain === "staff.example.com")?.password).toBe("staff-only-pw");
    const second = await plan(THREE);
    expect(second.plan.summary).toEqual({
      create: 0,
      update: 0,
      delete: 0,
      unchanged: 3,
      unmanaged: 0,
      conflicts: 0,
      withheld: 0,
    });
  });

  it("converges when config writes https://www.example.com/", async () => {
    const websites = { items: [{ domain: "https://www.Example.com/" }] };
    await pass(websites);
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["example.com"]);
    const again = await plan(websites);
    expect(again.plan.summary).toMatchObject({ create: 0, update: 0, unchanged: 1 });
  });

  it("records every created website as owned, with the hashes of its write-only values", async () => {
    await pass(THREE);
    const owned = await loadOwnership(test.database.db);
    expect([...owned.values()].map((r) => [r.domain, r.origin, r.website_id])).toEqual(
      expect.arrayContaining([
        ["example.com", "created", idOf(sandbox, "example.com")],
        ["staff.example.com", "created", idOf(sandbox, "staff.example.com")],
      ]),
    );
    const staff = owned.get("staff.example.com")!;
    expect(Object.keys(staff.applied_secrets ?? {}).sort()).toEqual(["exclude_params", "password"]);
    expect(JSON.stringify([...owned.values()])).not.toContain("staff-only-pw");
  });

  it("puts back a field changed remotely", async () => {
    await pass(THREE);
    const id = idOf(sandbox, "shop.example.com");
    await changeRemotely(sandbox, "PUT", id, { privacy: "1", exclude_ips: "10.9.9.9" });
    const drift = await plan(THREE);
    expect(drift.plan.entries.find((e) => e.action === "update")).toMatchObject({
      domain: "shop.example.com",
      id,
      diff: {
        privacy: { from: "private", to: "public" },
        exclude_ips: { from: ["10.9.9.9"], to: ["203.0.113.7", "198.51.100.1"] },
      },
    });
  });

  it("re-creates a website deleted remotely by someone else", async () => {
    await pass(THREE);
    const old = idOf(sandbox, "example.com");
    await changeRemotely(sandbox, "DELETE", old);
    const next = await pass(THREE);
    expect(next.counts).toMatchObject({ created: 1, updated: 0, deleted: 0, unchanged: 2 });
    const fresh = idOf(sandbox, "example.com");
    expect(fresh).not.toBe(old);
    expect((await loadOwnership(test.database.db)).get("example.com")?.website_id).toBe(fresh);
    expect((await plan(THREE)).plan.summary.unchanged).toBe(3);
  });
});

describe("a complete listing that shows none of the websites topsync owns", () => {
  /** The sandbox's service answering every listing as a complete, empty account (its writes still go through). */
  const empty = () =>
    startProxy(sandbox, {
      reply: (method, url) =>
        method === "GET" && url.pathname === "/api/v1/websites"
          ? {
              status: 200,
              body: {
                data: [],
                links: { next: null },
                meta: { current_page: 1, last_page: 1, per_page: 100, total: 0 },
                status: 200,
              },
            }
          : undefined,
    });
  const withPrune = { ...THREE, prune: true, items: [...THREE.items, { domain: "old.example.com" }] };

  it("keeps ownership, creates and deletes nothing, and says why, until a person accepts it", async () => {
    expect((await pass(withPrune)).counts.created).toBe(4);
    const before = sandbox.websiteMutations().length;
    const proxy = await empty();
    try {
      // old.example.com no longer declared: before, its ownership was forgotten and the three others created again.
      const blind = await pass({ ...THREE, prune: true }, {}, proxy);
      expect(blind.status).toBe("partial");
      expect(blind.counts).toMatchObject({ created: 0, deleted: 0 });
      expect(blind.plan.remote.complete).toBe(false);
      expect(blind.plan.forget).toEqual([]);
      expect(blind.plan.entries.map((e) => e.action)).toEqual(["withheld", "withheld", "withheld"]);
      expect(blind.errors).toEqual([
        expect.objectContaining({
          code: "OWNED_VANISHED",
          message: expect.stringContaining("shows none of the 4 websites topsync owns"),
        }),
      ]);
      expect(blind.errors[0]!.message).toContain("--accept-vanished");
      expect(sandbox.websiteMutations().length).toBe(before);
      const kept = await loadOwnership(test.database.db);
      expect([...kept.keys()].sort()).toEqual([
        "example.com",
        "old.example.com",
        "shop.example.com",
        "staff.example.com",
      ]);
    } finally {
      await proxy.close();
    }
    // The service shows the account again: nothing was lost, nothing to do but the prune.
    const back = await plan({ ...THREE, prune: true });
    expect(back.plan.summary).toMatchObject({ create: 0, update: 0, delete: 1, unchanged: 3 });
  });

  it("creates them again and forgets the rest when a person accepts that they are gone", async () => {
    await pass(withPrune);
    for (const website of sandbox.websites()) await changeRemotely(sandbox, "DELETE", website.id);
    const accepted = await pass({ ...THREE, prune: true }, { acceptVanished: true });
    expect(accepted.status).toBe("ok");
    expect(accepted.counts.created).toBe(3);
    expect(accepted.plan.forget).toEqual(["old.example.com"]);
    expect([...(await loadOwnership(test.database.db)).keys()].sort()).toEqual([
      "example.com",
      "shop.example.com",
      "staff.example.com",
    ]);
  });
});

describe("drift", () => {
  it("is put back by the next apply pass", async () => {
    await pass(THREE);
    const id = idOf(sandbox, "shop.example.com");
    await changeRemotely(sandbox, "PUT", id, { privacy: "1", email: "0", exclude_ips: "10.9.9.9" });
    const before = sandbox.websiteMutations().length;
    const fixed = await pass(THREE);
    expect(fixed.counts).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    const puts = sandbox.websiteMutations().slice(before);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({
      method: "PUT",
      path: `/api/v1/websites/${id}`,
      fields: { privacy: "0", email: "1", exclude_ips: "203.0.113.7\n198.51.100.1" },
    });
    expect((await plan(THREE)).plan.summary.update).toBe(0);
  });

  it("is only reported in observe mode", async () => {
    await pass(THREE);
    await changeRemotely(sandbox, "PUT", idOf(sandbox, "example.com"), { privacy: "1" });
    const before = sandbox.websiteMutations().length;
    const observed = await pass({ ...THREE, mode: "observe" }, { mode: "observe" });
    expect(observed.plan.summary.update).toBe(1);
    expect(observed.counts.updated).toBe(0);
    expect(sandbox.websiteMutations()).toHaveLength(before);
    const [run] = await rows<{ mode: string; status: string; summary: { planned: { update: number } } }>(
      test.database.db,
      sql`select mode, status, summary from website_runs where id = ${observed.runId}`,
    );
    expect(run).toMatchObject({ mode: "observe", status: "ok", summary: { planned: { update: 1 } } });
  });
});

describe("plan", () => {
  it("makes zero mutating requests and changes no ownership, whatever it finds", async () => {
    sandbox.seedWebsites([{ domain: "legacy.example.org" }, { domain: "example.com", privacy: 1 }]);
    const result = await plan({ ...THREE, prune: true });
    expect(result.plan.summary).toMatchObject({ create: 2, update: 1, unmanaged: 1 });
    expect(sandbox.websiteMutations()).toEqual([]);
    expect((await loadOwnership(test.database.db)).size).toBe(0);
  });
});

describe("ownership and prune", () => {
  it("leaves unmanaged websites untouched even with prune on", async () => {
    sandbox.seedWebsites([{ domain: "legacy.example.org" }, { domain: "blog.example.org" }]);
    const result = await pass({ ...THREE, prune: true });
    expect(result.counts).toMatchObject({ created: 3, deleted: 0, unmanaged: 2 });
    expect(mutations(sandbox).filter((m) => m.startsWith("DELETE"))).toEqual([]);
    expect(sandbox.websites().map((w) => w.domain)).toContain("legacy.example.org");
  });

  it("prunes only the websites topsync owns, and forgets them", async () => {
    sandbox.seedWebsites([{ domain: "legacy.example.org" }]);
    await pass(THREE);
    const shop = idOf(sandbox, "shop.example.com");
    const fewer = { ...THREE, items: THREE.items.filter((i) => i.domain !== "shop.example.com") };
    const kept = await pass(fewer);
    expect(kept.counts.deleted).toBe(0);
    expect(kept.plan.entries.find((e) => e.domain === "shop.example.com")).toMatchObject({
      action: "unmanaged",
      reason: "owned by topsync but no longer declared; prune is off",
    });
    const pruned = await pass({ ...fewer, prune: true });
    expect(pruned.counts).toMatchObject({ deleted: 1, unmanaged: 1 });
    expect(mutations(sandbox).filter((m) => m.startsWith("DELETE"))).toEqual([
      `DELETE /api/v1/websites/${shop}`,
    ]);
    expect(
      sandbox
        .websites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(["example.com", "legacy.example.org", "staff.example.com"]);
    expect((await loadOwnership(test.database.db)).has("shop.example.com")).toBe(false);
  });

  it("runs creates and updates first, deletes last", async () => {
    await pass({ items: [{ domain: "old.example.com" }] });
    await pass({ prune: true, items: [{ domain: "new.example.com" }] });
    expect(
      mutations(sandbox)
        .slice(1)
        .map((m) => m.split(" ")[0]),
    ).toEqual(["POST", "DELETE"]);
  });
});

describe("delete guards", () => {
  const SIX = Array.from({ length: 6 }, (_, i) => ({ domain: `s${i}.example.com` }));

  it("refuse more deletes than max_deletes and record why; --allow-mass-delete lets them through", async () => {
    await pass({ items: [...SIX, { domain: "keep.example.com" }] });
    const websites = { prune: true, max_deletes: 5, items: [{ domain: "keep.example.com" }] };
    const refused = await pass(websites);
    expect(refused.status).toBe("partial");
    expect(refused.applied?.deletesRefused?.code).toBe("TOO_MANY_DELETES");
    expect(mutations(sandbox).filter((m) => m.startsWith("DELETE"))).toEqual([]);
    const [run] = await rows<{ status: string; errors: { code: string }[] }>(
      test.database.db,
      sql`select status, errors from website_runs where id = ${refused.runId}`,
    );
    expect(run).toMatchObject({ status: "partial", errors: [{ code: "TOO_MANY_DELETES" }] });
    const allowed = await pass(websites, { allowMassDelete: true });
    expect(allowed.counts.deleted).toBe(6);
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["keep.example.com"]);
  });

  it("refuse every delete when the declared list is empty, even with --allow-mass-delete", async () => {
    await pass({ items: [{ domain: "a.example.com" }] });
    const result = await pass({ prune: true, items: [] }, { allowMassDelete: true });
    expect(result.applied?.deletesRefused?.code).toBe("NOTHING_DECLARED");
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["a.example.com"]);
  });

  it("refuse every delete when a page fails mid-listing: the pass stops before changing anything", async () => {
    await pass({ items: [...SIX, { domain: "keep.example.com" }] });
    sandbox.seedWebsites(Array.from({ length: 250 }, (_, i) => ({ domain: `bulk-${i}.example.net` })));
    const proxy = await startProxy(sandbox, {
      reply: (method, url) =>
        method === "GET" && url.searchParams.get("page") === "2"
          ? { status: 500, body: { message: "Server Error" } }
          : undefined,
    });
    const before = sandbox.websiteMutations().length;
    try {
      const websites = {
        prune: true,
        items: [{ domain: "keep.example.com" }, { domain: "new.example.com" }],
      };
      await expect(pass(websites, { allowMassDelete: true }, proxy)).rejects.toThrow(/HTTP 500/);
    } finally {
      await proxy.close();
    }
    expect(sandbox.websiteMutations()).toHaveLength(before);
    expect(sandbox.websites()).toHaveLength(257);
    const [run] = await rows<{ status: string; errors: { action: string; message: string }[] }>(
      test.database.db,
      sql`select status, errors from website_runs order by id desc limit 1`,
    );
    expect(run?.status).toBe("failed");
    expect(run?.errors[0]).toMatchObject({ action: "list" });
    expect(run?.errors[0]?.message).toContain("nothing was changed");
  });
});

describe("a create whose outcome was unknown", () => {
  it("pins the website the next pass finds, so a website a person makes later under the domain is not topsync's", async () => {
    // The service creates the website but its answer is lost (HTTP 500 after the write).
    sandbox.setFaults({ endpoints: { "websites.create": { rate500After: 1 } } });
    const items = [{ domain: "doubt.example.com" }, { domain: "kept.example.com" }];
    const first = await pass({ items });
    expect(first.errors.map((e) => e.domain).sort()).toEqual(["doubt.example.com", "kept.example.com"]);
    sandbox.setFaults({ endpoints: {} });
    expect((await loadOwnership(test.database.db)).get("doubt.example.com")?.website_id).toBeNull();

    // The next pass finds it as declared: nothing to change, and it is topsync's by its id from now on.
    const adopted = await pass({ items });
    expect(adopted.counts).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    const id = idOf(sandbox, "doubt.example.com");
    expect((await loadOwnership(test.database.db)).get("doubt.example.com")?.website_id).toBe(id);

    // A person deletes it and another makes a website under the domain by hand: not topsync's to prune.
    await changeRemotely(sandbox, "DELETE", id);
    const [theirs] = sandbox.seedWebsites([{ domain: "doubt.example.com" }]);
    const pruned = await pass({ prune: true, items: [{ domain: "kept.example.com" }] });
    expect(pruned.counts.deleted).toBe(0);
    expect(pruned.plan.entries.find((e) => e.domain === "doubt.example.com")).toMatchObject({
      action: "unmanaged",
      reason: `topsync owned website ${id} with this domain, not this one`,
    });
    expect(sandbox.websites().map((w) => w.id)).toContain(theirs!.id);
  });

  it("made nothing: the next pass creates them, not held back as an account that looks empty", async () => {
    // Every create answered 500 without making anything: the domains are topsync's, ids unknown, and none is listed.
    sandbox.setFaults({ endpoints: { "websites.create": { rate500Before: 1 } } });
    const items = [{ domain: "a.example.com" }, { domain: "b.example.com" }];
    const first = await pass({ items });
    expect(first.errors).toHaveLength(2);
    expect(sandbox.websites()).toEqual([]);
    sandbox.setFaults({ endpoints: {} });
    const next = await pass({ items });
    expect(next.status).toBe("ok");
    expect(next.plan.remote.complete).toBe(true);
    expect(next.counts.created).toBe(2);
    expect((await plan({ items })).plan.summary).toMatchObject({ create: 0, unchanged: 2 });
  });

  it("a plan pass finds it without pinning anything (plan changes no ownership)", async () => {
    sandbox.setFaults({ endpoints: { "websites.create": { rate500After: 1 } } });
    await pass({ items: [{ domain: "doubt.example.com" }, { domain: "kept.example.com" }] });
    sandbox.setFaults({ endpoints: {} });
    await plan({ items: [{ domain: "doubt.example.com" }, { domain: "kept.example.com" }] });
    expect((await loadOwnership(test.database.db)).get("doubt.example.com")?.website_id).toBeNull();
  });
});

describe("the service changing while it is listed", () => {
  const shifted = () => shiftedListing(sandbox, test.database.db);

  it("does not forget an owned website one page boundary hid, and the next pass prunes it", async () => {
    const { proxy, owned, changed } = await shifted();
    const fewer = { prune: true, items: [{ domain: "kept.example.com" }] };
    let hidden: Awaited<ReturnType<typeof pass>>;
    try {
      hidden = await pass(fewer, {}, proxy);
    } finally {
      await proxy.close();
    }
    expect(changed()).toBe(true);
    expect(hidden.plan.entries.some((e) => e.domain === "owned.example.com")).toBe(false);
    expect(hidden.plan.remote.complete).toBe(false);
    expect(hidden.plan.remote.problem).toContain(`owned.example.com (id ${owned})`);
    expect(hidden.plan.forget).toEqual([]);
    expect(hidden.status).toBe("partial");
    expect((await loadOwnership(test.database.db)).get("owned.example.com")?.website_id).toBe(owned);

    const next = await pass(fewer);
    expect(next.counts.deleted).toBe(1);
    expect(sandbox.websites().some((w) => w.domain === "owned.example.com")).toBe(false);
  });

  it("does not create again a declared website one page boundary hid", async () => {
    const { proxy, owned } = await shifted();
    const before = mutations(sandbox).length;
    let hidden: Awaited<ReturnType<typeof pass>>;
    try {
      hidden = await pass(
        { items: [{ domain: "owned.example.com" }, { domain: "kept.example.com" }] },
        {},
        proxy,
      );
    } finally {
      await proxy.close();
    }
    expect(hidden.plan.entries.find((e) => e.domain === "owned.example.com")).toMatchObject({
      action: "withheld",
      instead: "create",
    });
    expect(hidden.applied?.conflicts).toEqual([]);
    // Only the person's own delete: topsync sent nothing.
    expect(mutations(sandbox).slice(before)).toEqual([expect.stringMatching(/^DELETE /)]);
    expect((await loadOwnership(test.database.db)).get("owned.example.com")?.website_id).toBe(owned);
    expect(
      (await plan({ items: [{ domain: "owned.example.com" }, { domain: "kept.example.com" }] })).plan.summary,
    ).toMatchObject({ create: 0, unchanged: 2 });
  });

  it("refuses to save a website plan over a listing one page boundary hid an owned website from", async () => {
    const { proxy, owned, changed } = await shifted();
    const websites = { items: [{ domain: "owned.example.com" }, { domain: "kept.example.com" }] };
    const deps = depsFor(proxy, configFor(proxy, websites), test.database.db);
    const file = join(mkdtempSync(join(tmpdir(), "topsync-saved-")), "sites.plan");
    try {
      await expect(
        saveWebsitePlan(
          { api: deps.api, db: test.database.db, config: configFor(proxy, websites) },
          { file, author: { name: "ada", proof: "account" }, configDigest: null, now: new Date() },
        ),
      ).rejects.toThrow(
        `cannot save the plan: the listing did not show owned.example.com (id ${owned}), which the service still holds when asked by id`,
      );
    } finally {
      await deps.close();
      await proxy.close();
    }
    expect(changed()).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(await rows(test.database.db, sql`select id from saved_plans`)).toEqual([]);
  });

  /** owned, again and kept applied (topsync's); then a person deletes owned and again on the service. */
  async function twoDeletedByAPerson() {
    await pass({
      items: [
        { domain: "owned.example.com" },
        { domain: "again.example.com" },
        { domain: "kept.example.com" },
      ],
    });
    await changeRemotely(sandbox, "DELETE", idOf(sandbox, "owned.example.com"));
    await changeRemotely(sandbox, "DELETE", idOf(sandbox, "again.example.com"));
  }

  it("forgets an owned website, and creates a declared one again, once the service says it is gone (404)", async () => {
    await twoDeletedByAPerson();
    const result = await pass({ items: [{ domain: "again.example.com" }, { domain: "kept.example.com" }] });
    expect(result.status).toBe("ok");
    expect(result.plan.forget).toEqual(["owned.example.com"]);
    expect(result.counts.created).toBe(1);
    expect((await loadOwnership(test.database.db)).has("owned.example.com")).toBe(false);
  });
  it("keeps an owned website whose look-up fails, creates it not again, and goes on with the rest", async () => {
    await twoDeletedByAPerson();
    const proxy = await failingLookups(sandbox);
    let result: Awaited<ReturnType<typeof pass>>;
    try {
      result = await pass(
        { items: [{ domain: "again.example.com" }, { domain: "new.example.com" }] },
        {},
        proxy,
      );
    } finally {
      await proxy.close();
    }
    expect(result.status).toBe("partial");
    expect(result.errors.map((e) => e.code)).toEqual(["LOOKUP_FAILED", "LOOKUP_FAILED"]);
    expect(result.plan.forget).toEqual([]);
    expect(result.plan.entries.find((e) => e.domain === "again.example.com")).toMatchObject({
      action: "withheld",
    });
    expect(result.counts.created).toBe(1);
    const owned = await loadOwnership(test.database.db);
    expect([...owned.keys()].sort()).toEqual([
      "again.example.com",
      "kept.example.com",
      "new.example.com",
      "owned.example.com",
    ]);
  });
});

describe("a plan made from an incomplete listing", () => {
  it("is applied without any create or delete", async () => {
    await pass({ items: [{ domain: "a.example.com" }, { domain: "keep.example.com" }] });
    const config = configFor(sandbox, {
      prune: true,
      items: [{ domain: "keep.example.com" }, { domain: "new.example.com" }],
    });
    const deps = depsFor(sandbox, config, test.database.db);
    const { websites } = await deps.api.readWebsites();
    const partial = planWebsites(config.websites.items, websites, await loadOwnership(test.database.db), {
      prune: true,
      secretKey: deps.secretKey,
      complete: false,
    });
    expect(partial.summary).toMatchObject({ create: 0, delete: 0, withheld: 2 });
    const before = sandbox.websiteMutations().length;
    await applyPlan(partial, {
      ...deps,
      desired: config.websites.items,
      limits: { maxDeletes: 100, allowMassDelete: true },
    }).finally(() => deps.close());
    expect(mutations(sandbox).slice(before)).toEqual([]);
    expect((await loadOwnership(test.database.db)).has("a.example.com")).toBe(true);
  });
});

describe("conflicts", () => {
  it("are reported and never touched, even when declared and owned with prune on", async () => {
    await pass({ items: [{ domain: "dup.example.com" }, { domain: "other.example.com" }] });
    const other = idOf(sandbox, "other.example.com");
    const twin = {
      ...sandbox.websites().find((w) => w.domain === "dup.example.com")!,
      id: 9001,
      domain: "www.dup.example.com",
    };
    const proxy = await startProxy(sandbox, {
      rewrite: (method, url, body) => {
        if (method !== "GET" || url.pathname !== "/api/v1/websites") return body;
        const page = body as { data: unknown[]; meta: { total: number } };
        const data = [...page.data, { ...twin, password: false, exclude_params: undefined }];
        return { ...page, data, meta: { ...page.meta, total: page.meta.total + 1 } };
      },
    });
    const before = sandbox.websiteMutations().length;
    try {
      const result = await pass({ prune: true, items: [{ domain: "dup.example.com" }] }, {}, proxy);
      expect(result.plan.entries).toContainEqual({
        action: "conflict",
        domain: "dup.example.com",
        ids: [idOf(sandbox, "dup.example.com"), 9001],
        reason: expect.stringContaining("resolve it by hand"),
      });
      expect(result.counts).toMatchObject({ conflicts: 1, deleted: 1 });
    } finally {
      await proxy.close();
    }
    expect(mutations(sandbox).slice(before)).toEqual([`DELETE /api/v1/websites/${other}`]);
  });
});

describe("pagination", () => {
  it.each(["laravel", "bare"] as const)(
    "reads all 1,050 remote websites in the %s page shape",
    async (pageShape) => {
      sandbox.setOptions({ pageShape });
      const seeded = sandbox.seedWebsites(
        Array.from({ length: 1050 }, (_, i) => ({
          domain: `site-${String(i).padStart(4, "0")}.example.com`,
          privacy: 0 as const,
        })),
      );
      const items = seeded.slice(0, 1040).map((w) => ({ domain: w.domain, privacy: "public" }));
      const first = await plan({ items: [...items, { domain: "fresh.example.com" }] });
      expect(first.pages).toBe(11);
      expect(first.plan.remote.websites).toBe(1050);
      // Topsync never applied exclude_params to these, so each is set once; none is created twice.
      expect(first.plan.summary).toEqual({
        create: 1,
        update: 1040,
        delete: 0,
        unchanged: 0,
        unmanaged: 10,
        conflicts: 0,
        withheld: 0,
      });
      const listed = sandbox.requests().filter((r) => r.method === "GET" && r.path === "/api/v1/websites");
      expect(listed).toHaveLength(11);
    },
  );
});

describe("website_runs", () => {
  it("records each pass with its mode, status and counts", async () => {
    await pass(THREE);
    await plan(THREE);
    const runs = await rows<{
      mode: string;
      status: string;
      created: number;
      unchanged: number;
      finished_at: unknown;
    }>(
      test.database.db,
      sql`select mode, status, created, unchanged, finished_at from website_runs order by id`,
    );
    expect(runs.map((r) => [r.mode, r.status, r.created, r.unchanged])).toEqual([
      ["apply", "ok", 3, 0],
      ["plan", "ok", 0, 3],
    ]);
    expect(runs.every((r) => r.finished_at !== null)).toBe(true);
  });
});
