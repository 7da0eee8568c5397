import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeFailure } from "../../src/cli/fail.js";
import {
  type CommandIo,
  websitesApplyCommand,
  websitesImportCommand,
  websitesPlanCommand,
} from "../../src/cli/websites-commands.js";
import type { Config } from "../../src/config/index.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { WEBSITES_LOCK } from "../../src/schedule/advisory-lock.js";
import { loadOwnership } from "../../src/websites/ownership.js";
import { withContext } from "../helpers/context.js";
import { type DbKind, openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { applyWebsites, changeRemotely, configFor, failingLookups, idOf, shiftedListing } from "./helpers.js";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
});
afterAll(() => sandbox.close());
afterEach(() => sandbox.reset());

interface TestIo extends CommandIo {
  text(): string;
}

function testIo(options: { tty?: boolean; answer?: string } = {}): TestIo {
  const out: string[] = [];
  return {
    write: (text) => out.push(text),
    isTTY: options.tty ?? false,
    ask: async (question) => {
      out.push(question);
      return options.answer ?? "";
    },
    text: () => out.join(""),
  };
}

async function exitCodeOf(promise: Promise<unknown>): Promise<{ code: number; text: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  const failure = describeFailure(error, false);
  return { code: failure.exitCode, text: failure.text };
}

const WEBSITES = {
  defaults: { privacy: "public" },
  items: [
    { domain: "https://www.example.com/" },
    { domain: "staff.example.com", privacy: "password", password: "hunter22-staff" },
  ],
};

