// The shape of one sandbox endpoint: how a request is matched to it, and what its handler gets and gives back.
import type { EndpointName } from "./fault-config.js";
import type { Fields } from "./http-util.js";
import type { SandboxState } from "./state.js";

export interface Call {
  state: SandboxState;
  /** Capture groups of the route's path pattern. */
  params: string[];
  query: URLSearchParams;
  fields: Fields;
  /** "http://127.0.0.1:40123", for the URLs a page of results links to. */
  origin: string;
  path: string;
}

export interface Reply {
  status: number;
  body: unknown;
  /** The body's JSON text when it must differ from JSON.stringify(body) (a number no double holds). */
  text?: string;
  headers?: Record<string, string>;
}

/** A handler runs synchronously, so its check-then-change on the state cannot interleave with another. */
export interface Route {
  method: string;
  pattern: RegExp;
  endpoint: EndpointName;
  handle(call: Call): Reply;
}

export type RouteMatch =
  | { kind: "found"; route: Route; params: string[] }
  | { kind: "method-not-allowed" }
  | { kind: "not-found" };

export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  let pathKnown = false;
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (route.method === method) return { kind: "found", route, params: match.slice(1) };
    pathKnown = true;
  }
  return pathKnown ? { kind: "method-not-allowed" } : { kind: "not-found" };
}
