// The reconciler against the analytics service as real installations behave (docs/services.md): bare single-record
// answers, a capped per_page, listings that never end, Laravel's throttle, and a domain another account holds.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CommandIo } from "../../src/cli/websites-commands.js";
import { websitesPlanCommand } from "../../src/cli/websites-commands.js";
import { HttpError } from "../../src/http/errors.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type ReconcileOptions, reconcile, reconcileDeps } from "../../src/websites/reconcile.js";
import { runCli } from "../helpers/cli.js";
import { analyticsFor } from "../helpers/clients.js";
import { writeConfigFile } from "../helpers/config.js";
import { withContext } from "../helpers/context.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { configFor, depsFor, mutations, startProxy, type Target } from "./helpers.js";

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

const SITES = {
  defaults: { privacy: "public", exclude_params: ["utm_source"] },
  items: [
    { domain: "example.com" },
    { domain: "shop.example.com", exclude_ips: ["203.0.113.7", "198.51.100.0/24"], email: true },
    { domain: "staff.example.com", privacy: "password", password: "staff-only-pw" },
  ],
};

function sites(count: number, prefix = "site") {
  return Array.from({ length: count }, (_, i) => ({
    domain: `${prefix}-${String(i).padStart(4, "0")}.example.com`,
  }));
}

describe.each(["laravel", "bare"] as const)("against a service with %s pages", (pageShape) => {
  it("converges when single records come back bare: a second apply sends nothing but the listing", async () => {
    sandbox.setOptions({ pageShape, recordShape: "bare" });
    const first = await pass(SITES);
    expect([first.status, first.errors, first.counts.created]).toEqual(["ok", [], 3]);
    const again = await pass(SITES, { mode: "plan" });
    expect(again.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: 3 });
    const before = sandbox.requests().length;
    const second = await pass(SITES);
    expect(second.status).toBe("ok");
    expect(
      sandbox
        .requests()
        .slice(before)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual(["GET /api/v1/websites"]);
  });

  it("reads every page of a service that caps per_page at 10, so it plans no create of what exists", async () => {
    sandbox.setOptions({ pageShape, perPageCap: 10 });
    sandbox.seedWebsites(sites(25));
    const result = await pass({ items: sites(25) });
    expect(result.plan.summary).toMatchObject({ create: 0, withheld: 0 });
    expect(result.plan.remote).toEqual({ websites: 25, complete: true });
    expect(result.pages).toBe(3);
    expect(mutations(sandbox).filter((m) => !m.startsWith("PUT "))).toEqual([]);
    expect(sandbox.websites()).toHaveLength(25);
  });
});

describe("a service answering with Laravel's simple paginator (per_page and next_page_url, no last_page or total)", () => {
  it("reads on past a page as full as the service's own per_page, so it plans no create of what exists", async () => {
    sandbox.setOptions({ pageShape: "bare", perPageCap: 10 });
    sandbox.seedWebsites(sites(25));
    const proxy = await startProxy(sandbox, {
      rewrite: (method, url, body) => {
        if (method !== "GET" || url.pathname !== "/api/v1/websites") return body;
        const {
          last_page: last,
          total: _total,
          last_page_url: _url,
          ...page
        } = body as Record<string, unknown>;
        const current = Number(page.current_page);
        const next = current < Number(last) ? `${url.origin}/api/v1/websites?page=${current + 1}` : null;
        return { ...page, next_page_url: next };
      },
    });
    try {
      const result = await pass({ items: sites(25) }, { mode: "plan" }, proxy);
      expect(result.plan.summary).toMatchObject({ create: 0, withheld: 0 });
      expect(result.plan.remote).toEqual({ websites: 25, complete: true });
    } finally {
      await proxy.close();
    }
  });
});

describe("a service whose records leave out the password flag", () => {
  it("sets a declared password once and then plans nothing more: a missing flag is not 'no password'", async () => {
    const proxy = await startProxy(sandbox, {
      rewrite: (method, url, body) => {
        if (method !== "GET" || url.pathname !== "/api/v1/websites") return body;
        const page = body as { data: Array<Record<string, unknown>> };
        return { ...page, data: page.data.map(({ password: _password, ...record }) => record) };
      },
    });
    try {
      const first = await pass(SITES, {}, proxy);
      expect([first.status, first.counts.created]).toEqual(["ok", 3]);
      const again = await pass(SITES, { mode: "plan" }, proxy);
      expect(again.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: 3 });
    } finally {
      await proxy.close();
    }
  });
});

