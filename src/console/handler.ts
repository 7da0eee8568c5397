// The console on the daemon's HTTP server: routes under `console.path`, sessions, and the checks every request
// passes in one place — a session for every page and action (anonymous requests see the login page and nothing
// else), the Origin and the session's CSRF token on every POST, the role (access.ts) for every action, a one-time
// form token so a form submitted twice acts once. Every answer carries a strict Content-Security-Policy,
// X-Frame-Options DENY, Referrer-Policy same-origin (no-referrer would make browsers send `Origin: null` on the
// console's own forms) and no-store. Bodies are small forms: at most 16 KiB, within the
// webhook receiver's body deadline.

import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseCookies, serialize as serializeCookie } from "cookie";
import { isLoopbackHost } from "../config/console.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/client.js";
import { DataError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { ownEntry } from "../own-entry.js";
import { findPurchase } from "../purchases/ledger-read.js";
import type { ResellerClient } from "../reseller/client.js";
import type { WebsiteApi } from "../websites/reconcile.js";
import { allowed, type ConsoleAction, type ConsoleUserView, refusal } from "./access.js";
import { jobAction, MAX_REASON, planDecision, purchaseAction, purchaseChange } from "./actions.js";
import { html } from "./html.js";
import { CONSOLE_CSS, page } from "./layout.js";
import { loginPage } from "./login.js";
import { homePage } from "./page-home.js";
import { jobsPage, reportPage, websitesPage } from "./page-others.js";
import { planPage, plansPage } from "./page-plans.js";
import { purchasePage, purchasesPage } from "./page-purchases.js";
import { hashPassword, verifyPassword } from "./password.js";
import {
  createSession,
  credentialOf,
  endSession,
  findSession,
  formOutcome,
  recordFormOutcome,
  sameToken,
  spendFormToken,
} from "./sessions.js";
import { type SigningKeys, signingOf } from "./settings.js";
import { LoginThrottle } from "./throttle.js";
import { type ConsoleView, notice, render } from "./view.js";

export const MAX_FORM_BYTES = 16 * 1024;
const COOKIE = "topsync_console";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
};

export interface ConsoleDeps {
  config: Config;
  /** The ledger once connected; requests before that get 503. */
  database: () => Database | undefined;
  logger: Logger;
  now?: () => number;
  signingKeys?: SigningKeys;
  reseller: () => Promise<ResellerClient>;
  analytics: () => Promise<WebsiteApi>;
  /** Counts an action's outcome (metrics). */
  onAction?: (action: string, outcome: "done" | "refused") => void;
}

