// Pages that list the first part of something long (a config's jobs, a website pass's errors) say how many they
// left out and where the rest are.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobsPage, websitesPage } from "../../src/console/page-others.js";
import type { ConsoleView } from "../../src/console/view.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe("the console's long lists", () => {
  let sandbox: Sandbox;
  let test: TestDatabase;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 4 });
    test = await openTestDatabase("postgres");
  });
  afterAll(async () => {
    await test?.drop();
    await sandbox?.close();
  });

  function viewOf(config = testConfig(sandbox)): ConsoleView {
    return {
      config,
      database: test.database,
      logger: silentLogger(),
      base: "/console",
      user: { name: "vic", role: "viewer" },
      csrf: "csrf",
      now: new Date(),
    };
  }

  it("says how many jobs it left out past the 200 it lists, and where to see them all", async () => {
    // The first 200 were listed and the rest left out without a word: a job past them seemed not to exist.
    const jobs = Array.from({ length: 205 }, (_, i) => ({
      name: `job-${String(i).padStart(3, "0")}`,
      plan: { network: "MTN", plan_id: "102" },
      recipients: ["08034000900"],
    }));
    const page = await jobsPage(viewOf(testConfig(sandbox, { purchases: jobs })));
    expect(page.match(/<article class="item job"/g)).toHaveLength(200);
    expect(page).toContain("5 more jobs are not listed here: <code>topsync jobs list</code> shows them all.");
  });

  it("says how many of a website pass's errors it left out past the 100 it lists", async () => {
    // The first 100 were shown under "Errors" and the rest left out without a word.
    const errors = Array.from({ length: 105 }, (_, i) => ({
      domain: `site-${i}.example.com`,
      action: "update",
      message: "HTTP 500",
    }));
    await rows(
      test.database.db,
      sql`insert into website_runs (mode, status, errors, summary, finished_at)
          values ('apply', 'failed', ${JSON.stringify(errors)}::jsonb, '{"changes": []}'::jsonb, now())`,
    );
    const page = await websitesPage(viewOf());
    expect(page.match(/site-\d+\.example\.com/g)).toHaveLength(100);
    expect(page).toContain("5 more errors are not listed here: <code>topsync report</code> shows the pass.");
  });
});
