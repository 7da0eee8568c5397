import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { describeFailure } from "../../src/cli/fail.js";
import { rows } from "../../src/db/client.js";
import { AuthError, MalformedResponseError } from "../../src/http/errors.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { loadOwnership } from "../../src/websites/ownership.js";
import { type ReconcileOptions, reconcile } from "../../src/websites/reconcile.js";
import { CLI } from "../helpers/cli.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import {
  type AnalyticsProxy,
  changeRemotely,
  configFor,
  depsFor,
  idOf,
  mutations,
  startProxy,
  type Target,
} from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
let proxy: AnalyticsProxy;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
  proxy = await startProxy(sandbox);
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});
beforeEach(async () => {
  test = await openTestDatabase("postgres");
});
afterEach(async () => {
  proxy.hooks = {};
  sandbox.reset();
  await test.drop();
});

async function pass(
  websites: Record<string, unknown>,
  options: Partial<ReconcileOptions> = {},
  target: Target = proxy,
) {
  const deps = depsFor(target, configFor(target, websites), test.database.db);
  try {
    return await reconcile(deps, { mode: "apply", ...options });
  } finally {
    await deps.close();
  }
}

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

const deletes = () => mutations(sandbox).filter((m) => m.startsWith("DELETE"));

/** Two owned websites no longer declared, so a prune pass would delete them if the listing were trusted. */
async function ownTwoToPrune() {
  await pass({
    items: [{ domain: "keep.example.com" }, { domain: "a.example.com" }, { domain: "b.example.com" }],
  });
  return { prune: true, items: [{ domain: "keep.example.com" }] };
}