describe("an incomplete listing", () => {
  it("plans no create and no delete, says why, and websites plan exits 1 even with --detailed-exitcode", async () => {
    await pass({ prune: true, items: [{ domain: "gone.example.com" }, { domain: "kept.example.com" }] });
    // The service's total says three more websites exist than its pages hold.
    const proxy = await startProxy(sandbox, {
      rewrite: (method, url, body) => {
        if (method !== "GET" || url.pathname !== "/api/v1/websites") return body;
        const page = body as { meta: { total: number } };
        return { ...page, meta: { ...page.meta, total: page.meta.total + 3 } };
      },
    });
    const declared = {
      prune: true,
      items: [{ domain: "kept.example.com", email: true }, { domain: "new.example.com" }],
    };
    const out: string[] = [];
    const io: CommandIo = { write: (text) => out.push(text), isTTY: false, ask: async () => "" };
    try {
      const config = configFor(proxy, declared, test.url);
      const code = await withContext(config, (ctx) =>
        websitesPlanCommand(ctx, { detailedExitcode: true, json: true }, io),
      );
      expect(code).toBe(1);
      const json = JSON.parse(out.join(""));
      expect(json).toMatchObject({
        complete: false,
        incomplete_reason: "2 websites were read but the service's total is 5",
        summary: { create: 0, update: 1, delete: 0, withheld: 2 },
      });
      expect(json.changes.filter((c: { action: string }) => c.action === "withheld")).toEqual([
        expect.objectContaining({ domain: "gone.example.com", instead: "delete" }),
        expect.objectContaining({ domain: "new.example.com", instead: "create" }),
      ]);
      const before = mutations(sandbox).length;
      const applied = await pass(declared, {}, proxy);
      expect(applied.status).toBe("partial");
      expect(applied.errors[0]).toMatchObject({ code: "LISTING_INCOMPLETE" });
      // the update of a website it saw went ahead; nothing was created or deleted
      expect(mutations(sandbox).slice(before)).toEqual([expect.stringMatching(/^PUT /)]);
    } finally {
      await proxy.close();
    }
  });
});

/** A hostile analytics service answering every list page from `page`; it records every request's method. */
async function hostile(
  page: (n: number) => unknown,
): Promise<Target & { methods: string[]; close(): Promise<void> }> {
  const methods: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    methods.push(req.method ?? "");
    const url = new URL(req.url ?? "/", "http://x");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(page(Number(url.searchParams.get("page") ?? "1"))));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    analyticsUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    analyticsApiKey: "hostile-key",
    methods,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const records = (from: number, count = 100) =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, domain: `w${from + i}.example.com`, privacy: 1 }));

describe("a listing that does not end", () => {
  it.each([
    [
      "a page repeated",
      () => ({ data: records(1), meta: { current_page: 1, last_page: 9, total: 900 } }),
      /page 2 repeats page 1/,
    ],
    [
      "last_page growing with every page",
      (n: number) => ({
        data: records(n * 100),
        meta: { current_page: n, last_page: n + 1, total: (n + 1) * 100 },
      }),
      /last_page grows with every page/,
    ],
    [
      "more pages than total allows",
      (n: number) => ({
        data: records(n * 100),
        current_page: n,
        last_page: 1000,
        per_page: 100,
        total: 250,
      }),
      /total of 250 websites at 100 a page fills only 3/,
    ],
  ])("stops with a clear error and changes nothing: %s", async (_name, page, message) => {
    const service = await hostile(page);
    try {
      const error = await pass({ items: sites(3, "new") }, {}, service).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).code).toBe("LISTING_ENDLESS");
      expect((error as HttpError).message).toMatch(message);
      expect(new Set(service.methods)).toEqual(new Set(["GET"]));
    } finally {
      await service.close();
    }
  });
});

describe("a domain another account holds", () => {
  it.each(["laravel", "message-object"] as const)(
    "is a conflict with the reason, sent once, and the other websites are created (%s 422)",
    async (validationShape) => {
      sandbox.setOptions({ validationShape, takenDomains: ["taken.example.com"] });
      const result = await pass({
        items: [{ domain: "a.example.com" }, { domain: "taken.example.com" }, { domain: "b.example.com" }],
      });
      expect(result.status).toBe("ok");
      expect(result.counts).toMatchObject({ created: 2, conflicts: 1 });
      expect(result.applied?.conflicts).toEqual([
        {
          domain: "taken.example.com",
          reason: expect.stringContaining("held by another account on this installation"),
        },
      ]);
      expect(result.errors).toEqual([]);
      const posts = sandbox.websiteMutations().filter((m) => m.fields.domain === "taken.example.com");
      expect(posts).toHaveLength(1);
      expect(
        sandbox
          .websites()
          .map((w) => w.domain)
          .sort(),
      ).toEqual(["a.example.com", "b.example.com"]);
    },
  );
});

