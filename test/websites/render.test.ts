import { describe, expect, it } from "vitest";
import { deleteRefusal } from "../../src/websites/guards.js";
import type { OwnershipRecord } from "../../src/websites/model.js";
import { planWebsites } from "../../src/websites/plan.js";
import { planJson, renderApplyText, renderPlanText } from "../../src/websites/render.js";
import { item, KEY, remote } from "./helpers.js";

const owned = (domain: string, id: number): [string, OwnershipRecord] => [
  domain,
  { domain, website_id: id, origin: "created", applied_secrets: { exclude_params: "stale" } },
];

const PLAN = planWebsites(
  [item("a.example.com", { privacy: 0, exclude_ips: ["10.0.0.1"] }), item("dup.example.com")],
  [
    remote(1, "a.example.com", { privacy: 1 }),
    remote(2, "old.example.com"),
    remote(3, "dup.example.com"),
    remote(4, "dup.example.com"),
    remote(5, "legacy.example.org"),
  ],
  new Map([owned("a.example.com", 1), owned("old.example.com", 2)]),
  { prune: true, secretKey: KEY },
);

describe("the text plan", () => {
  it("shows updates with from → to, deletes with their reason, and lists the rest apart", () => {
    expect(renderPlanText(PLAN)).toBe(
      [
        "topsync will make these changes to the analytics websites:",
        "",
        "  ~ update a.example.com (id 1)",
        '      privacy:        "private" → "public"',
        '      exclude_ips:    [] → ["10.0.0.1"]',
        "      exclude_params: (sensitive) → (sensitive)",
        "",
        "  - delete old.example.com (id 2)",
        "      # no longer declared (created by topsync)",
        "",
        "Unmanaged (not touched): 1",
        "  legacy.example.org (id 5): not declared and not owned by topsync",
        "",
        "Conflicts (not touched): 1",
        "  dup.example.com: 2 remote websites (ids 3, 4) have this domain; resolve it by hand, topsync touches none of them",
        "",
        "Plan: 0 to create, 1 to update, 1 to delete, 0 unchanged.",
        "",
      ].join("\n"),
    );
  });

  it("shows what the service sent as data: its control characters and bidi marks never reach the terminal", () => {
    const hostile = planWebsites(
      [item("a.example.com", { exclude_ips: ["10.0.0.1"] })],
      [
        remote(1, "a.example.com", { exclude_ips: ["10.0.0.9\u202e"] }),
        remote(2, "x\u001b]0;owned\u0007\r  - delete b.example.com (id 9).example.com"),
        remote(3, "c\u0000\u001b[2J.example.com"),
      ],
      new Map(),
      { prune: true, secretKey: KEY },
    );
    const text = renderPlanText(hostile);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain("x\\x1B]0;owned\\x07\\r  - delete b.example.com (id 9).example.com (id 2)");
    const applied = renderApplyText({
      applied: [],
      conflicts: [{ domain: "d\u001b[2J.example.com", reason: "held" }],
      errors: [
        {
          domain: "e.example.com",
          action: "update",
          code: "HTTP_VALIDATION",
          message: "HTTP 422: \u001b[2Jbad",
        },
      ],
      created: 0,
      updated: 0,
      deleted: 0,
    } as unknown as Parameters<typeof renderApplyText>[0]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
    expect(applied).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it("warns when the deletes would be refused", () => {
    const refusal = deleteRefusal(PLAN, { maxDeletes: 0, allowMassDelete: false });
    expect(renderPlanText(PLAN, refusal)).toContain(
      "Warning: refusing the delete: more than websites.max_deletes (0); run with --allow-mass-delete if they are meant.",
    );
  });

  it("says so when nothing changes", () => {
    const none = planWebsites([], [], new Map(), { prune: false, secretKey: KEY });
    expect(renderPlanText(none)).toBe(
      "No changes: the analytics websites match the declared list.\n\nPlan: 0 to create, 0 to update, 0 to delete, 0 unchanged.\n",
    );
  });
});

describe("the JSON plan", () => {
  it("lists every change but no-ops, with ids, diffs and reasons", () => {
    const json = planJson(PLAN);
    expect(json.summary).toEqual({
      create: 0,
      update: 1,
      delete: 1,
      unchanged: 0,
      unmanaged: 1,
      conflicts: 1,
      withheld: 0,
    });
    expect(json.changes.map((c) => [c.action, c.domain, c.id ?? c.ids])).toEqual([
      ["update", "a.example.com", 1],
      ["conflict", "dup.example.com", [3, 4]],
      ["unmanaged", "legacy.example.org", 5],
      ["delete", "old.example.com", 2],
    ]);
    expect(json.changes[0]).not.toHaveProperty("send");
    expect(json.changes[0]).not.toHaveProperty("secrets");
  });
});

describe("the apply report", () => {
  it("lists what was done and every error, then a summary line", () => {
    const text = renderApplyText({
      created: 1,
      updated: 0,
      deleted: 1,
      applied: [
        { action: "create", domain: "a.example.com", id: 7 },
        { action: "delete", domain: "old.example.com", id: 2 },
      ],
      conflicts: [],
      errors: [
        { domain: "b.example.com", action: "update", code: "HTTP_VALIDATION", message: "update b failed" },
      ],
    });
    expect(text).toBe(
      [
        "  + created a.example.com (id 7)",
        "  - deleted old.example.com (id 2)",
        "  ! update b failed",
        "Apply finished with errors: 1 created, 0 updated, 1 deleted, 1 error.",
        "",
      ].join("\n"),
    );
  });
});