describe("one failing website does not stop the others", () => {
  it("a 422 on one create is reported with the service's message; the rest are created", async () => {
    proxy.hooks.reply = (method, _url, fields) =>
      method === "POST" && fields.domain === "bad.example.com"
        ? {
            status: 422,
            body: {
              message: "The domain format is invalid.",
              errors: { domain: ["The domain format is invalid."] },
            },
          }
        : undefined;
    const items = ["a", "bad", "c", "d"].map((name) => ({ domain: `${name}.example.com` }));
    const result = await pass({ items });
    expect(result.status).toBe("partial");
    expect(result.counts.created).toBe(3);
    expect(result.errors).toEqual([
      {
        domain: "bad.example.com",
        action: "create",
        code: "HTTP_VALIDATION",
        status: 422,
        message:
          "create bad.example.com failed: HTTP 422: The domain format is invalid. — domain: The domain format is invalid.",
      },
    ]);
    expect(
      sandbox
        .websites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(["a.example.com", "c.example.com", "d.example.com"]);
    expect((await loadOwnership(test.database.db)).has("bad.example.com")).toBe(false);
  });

  it("a 422 that echoes the website's password back never carries it into the pass's errors", async () => {
    proxy.hooks.reply = (method, _url, form) =>
      method === "POST"
        ? {
            status: 422,
            body: {
              message: `The password ${form.password} is too common.`,
              errors: { password: [form.password] },
            },
          }
        : undefined;
    const websites = {
      items: [{ domain: "staff.example.com", privacy: "password", password: "Staff-Only-Pw-77" }],
    };
    const result = await pass(websites);
    expect(result.errors).toHaveLength(1);
    expect(JSON.stringify(result.errors)).not.toContain("Staff-Only-Pw-77");
    const [stored] = await rows<{ errors: string }>(
      test.database.db,
      sql`select errors::text as errors from website_runs where id = ${result.runId}`,
    );
    expect(stored?.errors).toContain("staff.example.com");
    expect(stored?.errors).not.toContain("Staff-Only-Pw-77");
  });

  it("the service's own 422 (plan limit, message-object shape) fails only the websites over the limit", async () => {
    sandbox.setOptions({ maxWebsites: 2, validationShape: "message-object" });
    const items = ["a", "b", "c"].map((name) => ({ domain: `${name}.example.com` }));
    const result = await pass({ items }, {}, sandbox);
    expect(result.counts.created).toBe(2);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toMatch(
      /^create [abc]\.example\.com failed: HTTP 422: domain: You created too many websites\.$/,
    );
  });

  it("a 500 on one update is retried, then reported; the other changes go ahead", async () => {
    const websites = await ownTwoToPrune();
    await changeRemotely(sandbox, "PUT", idOf(sandbox, "keep.example.com"), { privacy: "0" });
    const keep = idOf(sandbox, "keep.example.com");
    let attempts = 0;
    proxy.hooks.reply = (method, url) => {
      if (method !== "PUT" || url.pathname !== `/api/v1/websites/${keep}`) return undefined;
      attempts += 1;
      return { status: 500, body: { message: "Server Error" } };
    };
    const result = await pass({ ...websites, items: [...websites.items, { domain: "new.example.com" }] });
    expect(result.errors).toEqual([
      expect.objectContaining({
        domain: "keep.example.com",
        id: keep,
        code: "HTTP_SERVER_ERROR",
        message: `update keep.example.com (id ${keep}) failed: analytics PUT /api/v1/websites/${keep}: HTTP 500: Server Error`,
      }),
    ]);
    // An update is idempotent, so its unknown outcome was tried again (max_attempts 3), with backoff between.
    expect(attempts).toBe(3);
    expect(result.counts).toMatchObject({ created: 1, deleted: 2 });
  });

  it("a 404 on update (deleted meanwhile) names the website; the next pass re-creates it", async () => {
    await pass({ items: [{ domain: "a.example.com" }, { domain: "b.example.com" }] });
    const id = idOf(sandbox, "a.example.com");
    await changeRemotely(sandbox, "PUT", id, { privacy: "0" });
    const result = await pass(
      { items: [{ domain: "a.example.com" }, { domain: "b.example.com", email: true }] },
      {
        confirm: async () => {
          await changeRemotely(sandbox, "DELETE", id);
          return true;
        },
      },
    );
    expect(result.errors).toEqual([
      expect.objectContaining({
        domain: "a.example.com",
        code: "HTTP_NOT_FOUND",
        status: 404,
        message: `update a.example.com (id ${id}) failed: HTTP 404: the website no longer exists remotely; the next pass creates it again if it is declared`,
      }),
    ]);
    expect(result.counts.updated).toBe(1);
    const next = await pass({
      items: [{ domain: "a.example.com" }, { domain: "b.example.com", email: true }],
    });
    expect(next.counts).toMatchObject({ created: 1, unchanged: 1 });
  });

  it("a 401 on a write stops sending for the rest of the pass", async () => {
    proxy.hooks.reply = (method) =>
      method === "POST" ? { status: 401, body: { message: "Unauthenticated." } } : undefined;
    const items = Array.from({ length: 5 }, (_, i) => ({ domain: `s${i}.example.com` }));
    const config = configFor(proxy, { items });
    const deps = depsFor(
      proxy,
      { ...config, analytics: { ...config.analytics, concurrency: 1 } },
      test.database.db,
    );
    const result = await reconcile(deps, { mode: "apply" }).finally(() => deps.close());
    expect(result.errors.map((e) => e.code)).toEqual([
      "HTTP_UNAUTHORIZED",
      ...Array(4).fill("NOT_ATTEMPTED"),
    ]);
    expect(result.errors[0]?.message).toContain("create s0.example.com failed: ");
    expect(result.errors[0]?.message).toContain("check analytics.api_key");
    expect(sandbox.websites()).toEqual([]);
  });
});

describe("retries of a write", () => {
  it("wait out a 429's Retry-After, then succeed", async () => {
    let refusals = 0;
    proxy.hooks.reply = (method) => {
      if (method !== "POST" || refusals >= 2) return undefined;
      refusals += 1;
      return { status: 429, body: { message: "Too Many Attempts." }, headers: { "retry-after": "7" } };
    };
    const deps = depsFor(proxy, configFor(proxy, { items: [{ domain: "a.example.com" }] }), test.database.db);
    const result = await reconcile(deps, { mode: "apply" }).finally(() => deps.close());
    expect(result.counts.created).toBe(1);
    expect(deps.slept).toEqual([7000, 7000]);
  });

  it("a 429 asking to wait a day (in seconds or as an HTTP date) is not waited: the write fails and the pass ends", async () => {
    const inADay = new Date(Date.now() + 86_400_000).toUTCString();
    for (const retryAfter of ["86400", inADay]) {
      proxy.hooks.reply = (method) =>
        method === "POST"
          ? { status: 429, body: { message: "Too Many Attempts." }, headers: { "retry-after": retryAfter } }
          : undefined;
      const deps = depsFor(
        proxy,
        configFor(proxy, { items: [{ domain: "a.example.com" }] }),
        test.database.db,
      );
      const result = await reconcile(deps, { mode: "apply" }).finally(() => deps.close());
      expect(result.errors[0]).toMatchObject({ domain: "a.example.com", code: "HTTP_RATE_LIMITED" });
      expect(Math.max(0, ...deps.slept)).toBeLessThanOrEqual(15 * 60_000);
    }
  });

  it("a list page answered 429 asking to wait a day fails the pass at once instead of waiting", async () => {
    proxy.hooks.reply = (method) =>
      method === "GET"
        ? { status: 429, body: { message: "Too Many Attempts." }, headers: { "retry-after": "86400" } }
        : undefined;
    const deps = depsFor(proxy, configFor(proxy, { items: [{ domain: "a.example.com" }] }), test.database.db);
    const error = await failureOf(reconcile(deps, { mode: "apply" }).finally(() => deps.close()));
    expect(error.message).toContain("rate limited by the service (retry after 86400s)");
    expect(Math.max(0, ...deps.slept)).toBeLessThanOrEqual(15 * 60_000);
  });

  it("give up after max_attempts of 429 and report it", async () => {
    sandbox.setFaults({ endpoints: { "websites.create": { rate429: 1, retryAfter: 1 } } });
    const deps = depsFor(
      sandbox,
      configFor(sandbox, { items: [{ domain: "a.example.com" }] }),
      test.database.db,
    );
    const result = await reconcile(deps, { mode: "apply" }).finally(() => deps.close());
    expect(result.errors[0]).toMatchObject({
      domain: "a.example.com",
      code: "HTTP_RATE_LIMITED",
      status: 429,
    });
    expect(deps.slept).toEqual([1000, 1000]);
    expect(sandbox.websiteMutations()).toHaveLength(3);
  });

  it("never repeat a create whose outcome is unknown, but own the domain so the next pass adopts it", async () => {
    sandbox.setFaults({ endpoints: { "websites.create": { rate500After: 1 } } });
    const websites = { items: [{ domain: "a.example.com" }] };
    const first = await pass(websites, {}, sandbox);
    expect(first.errors[0]).toMatchObject({ code: "HTTP_SERVER_ERROR" });
    expect(first.errors[0]?.message).toContain("the outcome is unknown");
    expect(sandbox.websiteMutations()).toHaveLength(1);
    expect((await loadOwnership(test.database.db)).get("a.example.com")).toMatchObject({
      origin: "created",
      website_id: null,
    });
    sandbox.setFaults({ endpoints: {} });
    const second = await pass(websites, { mode: "plan" }, sandbox);
    expect(second.plan.summary).toMatchObject({ create: 0, update: 0, unchanged: 1 });
    const pruned = await pass({ prune: true, items: [{ domain: "other.example.com" }] }, {}, sandbox);
    expect(pruned.counts.deleted).toBe(1);
  });
});

describe("a process killed while a create is in flight", () => {
  it("leaves the domain topsync's: the next pass adopts the website the service made, and prune may delete it", async () => {
    // The service makes the website, and its answer never comes back: the CLI is killed (SIGKILL) meanwhile.
    let held = false;
    proxy.hooks.meanwhile = async (method) => {
      if (method !== "POST") return;
      held = true;
      await new Promise(() => {});
    };
    const dir = mkdtempSync(join(tmpdir(), "topsync-kill-"));
    const file = join(dir, "config.yaml");
    writeFileSync(
      file,
      stringify({
        reseller: { base_url: "http://127.0.0.1:9", api_key: "unused-reseller-key" },
        analytics: { base_url: proxy.analyticsUrl, api_key: proxy.analyticsApiKey, rate_limit: 10_000 },
        database: { url: test.url },
        websites: { items: [{ domain: "keep.example.com" }] },
      }),
    );
    const child = spawn(process.execPath, [CLI, "-c", file, "websites", "apply", "--auto-approve"], {
      stdio: "ignore",
    });
    while (!held || sandbox.websites().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    proxy.hooks = {};
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["keep.example.com"]);
    expect((await loadOwnership(test.database.db)).get("keep.example.com")).toMatchObject({
      origin: "created",
      website_id: null,
    });

    const again = await pass({ items: [{ domain: "keep.example.com" }, { domain: "b.example.com" }] });
    expect(again.counts).toMatchObject({ created: 1, unchanged: 1 });
    expect((await loadOwnership(test.database.db)).get("keep.example.com")?.website_id).toBe(
      idOf(sandbox, "keep.example.com"),
    );
    const pruned = await pass({ prune: true, items: [{ domain: "b.example.com" }] });
    expect(pruned.counts.deleted).toBe(1);
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["b.example.com"]);
  });

  it("a create the service certainly refused leaves no ownership behind, and keeps what was owned before", async () => {
    await pass({ items: [{ domain: "keep.example.com" }, { domain: "a.example.com" }] });
    const before = (await loadOwnership(test.database.db)).get("a.example.com");
    await changeRemotely(sandbox, "DELETE", idOf(sandbox, "a.example.com"));
    proxy.hooks.reply = (method) =>
      method === "POST"
        ? { status: 422, body: { message: "The given data was invalid.", errors: { email: ["bad"] } } }
        : undefined;
    const refused = await pass({
      items: [{ domain: "keep.example.com" }, { domain: "a.example.com" }, { domain: "c.example.com" }],
    });
    expect(refused.errors.map((e) => [e.domain, e.code]).sort()).toEqual([
      ["a.example.com", "HTTP_VALIDATION"],
      ["c.example.com", "HTTP_VALIDATION"],
    ]);
    const owned = await loadOwnership(test.database.db);
    expect(owned.get("a.example.com")).toEqual(before);
    expect(owned.has("c.example.com")).toBe(false);
  });
});