describe("a service that throttles like Laravel (30 requests per 2 s)", () => {
  it("applies 150 changes with at most 5% of requests refused and none failed, then converges", async () => {
    sandbox.setOptions({ throttle: { limit: 30, windowSeconds: 2 } });
    const config = configFor(sandbox, { items: sites(150) });
    const client = analyticsFor(sandbox);
    try {
      // The real clock: the service's window is real time.
      const deps = reconcileDeps(config, client, test.database.db);
      const applied = await reconcile(deps, { mode: "apply" });
      expect([applied.status, applied.errors, applied.counts.created]).toEqual(["ok", [], 150]);
      const again = await reconcile(deps, { mode: "plan" });
      expect(again.plan.summary).toMatchObject({ create: 0, update: 0, unchanged: 150 });
    } finally {
      await client.close();
    }
    const statuses = sandbox.requests().map((r) => r.status);
    const refused = statuses.filter((status) => status === 429).length;
    expect(statuses.length).toBeGreaterThan(150);
    expect(refused / statuses.length).toBeLessThanOrEqual(0.05);
  });
});

describe("declared exclude_ips", () => {
  it("that are not addresses or ranges stop the command with exit 78, naming line and column", async () => {
    const { file } = writeConfigFile(sandbox, test.url, {
      websites: { items: [{ domain: "a.example.com", exclude_ips: ["203.0.113.7", "10.0.0.0/33"] }] },
    });
    const result = await runCli(["websites", "plan", "-c", file]);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(
      /config\.yaml:\d+:\d+: websites\.items\[0\]\.exclude_ips\[1\] \(website "a\.example\.com"\): "10\.0\.0\.0\/33" is not a CIDR range/,
    );
    expect(mutations(sandbox)).toEqual([]);
  });
});

describe("records whose settings come back null or as text", () => {
  /** The sandbox's records as a service that writes some values otherwise: each listed record changed by `change`. */
  async function rewritten(change: (record: Record<string, unknown>) => void) {
    return startProxy(sandbox, {
      rewrite: (method, url, body) => {
        if (method !== "GET" || url.pathname !== "/api/v1/websites") return body;
        for (const record of (body as { data: Record<string, unknown>[] }).data) change(record);
        return body;
      },
    });
  }
  const updates = (result: Awaited<ReturnType<typeof pass>>) =>
    result.plan.entries.filter((e) => e.action === "update").map((e) => [e.domain, Object.keys(e.diff)]);

  it("reads exclude_bots (and email) null as not known, which plans no change", async () => {
    expect((await pass(SITES)).status).toBe("ok");
    const proxy = await rewritten((record) => {
      record.exclude_bots = null;
      record.email = null;
    });
    try {
      // Before: null was read as 0, and every website declaring exclude_bots (the default, on) was "changed".
      const planned = await pass(SITES, { mode: "plan" }, proxy);
      expect(updates(planned)).toEqual([]);
      expect(planned.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    } finally {
      await proxy.close();
    }
    // A change made for another reason sends the declared value the record does not show: it converges.
    const changed = {
      ...SITES,
      items: SITES.items.map((i) => (i.domain === "example.com" ? { ...i, privacy: "private" } : i)),
    };
    const proxied = await rewritten((record) => {
      record.exclude_bots = null;
    });
    try {
      const applied = await pass(changed, {}, proxied);
      expect(updates(applied)).toEqual([["example.com", ["privacy", "exclude_bots"]]]);
      const sent = sandbox.websiteMutations().at(-1)!;
      expect(sent.fields).toMatchObject({ privacy: "1", exclude_bots: "1" });
    } finally {
      await proxied.close();
    }
  });

  it('reads password "true" and "false" (text) as the booleans they say', async () => {
    expect((await pass(SITES)).status).toBe("ok");
    for (const [said, update] of [
      ["true", false],
      ["TRUE", false],
      [" true ", false],
      [true, false],
      ["1", false],
      [null, false],
      ["false", true],
      ["0", true],
      [false, true],
    ] as const) {
      const proxy = await rewritten((record) => {
        if (record.domain === "staff.example.com") record.password = said;
      });
      try {
        // Before: "true" was read as false (no password set), so the password was sent again every pass.
        const planned = await pass(SITES, { mode: "plan" }, proxy);
        expect(updates(planned), JSON.stringify(said)).toEqual(
          update ? [["staff.example.com", ["password"]]] : [],
        );
      } finally {
        await proxy.close();
      }
    }
  });
});
