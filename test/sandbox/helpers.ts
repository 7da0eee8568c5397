// Small HTTP helpers for the sandbox tests: authenticated calls to either service over real HTTP.
import type { Sandbox } from "../../src/sandbox/index.js";

export interface CallOptions {
  json?: unknown;
  form?: Record<string, string>;
  /** Overrides the bearer key; null sends no Authorization header. */
  key?: string | null;
  signal?: AbortSignal;
}

async function call(base: string, defaultKey: string, method: string, path: string, options: CallOptions) {
  const headers: Record<string, string> = { accept: "application/json" };
  const key = options.key === undefined ? defaultKey : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  }
  return fetch(`${base}${path}`, { method, headers, body, signal: options.signal });
}

export function reseller(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}) {
  return call(sandbox.resellerUrl, sandbox.apiKey, method, path, options);
}

export function analytics(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}) {
  return call(sandbox.analyticsUrl, sandbox.analyticsApiKey, method, path, options);
}

/** A 1GB MTN corporate gifting purchase (plan 102, 305.00) for an MTN number. */
export const MTN_1GB = { network_id: "1", plan_id: "102", phone_number: "08031234567" };

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies loosely and assert on exact values.
export async function json(response: Response): Promise<any> {
  return response.json();
}

export async function buy(sandbox: Sandbox, body: Record<string, unknown> = MTN_1GB) {
  const response = await reseller(sandbox, "POST", "/public/api/data", { json: body });
  return { status: response.status, body: await json(response) };
}

export async function verify(sandbox: Sandbox, reference: string) {
  const response = await reseller(sandbox, "GET", `/public/api/transaction/${reference}`);
  return { status: response.status, body: await json(response) };
}
