import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { analytics, json } from "./helpers.js";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => {
  sandbox.reset();
  sandbox.seedWebsites(
    Array.from({ length: 1050 }, (_, i) => ({
      domain: `site-${String(i + 1).padStart(5, "0")}.example.com`,
    })),
  );
});

const list = async (query: string) => json(await analytics(sandbox, "GET", `/api/v1/websites${query}`));

describe("website list pages", () => {
  it("seeding records no mutations", () => {
    expect(sandbox.websites()).toHaveLength(1050);
    expect(sandbox.websiteMutations()).toEqual([]);
  });

  it("answers the Laravel resource shape, newest first, 10 per page by default", async () => {
    const page = await list("");
    expect(page.status).toBe(200);
    expect(page.data).toHaveLength(10);
    expect(page.data[0].id).toBe(1050);
    expect(page.data[9].id).toBe(1041);
    expect(page.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 105,
      path: `${sandbox.analyticsUrl}/api/v1/websites`,
      per_page: 10,
      to: 10,
      total: 1050,
    });
    expect(page.links.prev).toBeNull();
    expect(page.links.next).toContain("page=2");
    expect(page.links.last).toContain("page=105");
  });

  it("walks every page with per_page=100 and sees each website once", async () => {
    const seen = new Set<number>();
    let url: string | null = `${sandbox.analyticsUrl}/api/v1/websites?per_page=100&sort_by=id&sort=asc`;
    let pages = 0;
    while (url) {
      const response = await fetch(url, { headers: { authorization: `Bearer ${sandbox.analyticsApiKey}` } });
      const page = await json(response);
      for (const site of page.data) seen.add(site.id);
      url = page.links.next;
      pages += 1;
    }
    expect(pages).toBe(11);
    expect(seen.size).toBe(1050);
  });

  it("answers the last partial page and an empty page past the end", async () => {
    const last = await list("?per_page=100&page=11");
    expect(last.data).toHaveLength(50);
    expect(last.meta).toMatchObject({ from: 1001, to: 1050, last_page: 11 });
    expect(last.links.next).toBeNull();
    const past = await list("?per_page=100&page=12");
    expect(past.data).toEqual([]);
    expect(past.meta).toMatchObject({ current_page: 12, from: null, to: null, total: 1050 });
  });

  it("falls back to the defaults for invalid per_page, sort_by and sort", async () => {
    const page = await list("?per_page=7&sort_by=created&sort=sideways");
    expect(page.meta.per_page).toBe(10);
    expect(page.data).toHaveLength(10);
    expect(page.data[0].id).toBe(1050);
  });

  it("sorts by domain and searches by domain", async () => {
    const ascending = await list("?sort_by=domain&sort=asc&per_page=25");
    expect(ascending.data[0].domain).toBe("site-00001.example.com");
    expect(ascending.data).toHaveLength(25);
    const found = await list("?search=site-0100&per_page=50");
    expect(found.meta.total).toBe(10);
    expect(found.data.every((site: { domain: string }) => site.domain.startsWith("site-0100"))).toBe(true);
  });

  it("answers the bare paginator shape when configured", async () => {
    sandbox.setOptions({ pageShape: "bare" });
    const page = await list("?per_page=50&page=2");
    expect(Object.keys(page).sort()).toEqual([
      "current_page",
      "data",
      "first_page_url",
      "from",
      "last_page",
      "last_page_url",
      "next_page_url",
      "path",
      "per_page",
      "prev_page_url",
      "to",
      "total",
    ]);
    expect(page).toMatchObject({
      current_page: 2,
      from: 51,
      to: 100,
      last_page: 21,
      per_page: 50,
      total: 1050,
    });
    expect(page.data).toHaveLength(50);
    expect(page.data[0].id).toBe(1000);
    expect(page.prev_page_url).toContain("page=1");
    expect(page.next_page_url).toContain("page=3");
  });

  it("sees a new website at the top of the next list", async () => {
    await analytics(sandbox, "POST", "/api/v1/websites", { form: { domain: "new.example.com" } });
    const page = await list("");
    expect(page.data[0]).toMatchObject({ id: 1051, domain: "new.example.com" });
    expect(page.meta.total).toBe(1051);
  });
});