describe("websites commands (PostgreSQL)", () => {
  let test: TestDatabase;
  let config: Config;

  beforeEach(async () => {
    test = await openTestDatabase("postgres");
    config = configFor(sandbox, WEBSITES, test.url);
  });
  afterEach(() => test.drop());

  it("plan prints a Terraform-like plan, exit 2 with --detailed-exitcode, and changes nothing", async () => {
    sandbox.seedWebsites([{ domain: "legacy.example.org" }]);
    const io = testIo();
    const code = await withContext(config, (ctx) => websitesPlanCommand(ctx, { detailedExitcode: true }, io));
    expect(code).toBe(2);
    expect(io.text()).toBe(
      [
        "topsync will make these changes to the analytics websites:",
        "",
        '  + create example.com (declared as "https://www.example.com/")',
        '      privacy:        "public"',
        "      email:          false",
        "      exclude_bots:   true",
        "      exclude_ips:    []",
        "      exclude_params: (sensitive)",
        "",
        "  + create staff.example.com",
        '      privacy:        "password"',
        "      email:          false",
        "      exclude_bots:   true",
        "      exclude_ips:    []",
        "      exclude_params: (sensitive)",
        "      password:       (sensitive)",
        "",
        "Unmanaged (not touched): 1",
        `  legacy.example.org (id ${idOf(sandbox, "legacy.example.org")}): not declared and not owned by topsync`,
        "",
        "Plan: 2 to create, 0 to update, 0 to delete, 0 unchanged.",
        "",
      ].join("\n"),
    );
    expect(sandbox.websiteMutations()).toEqual([]);
    expect(await withContext(config, (ctx) => websitesPlanCommand(ctx, {}, testIo()))).toBe(0);
  });

  it("plan --json has format_version 1, the summary and the changes, and no secret", async () => {
    await withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo()));
    const staff = idOf(sandbox, "staff.example.com");
    const changed = configFor(
      sandbox,
      { ...WEBSITES, items: [{ ...WEBSITES.items[1], password: "new-password-1", email: true }] },
      test.url,
    );
    const io = testIo();
    await withContext(changed, (ctx) => websitesPlanCommand(ctx, {}, io), true);
    expect(JSON.parse(io.text())).toEqual({
      format_version: "1",
      complete: true,
      summary: { create: 0, update: 1, delete: 0, unchanged: 0, unmanaged: 1, conflicts: 0, withheld: 0 },
      changes: [
        {
          action: "unmanaged",
          domain: "example.com",
          id: idOf(sandbox, "example.com"),
          reason: "owned by topsync but no longer declared; prune is off",
        },
        {
          action: "update",
          domain: "staff.example.com",
          id: staff,
          diff: {
            email: { from: false, to: true },
            password: { from: "(sensitive)", to: "(sensitive)" },
          },
        },
      ],
    });
    expect(io.text()).not.toMatch(/hunter22|new-password/);
  });

  it("apply without a terminal refuses (exit 64) unless --auto-approve, before touching anything", async () => {
    const refused = await exitCodeOf(withContext(config, (ctx) => websitesApplyCommand(ctx, {}, testIo())));
    expect(refused.code).toBe(64);
    expect(refused.text).toContain("--auto-approve");
    expect(sandbox.requests()).toEqual([]);
    const io = testIo();
    expect(await withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, io))).toBe(0);
    expect(io.text()).toContain("Plan: 2 to create, 0 to update, 0 to delete, 0 unchanged.");
    expect(io.text()).toMatch(/\+ created example\.com \(id \d+\)/);
    expect(io.text()).toContain("Apply complete: 2 created, 0 updated, 0 deleted.");
  });

  it("apply is refused while another writer holds the websites lock (the daemon's pass, another apply), changing nothing", async () => {
    // Before, a second writer listed what the first had not created yet and created it again.
    const holder = postgres(test.url, { max: 1, onnotice: () => {} });
    await holder`select pg_advisory_lock(${WEBSITES_LOCK[0]}::int, ${WEBSITES_LOCK[1]}::int)`;
    try {
      const refused = await exitCodeOf(
        withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo())),
      );
      expect(refused.code).toBe(1);
      expect(refused.text).toContain("another websites apply, or the daemon's website pass");
      expect(sandbox.websiteMutations()).toEqual([]);
    } finally {
      await holder.end();
    }
    expect(
      await withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo())),
    ).toBe(0);
    expect(sandbox.websites()).toHaveLength(2);
  });

  it("apply on a terminal shows the plan and applies only after yes", async () => {
    const no = testIo({ tty: true, answer: "n" });
    expect(await withContext(config, (ctx) => websitesApplyCommand(ctx, {}, no))).toBe(0);
    expect(no.text()).toContain("Apply these changes to the analytics websites? [y/N] ");
    expect(no.text()).toContain("Apply cancelled; nothing was changed.");
    expect(sandbox.websiteMutations()).toEqual([]);
    const yes = testIo({ tty: true, answer: "y" });
    expect(await withContext(config, (ctx) => websitesApplyCommand(ctx, {}, yes))).toBe(0);
    expect(sandbox.websites()).toHaveLength(2);
    const again = testIo({ tty: true, answer: "y" });
    expect(await withContext(config, (ctx) => websitesApplyCommand(ctx, {}, again))).toBe(0);
    expect(again.text()).toContain("No changes");
    expect(again.text()).not.toContain("[y/N]");
  });

  it("apply exits 1 when a website failed, naming it", async () => {
    sandbox.setFaults({ endpoints: { "websites.create": { rate500Before: 1 } } });
    const io = testIo();
    expect(await withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, io))).toBe(1);
    expect(io.text()).toContain("! create example.com failed: analytics POST /api/v1/websites: HTTP 500");
    expect(io.text()).toContain("Apply finished with errors: 0 created, 0 updated, 0 deleted, 2 errors.");
  });

  it("apply warns about refused deletes, and --allow-mass-delete lets them through", async () => {
    const many = configFor(
      sandbox,
      { items: ["a", "b", "c"].map((n) => ({ domain: `${n}.example.com` })) },
      test.url,
    );
    await withContext(many, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo()));
    const pruning = configFor(
      sandbox,
      { prune: true, max_deletes: 1, items: [{ domain: "a.example.com" }] },
      test.url,
    );
    const refused = testIo();
    expect(
      await withContext(pruning, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, refused)),
    ).toBe(1);
    expect(refused.text()).toContain("Warning: refusing all 2 deletes: more than websites.max_deletes (1)");
    expect(sandbox.websites()).toHaveLength(3);
    await withContext(pruning, (ctx) =>
      websitesApplyCommand(ctx, { autoApprove: true, allowMassDelete: true }, testIo()),
    );
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["a.example.com"]);
  });

  it("apply refuses a listing that shows none of the owned websites (exit 1), and --accept-vanished creates them again", async () => {
    await withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo()));
    for (const website of sandbox.websites()) await changeRemotely(sandbox, "DELETE", website.id);
    const refused = testIo();
    expect(
      await withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, refused)),
    ).toBe(1);
    expect(refused.text()).toContain("NOT TRUSTED: the listing shows none of the 2 websites topsync owns");
    expect(refused.text()).toContain("--accept-vanished");
    expect(sandbox.websites()).toHaveLength(0);
    const accepted = testIo();
    expect(
      await withContext(config, (ctx) =>
        websitesApplyCommand(ctx, { autoApprove: true, acceptVanished: true }, accepted),
      ),
    ).toBe(0);
    expect(
      sandbox
        .websites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(["example.com", "staff.example.com"]);
  });

  it("plan looks up by id an owned website one page boundary hid: not a create, the listing INCOMPLETE (exit 1)", async () => {
    const { proxy, owned, changed } = await shiftedListing(sandbox, test.database.db);
    const hidden = configFor(
      proxy,
      { items: [{ domain: "owned.example.com" }, { domain: "kept.example.com" }] },
      test.url,
    );
    const earlier = sandbox.websiteMutations().length;
    const io = testIo();
    const code = await withContext(hidden, (ctx) =>
      websitesPlanCommand(ctx, { detailedExitcode: true }, io),
    ).finally(() => proxy.close());
    expect(changed()).toBe(true);
    expect(code).toBe(1);
    const text = io.text();
    expect(text).toContain(
      `INCOMPLETE: the remote listing was incomplete (the listing did not show owned.example.com (id ${owned}), which the service still holds when asked by id: the list changed while it was read).`,
    );
    expect(text).toContain(
      "Withheld (not created or deleted in this pass): 1\n  owned.example.com: not created: the remote listing was incomplete",
    );
    expect(text).not.toContain("+ create owned.example.com");
    expect(text).toContain("Plan: 0 to create, 0 to update, 0 to delete, 1 unchanged, 1 withheld.");
    // Only the person's delete: the plan sent GETs alone.
    expect(sandbox.websiteMutations().slice(earlier)).toEqual([
      expect.objectContaining({ method: "DELETE" }),
    ]);
    expect((await loadOwnership(test.database.db)).get("owned.example.com")?.website_id).toBe(owned);
  });

  it("plan shows an owned website whose look-up by id fails as not created again yet, not as a create", async () => {
    await applyWebsites(sandbox, test.database.db, ["owned.example.com", "kept.example.com"]);
    await changeRemotely(sandbox, "DELETE", idOf(sandbox, "owned.example.com"));
    const proxy = await failingLookups(sandbox);
    const failing = configFor(
      proxy,
      { items: [{ domain: "owned.example.com" }, { domain: "kept.example.com" }] },
      test.url,
    );
    const io = testIo();
    const code = await withContext(failing, (ctx) => websitesPlanCommand(ctx, {}, io), true).finally(() =>
      proxy.close(),
    );
    expect(code).toBe(0);
    expect(JSON.parse(io.text())).toMatchObject({
      complete: true,
      summary: { create: 0, unchanged: 1, withheld: 1 },
      changes: [
        {
          action: "withheld",
          domain: "owned.example.com",
          instead: "create",
          reason:
            "not created again yet: topsync's website with this domain is missing from the listing, and looking it up by id did not confirm it is gone",
        },
      ],
    });
  });

  it("plan fails with exit 1 and a clear message when the service refuses the key", async () => {
    const wrong = configFor(
      { analyticsUrl: sandbox.analyticsUrl, analyticsApiKey: "wrong-key" },
      WEBSITES,
      test.url,
    );
    const failure = await exitCodeOf(
      withContext(wrong, (ctx) => websitesPlanCommand(ctx, { detailedExitcode: true }, testIo())),
    );
    expect(failure.code).toBe(1);
    expect(failure.text).toContain("the service refused the API key (HTTP 401); check analytics.api_key");
  });

  it("import adopts remote websites, so prune may delete them", async () => {
    sandbox.seedWebsites([{ domain: "legacy.example.org" }, { domain: "other.example.org" }]);
    const io = testIo();
    await withContext(config, (ctx) => websitesImportCommand(ctx, ["https://www.Legacy.example.org/"], io));
    expect(io.text()).toBe(`legacy.example.org (id ${idOf(sandbox, "legacy.example.org")}): imported\n`);
    const again = testIo();
    await withContext(config, (ctx) => websitesImportCommand(ctx, ["legacy.example.org"], again));
    expect(again.text()).toContain("already owned by topsync");
    const pruning = configFor(sandbox, { ...WEBSITES, prune: true }, test.url);
    await withContext(pruning, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo()));
    expect(
      sandbox
        .websites()
        .map((w) => w.domain)
        .sort(),
    ).toEqual(["example.com", "other.example.org", "staff.example.com"]);
  });

  it("import of a domain the service does not have is a usage error (64) and imports nothing", async () => {
    sandbox.seedWebsites([{ domain: "legacy.example.org" }]);
    const failure = await exitCodeOf(
      withContext(config, (ctx) =>
        websitesImportCommand(ctx, ["legacy.example.org", "nowhere.example.org"], testIo()),
      ),
    );
    expect(failure.code).toBe(64);
    expect(failure.text).toBe(
      "error: nothing was imported: not found on the analytics service: nowhere.example.org",
    );
    const invalid = await exitCodeOf(
      withContext(config, (ctx) => websitesImportCommand(ctx, ["not_a_domain"], testIo())),
    );
    expect(invalid.code).toBe(64);
    expect(invalid.text).toContain('"not_a_domain" is not a valid domain');
    const pruning = configFor(sandbox, { ...WEBSITES, prune: true }, test.url);
    const io = testIo();
    await withContext(pruning, (ctx) => websitesPlanCommand(ctx, {}, io));
    expect(io.text()).toContain("0 to delete");
  });
});

