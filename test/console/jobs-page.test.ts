// The jobs page of a config with more jobs than one page lists: it says how many it left out and where they are.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobsPage } from "../../src/console/page-others.js";
import { silentLogger } from "../../src/log/logger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe("the console's jobs page", () => {
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

  it("says how many jobs it left out past the 200 it lists, and where to see them all", async () => {
    // The first 200 were listed and the rest left out without a word: a job past them seemed not to exist.
    const jobs = Array.from({ length: 205 }, (_, i) => ({
      name: `job-${String(i).padStart(3, "0")}`,
      plan: { network: "MTN", plan_id: "102" },
      recipients: ["08034000900"],
    }));
    const config = testConfig(sandbox, { purchases: jobs });
    const page = await jobsPage({
      config,
      database: test.database,
      logger: silentLogger(),
      base: "/console",
      user: { name: "vic", role: "viewer" },
      csrf: "csrf",
      now: new Date(),
    });
    expect(page.match(/<article class="item job"/g)).toHaveLength(200);
    expect(page).toContain("5 more jobs are not listed here: <code>topsync jobs list</code> shows them all.");
  });
});
