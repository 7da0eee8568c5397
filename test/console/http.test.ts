// The console over HTTP, on a daemon with the sandbox: nothing for anonymous requests, CSRF and Origin checked on
// every POST, logins throttled, a form submitted twice acting once, a purchase changed since its page was drawn
// left alone, cookies with their flags, the security headers, no phone number in full on any page.
import { request } from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  Client,
  type ConsoleFixture,
  formFields,
  LOST_PHONE,
  PASSWORD,
  startConsoleFixture,
} from "./helpers.js";

const PAGES = [
  "/console/",
  "/console/purchases",
  "/console/plans",
  "/console/jobs",
  "/console/websites",
  "/console/report",
];

describe("the console over HTTP", { timeout: 180_000 }, () => {
  let f: ConsoleFixture;
  const events = async (id: number) =>
    f.ledger.query<{ actor: string; reason: string; to_state: string }>(
      sql`select actor, reason, to_state from purchase_events where purchase_id = ${id} order by id`,
    );

  beforeAll(async () => {
    f = await startConsoleFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it("gives anonymous requests the login page and nothing else, on every page and action", async () => {
    const anonymous = new Client(f.base);
    for (const path of [...PAGES, `/console/purchases/${f.inDoubtId}`, `/console/plans/${f.planId}`]) {
      const page = await anonymous.get(path);
      expect(page.status, path).toBe(303);
      expect(page.headers.get("location")).toBe("/console/login");
      expect(page.body).toBe("");
    }
    for (const path of [`/console/purchases/${f.inDoubtId}/resolve`, `/console/plans/${f.planId}/approve`]) {
      const posted = await anonymous.post(path, { as: "failed", reason: "x", _form: "a".repeat(30) });
      expect(posted.status, path).toBe(403);
      expect(posted.body).not.toContain("in_doubt");
    }
    expect((await events(f.inDoubtId)).some((e) => e.actor.startsWith("console:"))).toBe(false);
  });

  it("logs nobody in under a name every object inherits, whatever the password", async () => {
    // `console.users` is a plain object: looked up by "__proto__" it once found Object.prototype, a "user" without
    // a password hash, so the password was checked against the decoy hash — whose password is in the source.
    // Five failed logins from this address, well under login_attempts_per_source for the tests after this one.
    for (const user of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const intruder = new Client(f.base);
      const login = await intruder.login(user, "not a password anyone has");
      expect(login.status, user).toBe(401);
      expect(login.headers.get("set-cookie")).toBeNull();
      expect((await intruder.get("/console/purchases")).status).toBe(303);
    }
  });

  it("sets the session cookie HttpOnly, SameSite=Strict, scoped and expiring, and every answer carries the security headers", async () => {
    const client = new Client(f.base);
    const login = await client.login("vic");
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Max-Age=43200/);
    expect(cookie).toMatch(/Path=\/console\//);
    expect(cookie).not.toMatch(/Secure/i); // no https public_url
    const home = await client.get("/console/");
    expect(home.status).toBe(200);
    expect(home.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(home.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(home.headers.get("x-frame-options")).toBe("DENY");
    expect(home.headers.get("referrer-policy")).toBe("same-origin");
    expect(home.headers.get("cache-control")).toBe("no-store");
  });

  it("ends the session on logout, for every replica (the ledger forgets it)", async () => {
    const client = new Client(f.base);
    await client.login("vic");
    const cookie = client.cookie;
    const home = await client.get("/console/");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)![1]!;
    const out = await client.post("/console/logout", { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    client.cookie = cookie; // a copy of the old cookie logs no one in
    expect((await client.get("/console/")).status).toBe(303);
  });

  it("ends a session past its session_ttl: the login page again, and no data", async () => {
    const client = new Client(f.base);
    await client.login("vic");
    expect((await client.get("/console/")).status).toBe(200);
    // The session's lifetime runs out (session_ttl, 12h here): as if the clock had moved past it.
    await f.ledger.query(
      sql`update console_sessions set expires_at = now() - interval '1 second' where user_name = 'vic'`,
    );
    const after = await client.get("/console/");
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/console/login");
    expect(after.body).toBe("");
  });

  it("ends a session made with a password the config no longer gives its user", async () => {
    const client = new Client(f.base);
    await client.login("vic");
    expect((await client.get("/console/")).status).toBe(200);
    const [made] = await f.ledger.query<{ credential: string | null }>(
      sql`select credential from console_sessions where user_name = 'vic' order by created_at desc limit 1`,
    );
    expect(made?.credential).toMatch(/^[0-9a-f]{64}$/);
    // The session as one made under vic's old password_hash (the config since gives vic another): before, it
    // stayed good until its session_ttl, whatever the password had become.
    await f.ledger.query(
      sql`update console_sessions set credential = ${"0".repeat(64)} where user_name = 'vic'`,
    );
    const after = await client.get("/console/");
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/console/login");
    // A new login with the password the config holds makes a good session again.
    await client.login("vic");
    expect((await client.get("/console/")).status).toBe(200);
  });

  it("shows no phone number in full and no secret on any page", async () => {
    const client = new Client(f.base);
    await client.login("ada");
    for (const path of [
      ...PAGES,
      `/console/purchases/${f.inDoubtId}`,
      `/console/plans/${f.planId}`,
      "/console/purchases?q=lost",
    ]) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toContain(LOST_PHONE);
      expect(page.body, path).not.toMatch(/0803\d{7}/);
      expect(page.body, path).not.toContain(f.sandbox.apiKey);
      expect(page.body, path).not.toContain("scrypt$");
    }
    const show = await client.get(`/console/purchases/${f.inDoubtId}`);
    expect(show.body).toContain("0803****001");
  });

  it("refuses a POST without the CSRF token, or from another Origin, with 403 and no change", async () => {
    const client = new Client(f.base);
    await client.login("olu");
    const page = await client.get(`/console/purchases/${f.inDoubtId}`);
    const fields = formFields(page.body, "resolve");
    const form: Record<string, string> = { ...fields, as: "failed", reason: "the provider said no" };
    const noCsrf = Object.fromEntries(Object.entries(form).filter(([name]) => name !== "_csrf"));
    expect((await client.post(`/console/purchases/${f.inDoubtId}/resolve`, noCsrf)).status).toBe(403);
    expect(
      (await client.post(`/console/purchases/${f.inDoubtId}/resolve`, { ...form, _csrf: "forged" })).status,
    ).toBe(403);
    expect(
      (
        await client.post(`/console/purchases/${f.inDoubtId}/resolve`, form, {
          origin: "https://evil.example",
        })
      ).status,
    ).toBe(403);
    expect(
      (await client.post(`/console/purchases/${f.inDoubtId}/resolve`, form, { origin: null })).status,
    ).toBe(403);
    const [row] = await f.ledger.query<{ state: string }>(
      sql`select state from purchases where id = ${f.inDoubtId}`,
    );
    expect(row?.state).toBe("in_doubt");
  });

  it("without console.public_url, trusts no Host header: only a console page opened at a loopback address of its port", async () => {
    // A page served from attacker.example whose name resolves to this machine (DNS rebinding) sends
    // Host: attacker.example:PORT and Origin: http://attacker.example:PORT — the two agreed, and the Origin check,
    // which compared one with the other, let its login (and any form) through.
    const port = Number(new URL(f.base).port);
    const login = (host: string, origin: string) =>
      new Promise<{ status: number; cookie?: string }>((resolve, reject) => {
        const body = new URLSearchParams({ user: "vic", password: PASSWORD }).toString();
        const sent = request(
          {
            host: "127.0.0.1",
            port,
            path: "/console/login",
            method: "POST",
            headers: {
              host,
              origin,
              "content-type": "application/x-www-form-urlencoded",
              "content-length": Buffer.byteLength(body),
            },
          },
          (answer) => {
            answer.resume();
            answer.on("end", () =>
              resolve({ status: answer.statusCode ?? 0, cookie: answer.headers["set-cookie"]?.[0] }),
            );
          },
        );
        sent.on("error", reject);
        sent.end(body);
      });
    const rebound = await login(`attacker.example:${port}`, `http://attacker.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.cookie).toBeUndefined();
    // Nor another port of this machine, nor https where the console speaks http.
    expect((await login(`127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`)).status).toBe(403);
    expect((await login(`127.0.0.1:${port}`, `https://127.0.0.1:${port}`)).status).toBe(403);
    // The console opened at a loopback name of its own port logs in, whatever Host says.
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const ok = await login(`localhost:${port}`, origin);
      expect(ok.status, origin).toBe(303);
      expect(ok.cookie).toMatch(/^topsync_console=/);
    }
  });

  it("refuses an action to a viewer, needs a reason, and refuses control characters in it", async () => {
    const viewer = new Client(f.base);
    await viewer.login("vic");
    const page = await viewer.get(`/console/purchases/${f.inDoubtId}`);
    expect(page.body).not.toContain('id="resolve"');
    const operator = new Client(f.base);
    await operator.login("olu");
    const fields = formFields((await operator.get(`/console/purchases/${f.inDoubtId}`)).body, "resolve");
    // The viewer's own session, with a form drawn for someone else: refused by role.
    const viewerCsrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const refused = await viewer.post(`/console/purchases/${f.inDoubtId}/resolve`, {
      ...fields,
      _csrf: viewerCsrf,
      as: "failed",
      reason: "no",
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain("a viewer may not resolve");
    const noReason = await operator.post(`/console/purchases/${f.inDoubtId}/resolve`, {
      ...fields,
      as: "failed",
      reason: " ",
    });
    expect(noReason.status).toBe(400);
    // A NUL (%00 in the form) or another control character in the reason or the reference: refused, not a 500.
    const controls: Record<string, string>[] = [
      { reason: "provider\u0000said no" },
      { reason: "ok", reference: "REF\u001b[2J" },
    ];
    for (const field of controls) {
      const control = await operator.post(`/console/purchases/${f.inDoubtId}/resolve`, {
        ...fields,
        as: "failed",
        ...field,
      });
      expect(control.status).toBe(400);
      expect(control.body).toContain("holds a control character");
    }
    expect((await events(f.inDoubtId)).some((e) => e.actor.startsWith("console:"))).toBe(false);
  });

  it("throttles logins after repeated wrong passwords, even with the right one", async () => {
    const client = new Client(f.base);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await client.login("bola", `wrong ${i}`)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429, 429, 429]);
    const right = await client.login("bola");
    expect(right.status).toBe(429);
    expect(right.headers.get("set-cookie")).toBeNull();
  });

  it("acts once on a form submitted twice, and refuses a form drawn before the purchase changed", async () => {
    const client = new Client(f.base);
    await client.login("olu");
    const drawn = (await client.get(`/console/purchases/${f.inDoubtId}`)).body;
    const first = formFields(drawn, "resolve");
    const second = formFields((await client.get(`/console/purchases/${f.inDoubtId}`)).body, "resolve");
    const form = { ...first, as: "failed", reason: "the provider's statement has no debit" };
    const done = await client.post(`/console/purchases/${f.inDoubtId}/resolve`, form);
    expect(done.status, done.body).toBe(303);
    const again = await client.post(`/console/purchases/${f.inDoubtId}/resolve`, form);
    expect(again.status).toBe(409);
    expect(again.body).toContain("submitted already");
    const stale = await client.post(`/console/purchases/${f.inDoubtId}/resolve`, {
      ...second,
      as: "succeeded",
      reason: "x",
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toContain("changed since this page was drawn: its state went from in_doubt to failed");
    const console = (await events(f.inDoubtId)).filter((e) => e.actor.startsWith("console:"));
    expect(console).toEqual([
      {
        actor: "console:olu",
        to_state: "failed",
        reason: "resolved in the console as failed: the provider's statement has no debit",
      },
    ]);
    const after = await client.get(done.headers.get("location")!);
    expect(after.body).toContain("in_doubt -&gt; failed");
  });

  it("lets an approver approve another's plan with the CLI's approval record, and not their own", async () => {
    const author = new Client(f.base);
    await author.login("bola");
    const own = await author.get(`/console/plans/${f.planId}`);
    expect(own.body).not.toContain('id="approve"');
    const ada = new Client(f.base);
    await ada.login("ada");
    const page = await ada.get(`/console/plans/${f.planId}`);
    const approved = await ada.post(`/console/plans/${f.planId}/approve`, {
      ...formFields(page.body, "approve"),
      reason: "checked the list",
    });
    expect(approved.status, approved.body).toBe(303);
    const [record] = await f.ledger.query<{ approver: string; decision: string; reason: string }>(
      sql`select approver, decision, reason from plan_approvals where plan_id = ${f.planId}`,
    );
    expect(record).toEqual({ approver: "ada", decision: "approve", reason: "checked the list" });
    const shown = await f.ledger.cli(["--json", "saved", "list"]);
    expect(JSON.parse(shown.stdout)[0]).toMatchObject({
      id: f.planId,
      status: "approved",
      approvals: ["ada"],
    });
  });

  it("shows each job's schedule and next fires; an operator suspends and resumes it, a viewer may not", async () => {
    const viewer = new Client(f.base);
    await viewer.login("vic");
    const shown = await viewer.get("/console/jobs");
    expect(shown.body).toContain("schedule 0 8 1 1 *");
    expect(shown.body).toMatch(/Next fires: \d{4}-01-01 08:00, \d{4}-01-01 08:00, \d{4}-01-01 08:00/);
    expect(shown.body).not.toContain('id="job-new-year-suspend"');
    const operator = new Client(f.base);
    await operator.login("olu");
    const page = (await operator.get("/console/jobs")).body;
    const viewerCsrf = /name="_csrf" value="([^"]+)"/.exec(shown.body)![1]!;
    const fields = formFields(page, "job-new-year-suspend");
    const refused = await viewer.post("/console/jobs/new-year/suspend", {
      ...fields,
      _csrf: viewerCsrf,
      reason: "no",
    });
    expect(refused.status).toBe(403);
    const form = { ...fields, reason: "campaign stopped" };
    const suspended = await operator.post("/console/jobs/new-year/suspend", form);
    expect(suspended.status, suspended.body).toBe(303);
    expect((await operator.post("/console/jobs/new-year/suspend", form)).status).toBe(409);
    const after = await operator.get(suspended.headers.get("location")!);
    expect(after.body).toContain("job new-year suspended on every replica by olu");
    expect(after.body).toContain("(skipped while it is suspended)");
    expect(after.body).toContain("campaign stopped");
    const listed = JSON.parse((await f.ledger.cli(["--json", "jobs", "list"])).stdout) as Array<{
      job: string;
      state: string;
    }>;
    expect(listed.find((job) => job.job === "new-year")?.state).toBe("suspended");
    const resumed = await operator.post("/console/jobs/new-year/resume", {
      ...formFields(after.body, "job-new-year-resume"),
      reason: "campaign back on",
    });
    expect(resumed.status, resumed.body).toBe(303);
    const history = await f.ledger.query<{ actor: string; to_state: string; reason: string }>(
      sql`select actor, to_state, reason from job_events where job_name = 'new-year' order by id`,
    );
    expect(history).toEqual([
      { actor: "console:olu", to_state: "suspended", reason: "campaign stopped" },
      { actor: "console:olu", to_state: "active", reason: "campaign back on" },
    ]);
  });

  it("lists a job stopped and then taken out of the config, with its queue, and an operator resumes it", async () => {
    await f.ledger.query(
      sql`insert into jobs (name, state, note, state_changed_by) values ('old-promo', 'paused', 'provider down', 'run:1')`,
    );
    await f.ledger.query(
      sql`insert into purchases (request_key, source, job_name, network, phone, amount, state)
          values ('job:old-promo:2026-01-01T07:00:00.000Z:08031239901', 'job', 'old-promo', 'MTN', '08031239901', 305, 'queued')`,
    );
    const operator = new Client(f.base);
    await operator.login("olu");
    const page = (await operator.get("/console/jobs")).body;
    expect(page).toContain("Stopped, and no longer in the config");
    expect(page).toContain("Queued purchases: 1");
    expect(
      (await operator.post("/console/jobs/old-promo/suspend", formFields(page, "job-old-promo-resume")))
        .status,
    ).not.toBe(303);
    const resumed = await operator.post("/console/jobs/old-promo/resume", {
      ...formFields(page, "job-old-promo-resume"),
      reason: "renamed; buy what it queued",
    });
    expect(resumed.status, resumed.body).toBe(303);
    const [row] = await f.ledger.query<{ state: string }>(
      sql`select state from jobs where name = 'old-promo'`,
    );
    expect(row?.state).toBe("active");
    await f.ledger.query(sql`update purchases set state = 'cancelled' where job_name = 'old-promo'`);
  });

  it("finds a purchase by its request key", async () => {
    const client = new Client(f.base);
    await client.login("vic");
    const [row] = await f.ledger.query<{ request_key: string }>(
      sql`select request_key from purchases where id = ${f.inDoubtId}`,
    );
    const found = await client.get(`/console/purchases?q=${encodeURIComponent(row!.request_key)}`);
    expect(found.body).toContain(`href="/console/purchases/${f.inDoubtId}"`);
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Lagos" }).format(new Date());
    const byPhone = await client.get(`/console/purchases?phone=0001&from=${today}&to=${today}&job=lost`);
    expect(byPhone.body).toContain(`href="/console/purchases/${f.inDoubtId}"`);
    const other = await client.get(`/console/purchases?phone=9999&from=${today}&to=${today}`);
    expect(other.body).toContain("No purchase matches.");
    const bad = await client.get("/console/purchases?phone=12");
    expect(bad.body).toContain("give the last 3 to 11 digits");
    const wide = await client.get("/console/purchases?from=2026-01-01&to=2026-06-30");
    expect(wide.body).toContain("a search covers at most 31 days");
  });

  it("keeps a search by a whole phone number on every page of it, without drawing the number in full", async () => {
    // Sixty purchases today for one number: two pages. The pager's link (and the form's field) once carried the
    // number through the page's masking, as 0803****777, which the next page refused as no last digits at all.
    const phone = "08031230777";
    await f.ledger.query(
      sql`insert into purchases (request_key, source, network, phone, amount, state)
          select 'pager-' || i, 'intake', 'MTN', ${phone}, 305, 'failed' from generate_series(1, 60) as i`,
    );
    const client = new Client(f.base);
    await client.login("vic");
    const ids = async (body: string) =>
      [...body.matchAll(/<td><a href="\/console\/purchases\/(\d+)">/g)].map((m) => Number(m[1]));
    for (const term of [phone, phone.slice(1)]) {
      const first = await client.get(`/console/purchases?phone=${term}&state=failed`);
      expect(first.status).toBe(200);
      expect(first.body).not.toContain(term);
      expect(await ids(first.body)).toHaveLength(50);
      const older = /<p class="pager"><a href="([^"]+)">/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
      expect(older, "a pager link").toBeDefined();
      const second = await client.get(older!);
      expect(second.status).toBe(200);
      expect(second.body).not.toContain("give the last 3 to 11 digits");
      expect(second.body).not.toContain(term);
      const rest = await ids(second.body);
      expect(rest).toHaveLength(10);
      expect(Math.max(...rest)).toBeLessThan(Math.min(...(await ids(first.body))));
      // The search form sent again as drawn (the field left as it is) searches the same number.
      const fields = Object.fromEntries(
        [...first.body.matchAll(/<input type="hidden" name="((?:q|phone)_kept)" value="([^"]*)">/g)].map(
          (m) => [m[1]!, m[2]!],
        ),
      );
      const again = await client.get(
        `/console/purchases?${new URLSearchParams({ ...fields, phone: "", state: "failed" })}`,
      );
      expect(await ids(again.body)).toEqual(await ids(first.body));
      // Another session cannot read the kept number.
      const other = new Client(f.base);
      await other.login("vic");
      const stolen = await other.get(older!);
      expect(stolen.body).toContain("search again");
      expect(await ids(stolen.body)).toHaveLength(0);
    }
  });

  it("refuses an action on a plan or job whose name in the address holds a NUL, with 400 and no 500", async () => {
    const client = new Client(f.base);
    await client.login("ada");
    const page = await client.get(`/console/plans/${encodeURIComponent(f.planId)}`);
    const csrf = formFields(page.body, "reject")._csrf!;
    for (const [i, path] of [
      "/console/plans/%00/approve",
      "/console/plans/a%00/reject",
      "/console/jobs/%00/suspend",
      "/console/jobs/promo%00/resume",
    ].entries()) {
      const answer = await client.post(path, {
        _csrf: csrf,
        _form: `nul-in-the-address-${i}-form`,
        reason: "x",
      });
      expect(answer.status, path).toBe(400);
      expect(answer.body, path).toContain("the address holds a control character");
    }
  });

  it("lists a plan that ended cancelled (every purchase it held cancelled by hand) among the ended plans", async () => {
    await f.ledger.query(
      sql`insert into saved_plans (id, kind, origin, author, status, digest, document, total, items,
            approvals_required, created_at, expires_at, ended_at, reason)
          values ('p_cancelledplan1', 'purchases', 'held', 'daemon', 'cancelled', 'sha256:x', '{"items":[]}'::json,
            305, 1, 1, now(), now() + interval '1 day', now(), 'every purchase it held was cancelled by hand')`,
    );
    const client = new Client(f.base);
    await client.login("vic");
    const ended = await client.get("/console/plans?status=ended");
    expect(ended.status).toBe(200);
    expect(ended.body).toContain("p_cancelledplan1");
  });

  it("answers a viewer's hostile query strings with a page or a refusal, never a 500", async () => {
    const client = new Client(f.base);
    await client.login("vic");
    // A status named like an inherited member is not a group: the pending plans.
    for (const status of ["constructor", "__proto__", "toString"]) {
      const answer = await client.get(`/console/plans?status=${status}`);
      expect(answer.status, status).toBe(200);
      expect(answer.body).toContain("Pending approval");
    }
    // A pager position in a year the ledger cannot take is no position: the first page.
    const negative = await client.get("/console/plans?before_at=-000001-01-01T00:00:00Z&before_id=x");
    expect(negative.status).toBe(200);
    expect(negative.body).toContain("Pending approval");
    // The last day of year 9999: the day after it has no four-digit year.
    const far = await client.get("/console/purchases?from=9999-12-20&to=9999-12-31");
    expect(far.status).toBe(200);
    expect(far.body).toContain("to must be a day like");
    // A NUL, which the ledger cannot take, in a search or a form token.
    for (const path of [
      "/console/purchases?q=%00",
      "/console/purchases?job=a%00",
      "/console/jobs?form=%00",
      `/console/purchases/${f.inDoubtId}?form=%00`,
      `/console/plans?before_at=2026-01-01T00:00:00Z&before_id=%00`,
    ]) {
      const answer = await client.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    }
  });

  it("resolves a purchase whose provider reference holds a phone number without writing the masked reference", async () => {
    // An unverified purchase (bought, not yet confirmed) whose provider's reference carries the recipient's number.
    const reference = "MTN-08031239876-55";
    await f.ledger.query(
      sql`update purchases set state = 'unverified', reference = ${reference}, updated_at = now() where id = ${f.inDoubtId}`,
    );
    const client = new Client(f.base);
    await client.login("olu");
    const drawn = (await client.get(`/console/purchases/${f.inDoubtId}`)).body;
    expect(drawn).not.toContain("08031239876");
    const done = await client.post(`/console/purchases/${f.inDoubtId}/resolve`, {
      ...formFields(drawn, "resolve"),
      reference:
        /id="resolve-reference" name="reference" maxlength="200" value="([^"]*)"/.exec(drawn)?.[1] ?? "",
      as: "succeeded",
      reason: "the provider's statement shows it",
    });
    expect(done.status, done.body).toBe(303);
    const [row] = await f.ledger.query<{ state: string; reference: string }>(
      sql`select state, reference from purchases where id = ${f.inDoubtId}`,
    );
    expect(row).toEqual({ state: "succeeded", reference });
  });

  // Last: the wrong passwords count against this source too.
  it("throttles wrong passwords sent all at once as it does one after another", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => new Client(f.base).login("olu", `wrong at once ${i}`)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    const right = await new Client(f.base).login("olu");
    expect(right.status).toBe(429);
  });

  it("counts every plan awaiting approval and every failed notification on the home page, past the 25 it lists", async () => {
    // The cards counted the items the page lists: at most 25 open plans, those expiring first — 30 approved plans
    // expiring before 27 pending ones made "plans awaiting approval" 0 — and at most 25 failed notifications.
    await f.ledger.query(
      sql`insert into saved_plans (id, kind, origin, author, status, digest, document, total, items,
            approvals_required, created_at, expires_at)
          select 'p_many_' || s || '_' || g, 'purchases', 'saved', 'bola', s, 'sha256:x', '{"items":[]}'::json,
            305, 1, 1, now(), now() + (case when s = 'approved' then 20 else 22 end) * interval '1 hour' + g * interval '1 second'
          from generate_series(1, 30) g, unnest(array['approved', 'pending_approval']) s
          where s = 'approved' or g <= 27`,
    );
    await f.ledger.query(
      sql`insert into notification_deliveries (channel, trigger, kind, event_ids, message, status, attempts,
            last_error, first_event_at, created_at)
          select 'ops-slack', 'in_doubt', 'single', '{}', '{}'::jsonb, 'failed', 9, 'the receiver answered 503',
            now(), now() - g * interval '1 minute'
          from generate_series(1, 30) g`,
    );
    const [pending] = await f.ledger.query<{ n: number }>(
      sql`select count(*)::int as n from saved_plans where status = 'pending_approval'`,
    );
    const [failed] = await f.ledger.query<{ n: number }>(
      sql`select count(*)::int as n from notification_deliveries where status = 'failed'`,
    );
    const client = new Client(f.base);
    expect((await client.login("vic")).status).toBe(303);
    const home = await client.get("/console/");
    expect(home.status).toBe(200);
    const card = (label: string) =>
      new RegExp(`<div class="card"[^>]*><b>(\\d+)</b><span>${label}</span>`).exec(home.body)?.[1];
    expect(card("plans awaiting approval")).toBe(String(pending!.n));
    expect(card("failed notifications \\(7 days\\)")).toBe(String(failed!.n));
    expect(home.body).toContain('href="/console/plans?status=pending"');
    expect(home.body).toContain(`${failed!.n - 25} more: <code>topsync notify list --status failed</code>`);
  });

  it("lists the plans awaiting approval and those about to expire before approved plans with time left", async () => {
    // The list under "Plans awaiting approval or about to expire" was every open plan, soonest to expire first, 25
    // of them: approved plans with most of a day left filled it, and the plans waiting for an approval were not on
    // the page at all. They come first now (with the approved ones about to expire), then the other approved ones.
    await f.ledger.query(
      sql`insert into saved_plans (id, kind, origin, author, status, digest, document, total, items,
            approvals_required, created_at, expires_at)
          select 'p_listed_' || s || '_' || g, 'purchases', 'saved', 'bola', s, 'sha256:x', '{"items":[]}'::json,
            305, 1, 1, now(), now() + (case s when 'approved' then 19 else 21 end) * interval '1 hour' + g * interval '1 second'
          from generate_series(1, 30) g, unnest(array['approved', 'pending_approval']) s
          where s = 'approved' or g = 1
          union all
          select 'p_listed_expiring', 'purchases', 'saved', 'bola', 'approved', 'sha256:x', '{"items":[]}'::json,
            305, 1, 1, now(), now() + interval '30 minutes'`,
    );
    const client = new Client(f.base);
    expect((await client.login("vic")).status).toBe(303);
    const home = await client.get("/console/");
    const section = home.body.slice(
      home.body.indexOf('<section id="plans">'),
      home.body.indexOf('<section id="websites">'),
    );
    const at = (id: string) => section.indexOf(`id="plan-${id}"`);
    expect(at("p_listed_pending_approval_1")).toBeGreaterThan(0);
    expect(at("p_listed_expiring")).toBeGreaterThan(0);
    const approved = at("p_listed_approved_1");
    if (approved >= 0) {
      expect(approved).toBeGreaterThan(at("p_listed_pending_approval_1"));
      expect(approved).toBeGreaterThan(at("p_listed_expiring"));
    }
  });

  it("pages through plans made in the same millisecond without skipping any", async () => {
    // The pager carried the last plan's time to the millisecond while the ledger keeps microseconds: the plans made
    // within the millisecond of the last one listed were after it on no page at all.
    await f.ledger.query(
      sql`insert into saved_plans (id, kind, origin, author, status, digest, document, total, items,
            approvals_required, created_at, expires_at, ended_at, reason)
          select 'p_paged_' || lpad(g::text, 3, '0'), 'purchases', 'saved', 'bola', 'expired', 'sha256:x',
            '{"items":[]}'::json, 305, 1, 1, timestamptz '2026-11-20 10:00:00.123456+00', now(), now(), 'test'
          from generate_series(1, 60) g`,
    );
    const client = new Client(f.base);
    expect((await client.login("vic")).status).toBe(303);
    const seen = new Set<string>();
    let path: string | undefined = "/console/plans?status=ended";
    for (let pages = 0; path && pages < 10; pages++) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      for (const match of page.body.matchAll(/>(p_paged_\d{3})</g)) seen.add(match[1]!);
      const older = /<p class="pager"><a href="([^"]+)">/.exec(page.body)?.[1];
      path = older?.replaceAll("&amp;", "&");
    }
    expect(seen.size).toBe(60);
  });

  it("shows the report's period it was asked for in its form, one of the list or not", async () => {
    // since=48h drew the 48 hours, but the form's list had no 48h and showed 24h chosen: pressing Show changed the
    // period to one the page had not said.
    const client = new Client(f.base);
    expect((await client.login("vic")).status).toBe(303);
    const asked = await client.get("/console/report?since=48h");
    expect(asked.body).toContain("<option selected>48h</option>");
    expect(asked.body.match(/<option selected>/g)).toHaveLength(1);
    const listed = await client.get("/console/report?since=30d");
    expect(listed.body).toContain("<option selected>30d</option>");
    expect(listed.body).not.toContain("48h");
    const refused = await client.get("/console/report?since=0d");
    expect(refused.body).toContain("since must be a duration like 24h or 7d; showing 7d");
    expect(refused.body).toContain("<option selected>7d</option>");
  });
});

describe("console settings", { timeout: 60_000 }, () => {
  it("refuses a config that enables the console without users (exit 78)", async () => {
    const { writeFileSync, mkdtempSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const file = join(mkdtempSync(join(tmpdir(), "topsync-console-")), "config.yaml");
    writeFileSync(
      file,
      "reseller: {base_url: 'http://127.0.0.1:1', api_key: k}\nanalytics: {base_url: 'http://127.0.0.1:1', api_key: k}\nconsole: {enabled: true}\n",
    );
    const checked = await runCli(["-c", file, "config", "check"]);
    expect(checked.code).toBe(78);
    expect(checked.stderr).toContain("console.users");
  });
});