describe.each<DbKind>(["pglite", "postgres"])("a full cycle on %s", (kind) => {
  let test: TestDatabase | undefined;
  let dir: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "topsync-websites-"));
    test = kind === "postgres" ? await openTestDatabase("postgres") : undefined;
  });
  afterEach(async () => {
    await test?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("plan → apply → plan shows no changes; drift, a remote delete, prune and import work", async () => {
    const withDir = (websites: Record<string, unknown>): Config => {
      const base = configFor(sandbox, websites, test?.url ?? "");
      return { ...base, database: { ...base.database, pglite_dir: join(dir, "pglite") } };
    };
    const plan = (config: Config) =>
      withContext(config, (ctx) => websitesPlanCommand(ctx, { detailedExitcode: true }, testIo()));
    const apply = (config: Config) =>
      withContext(config, (ctx) => websitesApplyCommand(ctx, { autoApprove: true }, testIo()));
    const config = withDir(WEBSITES);
    expect(await plan(config)).toBe(2);
    expect(await apply(config)).toBe(0);
    expect(await plan(config)).toBe(0);
    await changeRemotely(sandbox, "DELETE", idOf(sandbox, "example.com"));
    await changeRemotely(sandbox, "PUT", idOf(sandbox, "staff.example.com"), { email: "1" });
    expect(await apply(config)).toBe(0);
    expect(await plan(config)).toBe(0);
    sandbox.seedWebsites([{ domain: "legacy.example.org" }]);
    await withContext(config, (ctx) => websitesImportCommand(ctx, ["legacy.example.org"], testIo()));
    const pruning = withDir({ ...WEBSITES, prune: true, items: [WEBSITES.items[0]] });
    expect(await apply(pruning)).toBe(0);
    expect(await plan(pruning)).toBe(0);
    expect(sandbox.websites().map((w) => w.domain)).toEqual(["example.com"]);
  }, 90_000);
});
