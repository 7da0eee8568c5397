import { describe, expect, it } from "vitest";
import { deleteRefusal } from "../../src/websites/guards.js";
import type { OwnershipRecord, Plan, SecretHashes } from "../../src/websites/model.js";
import { planWebsites } from "../../src/websites/plan.js";
import {
  declaredSecrets,
  deriveSecretKey,
  excludeParamsHash,
  passwordHash,
} from "../../src/websites/secrets.js";
import { item, KEY, remote } from "./helpers.js";

function owned(
  domain: string,
  websiteId: number | null,
  secrets: SecretHashes | null = null,
  origin: OwnershipRecord["origin"] = "created",
): [string, OwnershipRecord] {
  return [domain, { domain, website_id: websiteId, origin, applied_secrets: secrets }];
}

/** What topsync stored after applying `declared` to website `id`. */
function applied(declared: ReturnType<typeof item>, id: number): [string, OwnershipRecord] {
  return owned(declared.domain, id, declaredSecrets(declared, KEY));
}

function plan(
  desired: ReturnType<typeof item>[],
  remotes: ReturnType<typeof remote>[],
  ownership: [string, OwnershipRecord][] = [],
  options: { prune?: boolean; complete?: boolean; problem?: string; acceptVanished?: boolean } = {},
): Plan {
  return planWebsites(desired, remotes, new Map(ownership), {
    prune: options.prune ?? false,
    secretKey: KEY,
    ...(options.problem ? { problem: options.problem } : {}),
    complete: options.complete,
    acceptVanished: options.acceptVanished,
  });
}

function actions(result: Plan): string[] {
  return result.entries.map((entry) => `${entry.action} ${entry.domain}`);
}