describe("bad answers from the service", () => {
  it("a remote record missing a field fails the pass, naming the website, and deletes nothing", async () => {
    const websites = await ownTwoToPrune();
    proxy.hooks.rewrite = (method, _url, body) => {
      if (method !== "GET") return body;
      const page = body as { data: Array<Record<string, unknown>> };
      return {
        ...page,
        data: page.data.map((w) => (w.domain === "a.example.com" ? { ...w, privacy: undefined } : w)),
      };
    };
    const error = await failureOf(pass(websites));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain("website a.example.com in the listing is not readable: privacy");
    expect(describeFailure(error, false).exitCode).toBe(1);
    expect(deletes()).toEqual([]);
  });

  it("a remote record with an unexpected type fails the pass the same way", async () => {
    const websites = await ownTwoToPrune();
    proxy.hooks.rewrite = (method, _url, body) => {
      if (method !== "GET") return body;
      const page = body as { data: Array<Record<string, unknown>> };
      return {
        ...page,
        data: page.data.map((w) => (w.domain === "b.example.com" ? { ...w, id: "twelve" } : w)),
      };
    };
    const error = await failureOf(pass(websites));
    expect(error.message).toContain("website b.example.com in the listing is not readable: id");
    expect(deletes()).toEqual([]);
  });

  it("a list page answered 200 with an error in its body fails the pass: nothing created, no ownership forgotten", async () => {
    const websites = await ownTwoToPrune();
    proxy.hooks.rewrite = (method, _url, body) =>
      method === "GET" ? { data: [], message: "Server Error", status: 500 } : body;
    const error = await failureOf(pass({ ...websites, prune: false }));
    expect(error.message).toContain("Server Error");
    expect(mutations(sandbox).filter((m) => m.startsWith("POST"))).toHaveLength(3);
    proxy.hooks = {};
    expect([...(await loadOwnership(test.database.db)).keys()].sort()).toEqual([
      "a.example.com",
      "b.example.com",
      "keep.example.com",
    ]);
    expect((await pass(websites)).counts.deleted).toBe(2);
  });

  it("a 401 on the listing is a clear failure (exit 1) and changes nothing", async () => {
    const websites = await ownTwoToPrune();
    const wrongKey = { analyticsUrl: sandbox.analyticsUrl, analyticsApiKey: "not-the-key" };
    const before = sandbox.websiteMutations().length;
    const error = await failureOf(pass(websites, {}, wrongKey));
    expect(error).toBeInstanceOf(AuthError);
    const failure = describeFailure(error, false);
    expect(failure.exitCode).toBe(1);
    expect(failure.text).toContain("check analytics.api_key");
    expect(failure.text).not.toContain("not-the-key");
    expect(sandbox.websiteMutations()).toHaveLength(before);
  });
});