export interface ConsoleHandler {
  owns(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An Origin naming this machine's loopback over http, on the port the request arrived on. */
function loopbackOrigin(origin: string, port: number | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || url.origin !== origin || !isLoopbackHost(url.hostname)) return false;
  return port !== undefined && Number(url.port || "80") === port;
}

export function createConsole(deps: ConsoleDeps): ConsoleHandler {
  const section = deps.config.console;
  const base = section.path.replace(/\/+$/, "");
  const now = deps.now ?? Date.now;
  const secure = section.public_url?.startsWith("https:") ?? false;
  const publicOrigin = section.public_url ? new URL(section.public_url).origin : undefined;
  const throttle = new LoginThrottle(
    {
      perUser: section.login_attempts,
      perSource: section.login_attempts_per_source,
      windowMs: section.login_window,
    },
    now,
    Object.keys(section.users),
  );
  /** Checked for a name that is not a user, so a wrong name costs what a wrong password costs. */
  let decoy: Promise<string> | undefined;

  const owns = (pathname: string) => pathname === base || pathname.startsWith(`${base}/`);

  function send(
    response: ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ) {
    if (response.headersSent || response.destroyed) return;
    response.writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      ...SECURITY_HEADERS,
      ...headers,
    });
    response.end(body);
  }

  function redirect(response: ServerResponse, to: string, headers: Record<string, string> = {}) {
    send(response, 303, "", { location: to, ...headers });
  }

  function cookie(value: string, maxAgeSeconds: number): string {
    return serializeCookie(COOKIE, value, {
      httpOnly: true,
      sameSite: "strict",
      secure,
      path: `${base}/`,
      maxAge: maxAgeSeconds,
    });
  }

  // Never the Host header: the client writes it, and a page on a rebound DNS name sends a Host and an Origin that
  // agree. With public_url, its origin; without (config allows that only on a loopback server.host), a page opened
  // at a loopback address of the port this request came in on.
  function checkOrigin(request: IncomingMessage): void {
    const origin = request.headers.origin;
    const ok = origin
      ? publicOrigin
        ? origin === publicOrigin
        : loopbackOrigin(origin, request.socket.localPort)
      : false;
    if (!ok)
      throw new HttpRefusal(
        403,
        publicOrigin
          ? "refused: a change must come from a console page (its Origin is not console.public_url's)"
          : "refused: a change must come from a console page opened at a loopback address of this port (http://127.0.0.1, localhost or [::1]); to reach the console by another address, set console.public_url to it",
      );
  }

  async function session(request: IncomingMessage, db: Database) {
    const token = parseCookies(request.headers.cookie ?? "")[COOKIE];
    if (!token) return undefined;
    const found = await findSession(db.db, token, new Date(now()));
    if (!found) return undefined;
    const configured = ownEntry(section.users, found.user);
    if (!configured) return undefined; // a user taken out of config is logged out
    // So is one whose password changed since the session was made (and a session from before sessions knew it).
    if (found.credential !== credentialOf(configured.password_hash)) return undefined;
    return { token, csrf: found.csrf, user: { name: found.user, role: configured.role } as ConsoleUserView };
  }

  async function login(request: IncomingMessage, response: ServerResponse, db: Database): Promise<void> {
    checkOrigin(request);
    const form = await readForm(request, deps.config.webhooks.body_timeout);
    const name = (form.get("user") ?? "").trim().slice(0, 64);
    const password = (form.get("password") ?? "").slice(0, 1024);
    const source = request.socket.remoteAddress ?? "";
    const wait = throttle.wait(name, source);
    if (wait > 0) {
      deps.logger.warn({ user: name }, "console: login refused, too many failed logins");
      send(
        response,
        429,
        loginPage(
          base,
          section.read_only,
          `Too many failed logins: try again in ${Math.ceil(wait / 60_000)} min.`,
        ),
        { "retry-after": String(Math.ceil(wait / 1000)) },
      );
      return;
    }
    // The config's own users only: a login as "__proto__" found what every object inherits, and was checked
    // against the decoy hash, whose password is in this file.
    const user = ownEntry(section.users, name);
    const attempt = throttle.attempt(name, source);
    decoy ??= hashPassword("not a password anyone has");
    const good = await verifyPassword(password, user?.password_hash ?? (await decoy));
    if (!user || !good) {
      deps.logger.warn({ user: name }, "console: a login failed");
      send(response, 401, loginPage(base, section.read_only, "Wrong name or password."));
      return;
    }
    attempt.release();
    throttle.succeeded(name, source);
    const created = await createSession(
      db.db,
      { name, passwordHash: user.password_hash },
      new Date(now()),
      section.session_ttl,
    );
    deps.logger.info({ user: name }, `console: ${name} logged in`);
    redirect(response, `${base}/`, {
      "set-cookie": cookie(created.token, Math.floor(section.session_ttl / 1000)),
    });
  }

  async function route(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.slice(base.length) || "/";
    const method = request.method ?? "GET";
    if (path === "/console.css" && (method === "GET" || method === "HEAD")) {
      send(response, 200, CONSOLE_CSS, { "content-type": "text/css; charset=utf-8" });
      return;
    }
    const database = deps.database();
    if (!database) throw new HttpRefusal(503, "the console is starting: the ledger is not connected yet");
    if (path === "/login") {
      if (method === "POST") return login(request, response, database);
      send(response, 200, loginPage(base, section.read_only));
      return;
    }
    const found = await session(request, database);
    if (method !== "GET" && method !== "HEAD") {
      if (method !== "POST") throw new HttpRefusal(405, "method not allowed");
      checkOrigin(request);
      if (!found) throw new HttpRefusal(403, "refused: log in first");
      const form = await readForm(request, deps.config.webhooks.body_timeout);
      if (!sameToken(form.get("_csrf") ?? "", found.csrf))
        throw new HttpRefusal(403, "refused: the form's CSRF token is missing or not this session's");
      if (path === "/logout") {
        await endSession(database.db, found.token);
        redirect(response, `${base}/login`, { "set-cookie": cookie("", 0) });
        return;
      }
      const view = viewOf(database, found);
      return act(view, path, form, response);
    }
    if (!found) {
      redirect(response, `${base}/login`);
      return;
    }
    // The ledger cannot take a NUL in a query (a search, a form token): a %00 failed the page with 500.
    for (const value of url.searchParams.values())
      if (value.includes("\u0000")) throw new HttpRefusal(400, "a query parameter holds a NUL character");
    const view = viewOf(database, found);
    const body = await pageFor(view, path, url.searchParams);
    if (body === undefined) throw new HttpRefusal(404, "not found");
    send(response, 200, body);
  }

  function viewOf(database: Database, found: { csrf: string; user: ConsoleUserView }): ConsoleView {
    return {
      config: deps.config,
      database,
      logger: deps.logger,
      base,
      user: found.user,
      csrf: found.csrf,
      now: new Date(now()),
      ...(deps.signingKeys ? signingOf(deps.signingKeys, found.user.name) : {}),
    };
  }

  async function pageFor(
    view: ConsoleView,
    path: string,
    params: URLSearchParams,
  ): Promise<string | undefined> {
    if (path === "/") return homePage(view);
    if (path === "/purchases") return purchasesPage(view, params);
    if (path === "/plans") return plansPage(view, params);
    if (path === "/websites") return websitesPage(view);
    if (path === "/report") return reportPage(view, params);
    const token = params.get("form");
    const outcome = token ? await formOutcome(view.database.db, token, view.user.name) : undefined;
    const message = outcome ? notice(outcome.startsWith("done") ? "ok" : "error", outcome) : undefined;
    if (path === "/jobs") return jobsPage(view, message);
    const purchase = /^\/purchases\/(\d{1,15})$/.exec(path);
    if (purchase) {
      const row = await findRow(view, purchase[1]!);
      return row ? purchasePage(view, row, message) : undefined;
    }
    const plan = /^\/plans\/([^/]{1,200})$/.exec(path);
    if (plan) return planPage(view, safeDecode(plan[1]!), deps, message);
    return undefined;
  }

  async function findRow(view: ConsoleView, id: string) {
    try {
      return await findPurchase(view.database.db, id);
    } catch (error) {
      if (error instanceof DataError) return undefined;
      throw error;
    }
  }

  async function act(view: ConsoleView, path: string, form: URLSearchParams, response: ServerResponse) {
    const purchase = /^\/purchases\/(\d{1,15})\/(resolve|requeue|cancel)$/.exec(path);
    const plan = /^\/plans\/([^/]{1,200})\/(approve|reject)$/.exec(path);
    const job = /^\/jobs\/([^/]{1,200})\/(suspend|resume)$/.exec(path);
    if (!purchase && !plan && !job) throw new HttpRefusal(404, "not found");
    const action = (purchase?.[2] ?? plan?.[2] ?? job?.[2]) as ConsoleAction;
    const subject = purchase
      ? `purchase:${purchase[1]}`
      : plan
        ? `plan:${safeDecode(plan[1]!)}`
        : `job:${safeDecode(job![1]!)}`;
    const refuse = (status: number, message: string) => {
      deps.onAction?.(action, "refused");
      deps.logger.warn({ user: view.user.name, action, subject }, `console: ${action} refused: ${message}`);
      send(
        response,
        status,
        render(
          view,
          undefined,
          "Refused",
          html`<h1>Refused</h1>${notice("error", message)}<p><a href="${backTo(view, subject)}">Back</a></p>`,
        ),
      );
    };
    if (!allowed(view.config.console, view.user, action))
      return refuse(403, refusal(view.config.console, view.user, action));
    const reason = (form.get("reason") ?? "").trim();
    if (!reason) return refuse(400, "a reason is required: it goes into the ledger with the action");
    if (reason.length > MAX_REASON) return refuse(400, `the reason is over ${MAX_REASON} characters`);
    // Text the ledger keeps as written: no control characters but line breaks and tabs (a NUL, which a form can
    // send as %00, could not even be stored).
    // The plan or job named in the address too: a %00 there went to the ledger with the form token, which failed
    // the action with 500.
    for (const [name, value] of [
      ["reason", reason],
      ["reference", form.get("reference") ?? ""],
      ["address", subject],
    ] as const)
      if (CONTROL.test(value)) return refuse(400, `the ${name} holds a control character`);
    const token = form.get("_form") ?? "";
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token))
      return refuse(400, "the form has no form token: reload the page");
    const db = view.database.db;
    let row: Awaited<ReturnType<typeof findRow>>;
    if (purchase) {
      row = await findRow(view, purchase[1]!);
      if (!row) return refuse(404, `no purchase ${purchase[1]}`);
      const changed = await purchaseChange(view, row, form.get("_version") ?? "");
      if (changed) {
        if ((await formOutcome(db, token, view.user.name)) !== undefined)
          return done(view, response, subject, token);
        return refuse(409, changed);
      }
    }
    if (!(await spendFormToken(db, { token, user: view.user.name, action, subject }, view.now)))
      return done(view, response, subject, token);
    const result = purchase
      ? await purchaseAction(view, row!, action as "resolve" | "requeue" | "cancel", form, reason)
      : plan
        ? await planDecision(view, safeDecode(plan[1]!), action as "approve" | "reject", reason)
        : await jobAction(view, safeDecode(job![1]!), action as "suspend" | "resume", reason);
    await recordFormOutcome(db, token, `${result.ok ? "done" : "refused"}: ${result.message}`);
    deps.onAction?.(action, result.ok ? "done" : "refused");
    deps.logger.info(
      { user: view.user.name, action, subject, ok: result.ok },
      `console: ${view.user.name} ${action} ${subject}: ${result.message}`,
    );
    if (!result.ok) return refuse(409, result.message);
    redirect(response, `${backTo(view, subject)}?form=${token}`);
  }

  /** A form submitted again: nothing more is done; the page says what the first submit came to. */
  async function done(view: ConsoleView, response: ServerResponse, subject: string, token: string) {
    const outcome = await formOutcome(view.database.db, token, view.user.name);
    deps.logger.info(
      { user: view.user.name, subject },
      "console: a form submitted again; nothing more was done",
    );
    send(
      response,
      409,
      render(
        view,
        undefined,
        "Submitted already",
        html`<h1>Submitted already</h1>${notice("info", `This form was submitted already, so nothing more was done. The first submit: ${outcome ?? "in progress"}.`)}<p><a href="${backTo(view, subject)}">Back</a></p>`,
      ),
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://localhost");
    } catch {
      send(response, 400, "bad request");
      return;
    }
    try {
      if (url.pathname === base) {
        redirect(response, `${base}/`);
        return;
      }
      await route(request, response, url);
    } catch (error) {
      if (error instanceof HttpRefusal) {
        response.setHeader("connection", "close");
        send(
          response,
          error.status,
          page(
            { base, readOnly: section.read_only },
            "Refused",
            html`<h1>${error.status === 404 ? "Not found" : "Refused"}</h1>${notice("error", error.message)}<p><a href="${base}/">Back to the console</a></p>`,
          ),
        );
        return;
      }
      deps.logger.warn({ err: error }, `console: ${request.method} failed: ${(error as Error).message}`);
      send(
        response,
        500,
        page(
          { base, readOnly: section.read_only },
          "Error",
          html`<h1>Something failed</h1><p>The error is in the daemon's log.</p>`,
        ),
      );
    }
  }

  return { owns, handle };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function backTo(view: ConsoleView, subject: string): string {
  const [kind, id] = subject.split(/:(.*)/s);
  if (kind === "purchase") return `${view.base}/purchases/${id}`;
  if (kind === "job") return `${view.base}/jobs`;
  return `${view.base}/plans/${encodeURIComponent(id ?? "")}`;
}

/** Control characters but tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters in a form is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A urlencoded form of at most 16 KiB, complete within `deadlineMs`. */
function readForm(request: IncomingMessage, deadlineMs: number): Promise<URLSearchParams> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_FORM_BYTES)
    return Promise.reject(new HttpRefusal(413, "the form is too large"));
  const type = String(request.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return Promise.reject(new HttpRefusal(415, "a console form is application/x-www-form-urlencoded"));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: HttpRefusal) => {
      clearTimeout(timer);
      request.off("data", onData).off("end", onEnd).off("error", onError);
      if (error) {
        request.pause();
        reject(error);
      } else resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) finish(new HttpRefusal(413, "the form is too large"));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new HttpRefusal(400, "the form did not arrive whole"));
    const timer = setTimeout(
      () => finish(new HttpRefusal(408, "the form did not arrive in time")),
      deadlineMs,
    );
    request.on("data", onData).on("end", onEnd).on("error", onError);
  });
}