describe("planWebsites", () => {
  it("creates what is declared and not remote, with every setting and the secrets as hashes", () => {
    const declared = item("shop.example.com", {
      privacy: 2,
      password: "hunter22",
      exclude_ips: [" 10.0.0.1 ", "10.0.0.1", "10.0.0.2"],
      exclude_params: ["utm_source"],
    });
    const result = plan([declared], []);
    expect(result.summary).toEqual({
      create: 1,
      update: 0,
      delete: 0,
      unchanged: 0,
      unmanaged: 0,
      conflicts: 0,
      withheld: 0,
    });
    expect(result.entries[0]).toEqual({
      action: "create",
      domain: "shop.example.com",
      diff: {
        privacy: { from: null, to: "password" },
        email: { from: null, to: false },
        exclude_bots: { from: null, to: true },
        exclude_ips: { from: null, to: ["10.0.0.1", "10.0.0.2"] },
        exclude_params: { from: null, to: "(sensitive)" },
        password: { from: null, to: "(sensitive)" },
      },
      send: {
        privacy: 2,
        email: 0,
        exclude_bots: 1,
        exclude_ips: ["10.0.0.1", "10.0.0.2"],
        exclude_params: ["utm_source"],
      },
      sendPassword: true,
      secrets: {
        password: passwordHash(KEY, "hunter22"),
        exclude_params: excludeParamsHash(KEY, ["utm_source"]),
      },
    });
    expect(JSON.stringify(result)).not.toContain("hunter22");
  });

  it("matches by normalised domain, whatever form config and the service use", () => {
    const declared = item("https://www.Example.com/");
    const result = plan([declared], [remote(4, "EXAMPLE.com.")], [applied(declared, 4)]);
    expect(actions(result)).toEqual(["noop example.com"]);
    expect(result.summary.unchanged).toBe(1);
  });

  it("notes the domain as written when normalisation rewrote it", () => {
    const result = plan([item("https://www.example.com/")], []);
    expect(result.entries[0]).toMatchObject({
      action: "create",
      domain: "example.com",
      declared_domain: "https://www.example.com/",
    });
  });

  it("diffs each differing field from → to and sends only those", () => {
    const declared = item("a.example.com", { privacy: 0, email: 1, exclude_ips: ["10.0.0.2", "10.0.0.1"] });
    const website = remote(7, "a.example.com", {
      privacy: 1,
      email: 0,
      exclude_bots: 1,
      exclude_ips: ["10.0.0.3"],
    });
    const result = plan([declared], [website], [applied(declared, 7)]);
    expect(result.entries).toEqual([
      {
        action: "update",
        domain: "a.example.com",
        id: 7,
        owned: true,
        diff: {
          privacy: { from: "private", to: "public" },
          email: { from: false, to: true },
          exclude_ips: { from: ["10.0.0.3"], to: ["10.0.0.2", "10.0.0.1"] },
        },
        send: { privacy: 0, email: 1, exclude_ips: ["10.0.0.2", "10.0.0.1"] },
        sendPassword: false,
        secrets: {},
      },
    ]);
  });

  it("compares lists as sets after trimming: order, repeats and blanks are no change", () => {
    const declared = item("a.example.com", { exclude_ips: ["10.0.0.2", " 10.0.0.1", "10.0.0.2", ""] });
    const website = remote(7, "a.example.com", { exclude_ips: ["10.0.0.1", "10.0.0.2"] });
    expect(actions(plan([declared], [website], [applied(declared, 7)]))).toEqual(["noop a.example.com"]);
  });

  it("compares exclude_params by the hash of the last applied value, shown only as (sensitive)", () => {
    const before = item("a.example.com", { exclude_params: ["utm_source", "ref"] });
    const after = item("a.example.com", { exclude_params: ["utm_source"] });
    const same = item("a.example.com", { exclude_params: ["ref", " utm_source"] });
    const website = remote(7, "a.example.com");
    expect(actions(plan([same], [website], [applied(before, 7)]))).toEqual(["noop a.example.com"]);
    const changed = plan([after], [website], [applied(before, 7)]).entries[0];
    expect(changed).toMatchObject({
      action: "update",
      diff: { exclude_params: { from: "(sensitive)", to: "(sensitive)" } },
      send: { exclude_params: ["utm_source"] },
      secrets: { exclude_params: excludeParamsHash(KEY, ["utm_source"]) },
    });
  });

  it("sets the password once when none was stored, then not again", () => {
    const declared = item("a.example.com", { privacy: 2, password: "s3cret-pw" });
    const website = remote(7, "a.example.com", { privacy: 2, password: true });
    const firstTime = plan([declared], [website], [owned("a.example.com", 7, null, "imported")]).entries[0];
    expect(firstTime).toMatchObject({
      action: "update",
      sendPassword: true,
      diff: { password: { from: "(sensitive)", to: "(sensitive)" } },
      secrets: { password: passwordHash(KEY, "s3cret-pw") },
    });
    expect(actions(plan([declared], [website], [applied(declared, 7)]))).toEqual(["noop a.example.com"]);
  });

  it("plans a password change when the declared one differs from the last applied one", () => {
    const old = item("a.example.com", { privacy: 2, password: "old-password" });
    const declared = item("a.example.com", { privacy: 2, password: "new-password" });
    const website = remote(7, "a.example.com", { privacy: 2, password: true });
    const entry = plan([declared], [website], [applied(old, 7)]).entries[0];
    expect(entry).toMatchObject({ action: "update", sendPassword: true, send: {} });
    expect(JSON.stringify(entry)).not.toMatch(/old-password|new-password/);
  });

  it("sends the password again when the service reports none set, even with a matching hash", () => {
    const declared = item("a.example.com", { privacy: 2, password: "pw-1234" });
    const website = remote(7, "a.example.com", { privacy: 1, password: false });
    const entry = plan([declared], [website], [applied(declared, 7)]).entries[0];
    expect(entry).toMatchObject({
      action: "update",
      sendPassword: true,
      send: { privacy: 2 },
      diff: { privacy: { from: "private", to: "password" }, password: { from: null, to: "(sensitive)" } },
    });
  });

  it("does not trust hashes stored for another website that had the same domain", () => {
    const declared = item("a.example.com");
    const entry = plan([declared], [remote(9, "a.example.com")], [applied(declared, 7)]).entries[0];
    expect(entry).toMatchObject({ action: "update", owned: false, diff: { exclude_params: {} } });
  });

  it("re-creates an owned website that was deleted remotely", () => {
    const declared = item("a.example.com");
    const other = item("b.example.com");
    const entry = plan(
      [declared, other],
      [remote(8, "b.example.com")],
      [applied(declared, 7), applied(other, 8)],
    ).entries[0];
    expect(entry).toMatchObject({
      action: "create",
      reason: "topsync's website with this domain was deleted remotely",
    });
  });

  it("trusts no listing that shows none of the websites topsync owns: nothing created, deleted or forgotten", () => {
    const ownership = [owned("a.example.com", 1), owned("b.example.com", 2), owned("gone.example.com", 3)];
    const declared = [item("a.example.com"), item("b.example.com"), item("new.example.com")];
    const blind = plan(declared, [], ownership, { prune: true });
    expect(blind.entries.map((e) => [e.domain, e.action])).toEqual([
      ["a.example.com", "withheld"],
      ["b.example.com", "withheld"],
      ["new.example.com", "withheld"],
    ]);
    expect(blind.forget).toEqual([]);
    expect(blind.remote).toMatchObject({ websites: 0, complete: false, vanished: 3 });
    expect(blind.remote.problem).toContain(
      "the listing shows none of the 3 websites topsync owns (a.example.com, b.example.com, gone.example.com)",
    );
    // Websites it does not own do not make the listing trustworthy: the owned ones are still all missing.
    expect(plan(declared, [remote(9, "legacy.example.org")], ownership).remote.complete).toBe(false);
    // One owned website seen is enough: the others were deleted remotely and are created again.
    const seen = plan(declared, [remote(1, "a.example.com")], ownership);
    expect(seen.remote.complete).toBe(true);
    expect(seen.forget).toEqual(["gone.example.com"]);
    // A person accepts that they are gone.
    const accepted = plan(declared, [], ownership, { acceptVanished: true });
    expect(accepted.summary.create).toBe(3);
    expect(accepted.forget).toEqual(["gone.example.com"]);
    // Nothing owned: nothing to vanish (a first apply).
    expect(plan(declared, [], []).summary.create).toBe(3);
  });

  it("leaves undeclared websites it does not own alone, even with prune", () => {
    const result = plan([], [remote(3, "legacy.example.org")], [], { prune: true });
    expect(result.entries).toEqual([
      {
        action: "unmanaged",
        domain: "legacy.example.org",
        id: 3,
        reason: "not declared and not owned by topsync",
      },
    ]);
  });

  it("deletes an owned undeclared website only with prune", () => {
    const ownership = [owned("old.example.com", 5), owned("adopted.example.com", 6, null, "imported")];
    const remotes = [remote(5, "old.example.com"), remote(6, "adopted.example.com")];
    expect(actions(plan([item("x.example.com")], remotes, ownership, { prune: true }))).toEqual([
      "delete adopted.example.com",
      "delete old.example.com",
      "create x.example.com",
    ]);
    const kept = plan([item("x.example.com")], remotes, ownership, { prune: false });
    expect(kept.summary).toMatchObject({ delete: 0, unmanaged: 2 });
    expect(kept.entries[0]).toMatchObject({
      reason: "owned by topsync but no longer declared; prune is off",
    });
  });

  it("never deletes a website merely declared-and-updated before, nor one with another id", () => {
    const ownership = [owned("declared.example.com", 5, {}, "declared"), owned("moved.example.com", 6)];
    const remotes = [remote(5, "declared.example.com"), remote(16, "moved.example.com")];
    const result = plan([item("x.example.com")], remotes, ownership, { prune: true });
    expect(result.summary).toMatchObject({ delete: 0, unmanaged: 2 });
    expect(result.entries[1]).toMatchObject({
      reason: "topsync owned website 6 with this domain, not this one",
    });
  });

  it("treats a create in doubt (no id) as owning what is found under the domain", () => {
    const declared = item("a.example.com");
    const ownership = [owned("a.example.com", null, declaredSecrets(declared, KEY))];
    expect(actions(plan([declared], [remote(8, "a.example.com")], ownership))).toEqual([
      "noop a.example.com",
    ]);
    expect(actions(plan([], [remote(8, "a.example.com")], ownership, { prune: true }))).toEqual([
      "delete a.example.com",
    ]);
  });

  it("reports two remote websites with one domain as a conflict and touches neither", () => {
    const result = plan(
      [item("dup.example.com")],
      [remote(4, "dup.example.com"), remote(9, "www.dup.example.com")],
      [owned("dup.example.com", 4)],
      { prune: true },
    );
    expect(result.entries).toEqual([
      {
        action: "conflict",
        domain: "dup.example.com",
        ids: [4, 9],
        reason:
          "2 remote websites (ids 4, 9) have this domain; resolve it by hand, topsync touches none of them",
      },
    ]);
    expect(result.summary).toMatchObject({ create: 0, update: 0, delete: 0, conflicts: 1 });
  });

  it("forgets ownership of domains neither declared nor remote, but only after a complete listing", () => {
    const ownership = [
      owned("gone.example.com", 3),
      owned("kept.example.com", 4),
      owned("seen.example.com", 5),
    ];
    const seen = [remote(5, "seen.example.com")];
    expect(plan([item("kept.example.com")], seen, ownership).forget).toEqual(["gone.example.com"]);
    expect(plan([item("kept.example.com")], seen, ownership, { complete: false }).forget).toEqual([]);
  });

  it("is a plain value: JSON round-trips it unchanged", () => {
    const result = plan(
      [item("a.example.com", { privacy: 2, password: "pw-pw" })],
      [remote(1, "b.example.com")],
    );
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it("refuses duplicate declared domains loudly rather than guessing", () => {
    expect(() => plan([item("a.example.com"), item("www.a.example.com")], [])).toThrow(
      "website a.example.com is declared twice",
    );
  });
});

describe("secret hashes", () => {
  it("are keyed by the API key and differ per field", () => {
    const one = deriveSecretKey("key-one");
    const two = deriveSecretKey("key-two");
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(passwordHash(one, "pw")).not.toBe(passwordHash(two, "pw"));
    expect(passwordHash(one, "a")).not.toBe(excludeParamsHash(one, ["a"]));
    expect(excludeParamsHash(one, ["b", "a", " a"])).toBe(excludeParamsHash(one, ["a", "b"]));
  });
});

describe("delete guards", () => {
  const ownership = ["a", "b", "c"].map((name, i) => owned(`${name}.example.com`, i + 1));
  const remotes = ["a", "b", "c"].map((name, i) => remote(i + 1, `${name}.example.com`));
  const threeDeletes = plan([item("keep.example.com")], remotes, ownership, { prune: true });

  it("allow deletes within max_deletes", () => {
    expect(threeDeletes.summary.delete).toBe(3);
    expect(deleteRefusal(threeDeletes, { maxDeletes: 3, allowMassDelete: false })).toBeUndefined();
  });

  it("refuse more deletes than max_deletes unless mass deletes are allowed", () => {
    expect(deleteRefusal(threeDeletes, { maxDeletes: 2, allowMassDelete: false })).toEqual({
      code: "TOO_MANY_DELETES",
      message:
        "refusing all 3 deletes: more than websites.max_deletes (2); run with --allow-mass-delete if they are meant",
    });
    expect(deleteRefusal(threeDeletes, { maxDeletes: 2, allowMassDelete: true })).toBeUndefined();
  });

  it("refuse every delete when nothing is declared, even with mass deletes allowed", () => {
    const empty = plan([], remotes, ownership, { prune: true });
    expect(deleteRefusal(empty, { maxDeletes: 100, allowMassDelete: true })?.code).toBe("NOTHING_DECLARED");
  });

  it("are not even planned from an incomplete listing: the deletes and creates are withheld", () => {
    const partial = plan([item("keep.example.com"), item("new.example.com")], remotes, ownership, {
      prune: true,
      complete: false,
      problem: "total changed from 3 to 4 while the list was read",
    });
    expect(partial.summary).toMatchObject({ create: 0, delete: 0 });
    expect(partial.summary.withheld).toBeGreaterThan(1);
    expect(partial.entries.filter((e) => e.action === "withheld").map((e) => e.domain)).toContain(
      "new.example.com",
    );
    expect(partial.remote).toMatchObject({
      complete: false,
      problem: expect.stringContaining("total changed"),
    });
    expect(deleteRefusal(partial, { maxDeletes: 100, allowMassDelete: true })).toBeUndefined();
  });
});
