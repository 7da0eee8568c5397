// Builders for the website reconciler tests: declared items and remote records as plain objects, a config
// pointed at a sandbox, a pass with fast retries, and a small HTTP proxy that can spoil chosen answers.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RemoteWebsite } from "../../src/analytics/schemas.js";
import { type Config, configSchema, normaliseDomain, type WebsiteItem } from "../../src/config/index.js";
import type { Db } from "../../src/db/client.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { type ReconcileDeps, reconcile, reconcileDeps } from "../../src/websites/reconcile.js";
import { analyticsFor, recordingClock } from "../helpers/clients.js";

export const KEY = "0".repeat(64);

/** A declared website as config resolves it (defaults: private, email off, exclude_bots on, no lists). */
export function item(domain: string, settings: Partial<Omit<WebsiteItem, "domain">> = {}): WebsiteItem {
  return {
    domain: normaliseDomain(domain),
    declared_domain: domain,
    privacy: 1,
    password: undefined,
    email: 0,
    exclude_bots: 1,
    exclude_params: [],
    exclude_ips: [],
    ...settings,
  };
}

export function remote(id: number, domain: string, settings: Partial<RemoteWebsite> = {}): RemoteWebsite {
  return {
    id,
    domain,
    privacy: 1,
    email: 0,
    password: false,
    exclude_bots: 1,
    exclude_ips: [],
    created_at: null,
    updated_at: null,
    ...settings,
  };
}

export interface Target {
  analyticsUrl: string;
  analyticsApiKey: string;
}

/** A validated config for the sandbox (or a proxy in front of it); `websites` as a user writes it. */
export function configFor(target: Target, websites: Record<string, unknown> = {}, databaseUrl = ""): Config {
  return configSchema.parse({
    reseller: { base_url: "http://127.0.0.1:9", api_key: "unused-reseller-key" },
    analytics: {
      base_url: target.analyticsUrl,
      api_key: target.analyticsApiKey,
      concurrency: 4,
      rate_limit: 10_000,
      retry: { max_attempts: 3, base_delay: "5ms", max_delay: "20ms" },
    },
    database: { url: databaseUrl },
    websites,
  });
}

/** Reconcile dependencies for a config, with the test client and a clock that never really waits. */
export function depsFor(
  target: Target,
  config: Config,
  db: Db,
): ReconcileDeps & { slept: number[]; close(): Promise<void> } {
  const clock = recordingClock();
  const client = analyticsFor(target, { clock });
  const deps = reconcileDeps(config, client, db, { clock, random: () => 0.5 });
  return Object.assign(deps, { slept: clock.slept, close: () => client.close() });
}

/** The mutating requests the sandbox received, as "METHOD path". */
export function mutations(sandbox: Sandbox): string[] {
  return sandbox.websiteMutations().map((m) => `${m.method} ${m.path}`);
}

/** Changes a website behind topsync's back, as a person in the service's UI would. */
export async function changeRemotely(
  sandbox: Sandbox,
  method: "PUT" | "DELETE",
  id: number,
  form: Record<string, string> = {},
): Promise<void> {
  const response = await fetch(`${sandbox.analyticsUrl}/api/v1/websites/${id}`, {
    method,
    headers: {
      authorization: `Bearer ${sandbox.analyticsApiKey}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: new URLSearchParams(form).toString(),
  });
  if (!response.ok) throw new Error(`${method} ${id}: HTTP ${response.status}`);
}

export function idOf(sandbox: Sandbox, domain: string): number {
  const found = sandbox.websites().find((w) => w.domain === domain);
  if (!found) throw new Error(`no website ${domain} in the sandbox`);
  return found.id;
}

export interface Spoiled {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ProxyHooks {
  /** Answer instead of the sandbox (the request never reaches it). */
  reply?: (method: string, url: URL, fields: Record<string, string>) => Spoiled | undefined;
  /** Change a JSON answer of the sandbox before it is passed on. */
  rewrite?: (method: string, url: URL, body: unknown) => unknown;
  /** Awaited once the sandbox has answered and before the answer is passed on: the service changes meanwhile. */
  meanwhile?: (method: string, url: URL) => Promise<void>;
}

export interface AnalyticsProxy extends Target {
  hooks: ProxyHooks;
  close(): Promise<void>;
}

/** A loopback HTTP proxy in front of the sandbox's analytics service. */
export async function startProxy(sandbox: Sandbox, hooks: ProxyHooks = {}): Promise<AnalyticsProxy> {
  const proxy = { hooks } as AnalyticsProxy;
  const server: Server = createServer((req, res) => {
    forward(sandbox, proxy.hooks, req).then(
      (answer) => {
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(JSON.stringify(answer.body));
      },
      (error: unknown) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  proxy.analyticsUrl = `http://127.0.0.1:${port}`;
  proxy.analyticsApiKey = sandbox.analyticsApiKey;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

async function forward(sandbox: Sandbox, hooks: ProxyHooks, req: IncomingMessage): Promise<Spoiled> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", sandbox.analyticsUrl);
  const spoiled = hooks.reply?.(method, url, Object.fromEntries(new URLSearchParams(text)));
  if (spoiled) return spoiled;
  const headers: Record<string, string> = {};
  for (const name of ["authorization", "content-type", "accept"]) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const response = await fetch(url, { method, headers, body: text === "" ? undefined : text });
  const body: unknown = await response.json();
  await hooks.meanwhile?.(method, url);
  return { status: response.status, body: hooks.rewrite ? hooks.rewrite(method, url, body) : body };
}

/** One applying pass that declares `domains` (topsync creates what the sandbox lacks and records it in `db`). */
export async function applyWebsites(sandbox: Sandbox, db: Db, domains: string[]): Promise<void> {
  const deps = depsFor(sandbox, configFor(sandbox, { items: domains.map((domain) => ({ domain })) }), db);
  await reconcile(deps, { mode: "apply" }).finally(() => deps.close());
}

/**
 * 100 websites of others, then owned.example.com and kept.example.com created by topsync (recorded in `db`) in that
 * order; a proxy in front of the sandbox where, while page 1 travels, a person deletes a website on page 1 and adds
 * one: owned.example.com, first on page 2 a moment ago, is then last on page 1, already read. The total and
 * last_page stay as they were, so the listing looks complete. The shift happens once, on the first listing.
 */
export async function shiftedListing(sandbox: Sandbox, db: Db) {
  sandbox.seedWebsites(Array.from({ length: 100 }, (_, i) => ({ domain: `bulk-${i}.example.net` })));
  await applyWebsites(sandbox, db, ["owned.example.com"]);
  await applyWebsites(sandbox, db, ["owned.example.com", "kept.example.com"]);
  let changed = false;
  const proxy = await startProxy(sandbox, {
    meanwhile: async (method, url) => {
      if (changed || method !== "GET" || url.searchParams.get("page") !== "1") return;
      changed = true;
      await changeRemotely(sandbox, "DELETE", idOf(sandbox, "bulk-0.example.net"));
      sandbox.seedWebsites([{ domain: "late.example.org" }]);
    },
  });
  return { proxy, owned: idOf(sandbox, "owned.example.com"), changed: () => changed };
}

/** A proxy in front of the sandbox that answers every look-up of a website by id 503: no absence is confirmed. */
export function failingLookups(sandbox: Sandbox): Promise<AnalyticsProxy> {
  return startProxy(sandbox, {
    reply: (method, url) =>
      method === "GET" && /\/websites\/\d+$/.test(url.pathname)
        ? { status: 503, body: { message: "Service Unavailable" } }
        : undefined,
  });
}
