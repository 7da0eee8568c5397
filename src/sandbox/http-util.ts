// Low-level HTTP helpers for the sandbox servers: reading and parsing bodies, writing JSON, abortable sleeps.
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";

/** A parsed request body: JSON values, or strings from a form-encoded body. */
export type Fields = Record<string, unknown>;

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RangeError("request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** JSON when the content type says so, form-encoded otherwise; an unreadable body reads as no fields. */
export function parseFields(contentType: string | undefined, body: Buffer): Fields {
  if (body.length === 0) return {};
  const text = body.toString("utf8");
  if ((contentType ?? "").includes("json")) {
    try {
      const value: unknown = JSON.parse(text);
      return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * A field as text, the way Laravel sees it: undefined when absent, null when null or empty
 * (ConvertEmptyStringsToNull), otherwise the value as a string.
 */
export function textField(fields: Fields, name: string): string | null | undefined {
  if (!(name in fields)) return undefined;
  const value = fields[name];
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Every field as text, for logs of what a client sent. */
export function fieldsAsText(fields: Fields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(fields)) out[name] = textField(fields, name) ?? "";
  return out;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, JSON.stringify(body), headers);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Waits `ms` milliseconds; resolves false instead when `signal` aborts first. */
export async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
