// The console in a real headless Chromium (Debian's, driven by playwright-core) over a daemon with the sandbox:
// an operator logs in, sees the in_doubt purchase a lost answer made with its evidence, resolves it with a
// reason and sees the event; an approver approves a pending plan; a viewer is shown no action and refused one.
// Each page is photographed at 390 and 1280 px wide and must not scroll sideways.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needs } from "../helpers/tools.js";
import { CHROMIUM, CHROMIUM_TOOL } from "../report/chromium.js";
import { type ConsoleFixture, LONG_NAME, PASSWORD, startConsoleFixture } from "./helpers.js";

const inChromium = await needs(CHROMIUM_TOOL, "the console's browser tests");

const WIDTHS = [390, 1280] as const;

describe.skipIf(!inChromium)("the console in headless Chromium", { timeout: 240_000 }, () => {
  let f: ConsoleFixture;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), "topsync-console-shots-"));

  beforeAll(async () => {
    f = await startConsoleFixture();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
    console.info(`console screenshots: ${shots}`);
  });
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  async function logIn(user: string, width = 390): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${f.base}/console/`);
    expect(new URL(page.url()).pathname).toBe("/console/login");
    await page.fill("#user", user);
    await page.fill("#password", PASSWORD);
    await Promise.all([page.waitForURL(`${f.base}/console/`), page.click("#login button")]);
    return page;
  }

  /** A screenshot of the whole page at each width; the page must fit its width. */
  async function photograph(page: Page, name: string): Promise<void> {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 844 });
      const overflow = await page.evaluate<{ scroll: number; inner: number }>(
        "({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })",
      );
      expect(overflow.scroll, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(overflow.inner);
      await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    }
  }

  it("an operator sees the in_doubt purchase with its evidence, resolves it with a reason and sees the event", async () => {
    const page = await logIn("olu");
    await expect.poll(() => page.textContent("#count-in_doubt b")).toBe("1");
    await photograph(page, "home");
    await page.click(`#purchase-${f.inDoubtId} a.action`);
    expect(new URL(page.url()).pathname).toBe(`/console/purchases/${f.inDoubtId}`);
    const facts = await page.textContent("#facts");
    expect(facts).toContain("in_doubt");
    expect(facts).toContain("0803****001");
    const answers = await page.textContent("#answers");
    expect(answers).toMatch(/500|unknown|in_doubt/);
    await photograph(page, "purchase");
    await page.check('#resolve input[value="succeeded"]');
    const debit = f.sandbox.debits().find((d) => d.phone_number === "08031230001");
    expect(debit).toBeDefined();
    await page.fill("#resolve-reference", debit!.reference);
    await page.fill("#resolve-reason", "the provider's dashboard shows the debit");
    await Promise.all([page.waitForURL(/form=/), page.click("#resolve button")]);
    expect(await page.textContent(".notice.ok")).toContain("in_doubt -> succeeded");
    const events = await page.textContent("#table-events");
    expect(events).toContain("console:olu");
    expect(events).toContain(
      "resolved in the console as succeeded: the provider's dashboard shows the debit",
    );
    await photograph(page, "resolved");
    const [row] = await f.ledger.query<{ state: string; reference: string }>(
      sql`select state, reference from purchases where id = ${f.inDoubtId}`,
    );
    expect(row).toEqual({ state: "succeeded", reference: debit!.reference });
    // A reload of the answer page shows the same outcome and acts no more.
    await page.goBack();
    await page.goBack();
    const before = await f.ledger.query(
      sql`select 1 from purchase_events where purchase_id = ${f.inDoubtId}`,
    );
    await page.goto(`${f.base}/console/purchases?state=succeeded`);
    await photograph(page, "purchases");
    const after = await f.ledger.query(sql`select 1 from purchase_events where purchase_id = ${f.inDoubtId}`);
    expect(after.length).toBe(before.length);
    await page.context().close();
  });

  it("an approver approves a pending plan", async () => {
    const page = await logIn("ada", 1280);
    await page.click(`#plan-${f.planId} a.action`);
    expect(await page.textContent("#approve h3")).toContain(f.planId);
    await photograph(page, "plan");
    await page.fill("#approve-reason", "the promo list is the one marketing sent");
    await Promise.all([page.waitForURL(/form=/), page.click("#approve button")]);
    expect(await page.textContent(".notice.ok")).toContain("approved by ada");
    const [plan] = await f.ledger.query<{ status: string }>(
      sql`select status from saved_plans where id = ${f.planId}`,
    );
    expect(plan?.status).toBe("approved");
    for (const path of [
      "/console/jobs",
      "/console/websites",
      "/console/report",
      "/console/plans?status=approved",
    ]) {
      await page.goto(`${f.base}${path}`);
      await photograph(page, path.slice(9).replace(/[^a-z]+/g, "-"));
    }
    await page.context().close();
  });

  it("a search by a whole phone number goes on to its next page and is sent again as drawn", async () => {
    await f.ledger.query(
      sql`insert into purchases (request_key, source, network, phone, amount, state)
          select 'browser-pager-' || i, 'intake', 'MTN', '08031230888', 305, 'rejected'
          from generate_series(1, 55) as i`,
    );
    const page = await logIn("vic");
    await page.goto(`${f.base}/console/purchases`);
    await page.fill("#phone", "08031230888");
    await Promise.all([page.waitForURL(/phone=/), page.click(".search button")]);
    expect(await page.locator("#table-purchases tbody tr").count()).toBe(50);
    expect(await page.getAttribute("#phone", "placeholder")).toBe("0803****888");
    await photograph(page, "phone-search");
    await Promise.all([page.waitForURL(/before=/), page.click(".pager a")]);
    expect(await page.locator("#table-purchases tbody tr").count()).toBe(5);
    // The form as the page drew it, sent again with another state: the same number, no rejected ones now.
    await page.selectOption("#state", "succeeded");
    await Promise.all([page.waitForURL(/state=succeeded/), page.click(".search button")]);
    expect(await page.textContent("main")).toContain("No purchase matches.");
    expect(await page.textContent("main")).not.toContain("give the last 3 to 11 digits");
    await photograph(page, "phone-search-again");
    expect(await page.content()).not.toContain("08031230888");
    await page.context().close();
  });

  it("a viewer is shown no action, and a forged one is refused", async () => {
    const page = await logIn("vic");
    await page.goto(`${f.base}/console/plans?status=pending`);
    const purchaseId = f.inDoubtId;
    await page.goto(`${f.base}/console/purchases/${purchaseId}`);
    expect(await page.locator("form.act").count()).toBe(0);
    // A form the viewer's browser posts anyway (as if the page had one): the console refuses it. (A script's
    // fetch could not even be sent: the Content-Security-Policy allows no connection.)
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/requeue")),
      page.evaluate(`(() => {
        const form = document.createElement("form");
        form.method = "post";
        form.action = "/console/purchases/${purchaseId}/requeue";
        const fields = { _csrf: document.querySelector('input[name="_csrf"]').value, _form: "${"v".repeat(32)}", _version: "x", reason: "try" };
        for (const [name, value] of Object.entries(fields)) {
          const input = document.createElement("input");
          input.type = "hidden";
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      })()`),
    ]);
    expect(answer.status()).toBe(403);
    await page.waitForLoadState();
    expect(await page.textContent("main")).toContain("a viewer may not requeue");
    await photograph(page, "viewer");
    await page.context().close();
  });

  it("a user whose name is as long as config allows gets pages that fit a phone's width", async () => {
    // The name in the header could not break: every page scrolled sideways at 390 px (828 px wide).
    const page = await logIn(LONG_NAME);
    expect(await page.textContent(".who")).toContain(LONG_NAME);
    await photograph(page, "long-name");
    await page.goto(`${f.base}/console/plans`);
    await photograph(page, "long-name-plans");
    await page.context().close();
  });
});
