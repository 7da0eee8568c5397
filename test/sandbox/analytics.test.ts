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
});

async function create(form: Record<string, string>) {
  const response = await analytics(sandbox, "POST", "/api/v1/websites", { form });
  return { status: response.status, body: await json(response) };
}

describe("analytics authentication", () => {
  it("answers 401 without a key or with the reseller's key", async () => {
    for (const key of [null, "sandbox-reseller-key"]) {
      const response = await analytics(sandbox, "GET", "/api/v1/websites", { key });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ message: "Unauthenticated." });
    }
  });
});

describe("creating websites", () => {
  it("normalises the domain, applies defaults and answers 201 with status 200 inside", async () => {
    const { status, body } = await create({ domain: "HTTPS://www.Example.COM" });
    expect(status).toBe(201);
    expect(body).toEqual({
      data: {
        id: 1,
        domain: "example.com",
        privacy: 1,
        email: 0,
        password: false,
        exclude_bots: 1,
        exclude_ips: null,
        created_at: expect.stringMatching(/\.\d{6}Z$/),
        updated_at: expect.any(String),
        favorite: 0,
      },
      status: 200,
    });
  });

  it("stores exclude_params and the password but never returns them", async () => {
    const { body } = await create({
      domain: "shop.example.com",
      privacy: "2",
      password: "s3cret",
      exclude_params: "utm_source\nutm_medium",
      exclude_ips: "10.0.0.1\n10.0.0.2",
    });
    expect(body.data.password).toBe(true);
    expect(body.data.exclude_ips).toBe("10.0.0.1\n10.0.0.2");
    expect("exclude_params" in body.data).toBe(false);
    const shown = await json(await analytics(sandbox, "GET", `/api/v1/websites/${body.data.id}`));
    expect("exclude_params" in shown.data).toBe(false);
    expect(JSON.stringify(shown)).not.toContain("s3cret");
    expect(sandbox.websites()[0]).toMatchObject({
      password: "s3cret",
      exclude_params: "utm_source\nutm_medium",
    });
  });

  it("answers 422 in Laravel's shape for a taken domain", async () => {
    await create({ domain: "example.com" });
    const { status, body } = await create({ domain: "http://www.example.com" });
    expect(status).toBe(422);
    expect(body).toEqual({
      message: "The domain has already been taken.",
      errors: { domain: ["The domain has already been taken."] },
    });
  });

  it("answers 422 in the message-object shape when configured", async () => {
    sandbox.setOptions({ validationShape: "message-object" });
    const { status, body } = await create({ domain: "not a domain" });
    expect(status).toBe(422);
    expect(body).toEqual({ message: { domain: ["The domain format is invalid."] }, status: 422 });
  });

  it("validates required, length, hostname shape and enumerated settings", async () => {
    expect((await create({})).body.errors).toEqual({ domain: ["The domain field is required."] });
    expect((await create({ domain: "localhost" })).body.errors.domain).toEqual([
      "The domain format is invalid.",
    ]);
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(20)}.com`;
    expect((await create({ domain: long })).body.errors.domain).toEqual([
      "The domain must not be greater than 255 characters.",
    ]);
    const bad = await create({ domain: "ok.example.com", privacy: "3", email: "2", exclude_bots: "x" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["email", "exclude_bots", "privacy"]);
    expect(bad.body.message).toBe("The selected privacy is invalid. (and 2 more errors)");
    expect(sandbox.websites()).toEqual([]);
  });

  it("requires a password of at most 128 characters when privacy is 2", async () => {
    const missing = await create({ domain: "p.example.com", privacy: "2" });
    expect(missing.body.errors).toEqual({ password: ["The password field is required when privacy is 2."] });
    const tooLong = await create({ domain: "p.example.com", privacy: "2", password: "x".repeat(129) });
    expect(tooLong.body.errors.password).toEqual(["The password must not be greater than 128 characters."]);
    expect((await create({ domain: "p.example.com", privacy: "2", password: "x".repeat(128) })).status).toBe(
      201,
    );
  });

  it("refuses websites beyond the plan limit", async () => {
    sandbox.setOptions({ maxWebsites: 2 });
    expect((await create({ domain: "a.example.com" })).status).toBe(201);
    expect((await create({ domain: "b.example.com" })).status).toBe(201);
    const third = await create({ domain: "c.example.com" });
    expect(third.status).toBe(422);
    expect(third.body.message).toBe("You created too many websites.");
    expect(sandbox.websites()).toHaveLength(2);
  });

  it("returns integer fields as strings with stringInts", async () => {
    sandbox.setOptions({ stringInts: true });
    const { body } = await create({ domain: "s.example.com", email: "1" });
    expect(body.data).toMatchObject({ id: "1", privacy: "1", email: "1", exclude_bots: "1", favorite: "0" });
    expect(body.data.password).toBe(false);
  });
});

describe("reading, updating and deleting websites", () => {
  it("answers 404 Resource not found for an unknown id on get, put and delete", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const form = method === "PUT" ? { privacy: "0" } : undefined;
      const response = await analytics(sandbox, method, "/api/v1/websites/999", { form });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ message: "Resource not found.", status: 404 });
    }
  });

  it("updates only the fields sent and ignores the domain", async () => {
    const { body } = await create({ domain: "u.example.com", email: "1", exclude_ips: "1.2.3.4" });
    const id = body.data.id as number;
    const response = await analytics(sandbox, "PUT", `/api/v1/websites/${id}`, {
      form: { privacy: "0", domain: "other.example.com" },
    });
    expect(response.status).toBe(200);
    const updated = await json(response);
    expect(updated).toMatchObject({
      data: { id, domain: "u.example.com", privacy: 0, email: 1, exclude_bots: 1, exclude_ips: "1.2.3.4" },
      status: 200,
    });
  });

  it("clears exclude_ips when sent empty, and keeps a stored password when privacy becomes 2", async () => {
    const { body } = await create({ domain: "v.example.com", password: "pw", exclude_ips: "1.2.3.4" });
    const id = body.data.id as number;
    const response = await analytics(sandbox, "PUT", `/api/v1/websites/${id}`, {
      form: { privacy: "2", exclude_ips: "" },
    });
    expect((await json(response)).data).toMatchObject({ privacy: 2, password: true, exclude_ips: null });
  });

  it("refuses privacy 2 on update when no password is stored or sent", async () => {
    const { body } = await create({ domain: "w.example.com" });
    const response = await analytics(sandbox, "PUT", `/api/v1/websites/${body.data.id}`, {
      form: { privacy: "2" },
    });
    expect(response.status).toBe(422);
    expect((await json(response)).errors).toEqual({
      password: ["The password field is required when privacy is 2."],
    });
    expect(sandbox.websites()[0]?.privacy).toBe(1);
  });

  it("deletes a website, frees its domain and records every mutation", async () => {
    const { body } = await create({ domain: "d.example.com" });
    const id = body.data.id as number;
    const response = await analytics(sandbox, "DELETE", `/api/v1/websites/${id}`);
    expect(await json(response)).toEqual({ id, object: "website", deleted: true, status: 200 });
    expect((await analytics(sandbox, "GET", `/api/v1/websites/${id}`)).status).toBe(404);
    expect((await create({ domain: "d.example.com" })).status).toBe(201);
    expect(sandbox.websiteMutations().map((m) => [m.method, m.path, m.status])).toEqual([
      ["POST", "/api/v1/websites", 201],
      ["DELETE", `/api/v1/websites/${id}`, 200],
      ["POST", "/api/v1/websites", 201],
    ]);
    expect(sandbox.websiteMutations()[0]?.fields).toEqual({ domain: "d.example.com" });
  });
});

describe("behaving like real installations", () => {
  it("throttles like Laravel: the limit and what is left on every answer, then 429 with Retry-After and X-RateLimit-Reset", async () => {
    sandbox.setOptions({ throttle: { limit: 3, windowSeconds: 60 } });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await analytics(sandbox, "GET", "/api/v1/websites");
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("3");
      remaining.push(response.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await analytics(sandbox, "POST", "/api/v1/websites", {
      form: { domain: "a.example.com" },
    });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toEqual({ message: "Too Many Attempts." });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000 + 58);
    expect(sandbox.websites()).toEqual([]);
  });

  it("does not throttle unless asked", async () => {
    const response = await analytics(sandbox, "GET", "/api/v1/websites");
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("answers single records bare when asked, with password as a boolean and never exclude_params", async () => {
    sandbox.setOptions({ recordShape: "bare" });
    const { status, body } = await create({
      domain: "a.example.com",
      privacy: "2",
      password: "pw-123456",
      exclude_params: "utm_source",
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: 1, domain: "a.example.com", privacy: 2, password: true });
    expect(body).not.toHaveProperty("data");
    expect(body).not.toHaveProperty("exclude_params");
    const shown = await json(await analytics(sandbox, "GET", "/api/v1/websites/1"));
    expect([shown.id, shown.password, "exclude_params" in shown]).toEqual([1, true, false]);
  });

  it("caps per_page when the installation is configured so, and says so in the page", async () => {
    sandbox.setOptions({ perPageCap: 10 });
    sandbox.seedWebsites(Array.from({ length: 25 }, (_, i) => ({ domain: `s${i}.example.com` })));
    const page = await json(await analytics(sandbox, "GET", "/api/v1/websites?per_page=100&page=1"));
    expect(page.data).toHaveLength(10);
    expect(page.meta).toMatchObject({ per_page: 10, last_page: 3, total: 25 });
  });

  it("refuses a domain another account holds with a 422 'taken', and never lists it", async () => {
    sandbox.setOptions({ takenDomains: ["Taken.example.com"] });
    const { status, body } = await create({ domain: "https://www.taken.example.com" });
    expect(status).toBe(422);
    expect(body.errors).toEqual({ domain: ["The domain has already been taken."] });
    const page = await json(await analytics(sandbox, "GET", "/api/v1/websites"));
    expect(page.meta.total).toBe(0);
  });
});
