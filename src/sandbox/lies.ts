// Lies the simulated reseller tells on demand, for tests of topsync's reading of hostile answers: a plan's listed
// price replaced by any text, references written as JSON numbers, a wallet balance written as any JSON number,
// any text as the provider's `true_response`, and answers that trickle one byte at a time or run to hundreds of
// megabytes. Set with the `lies` option.
import type { ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import * as z from "zod";
import { ENDPOINT_NAMES, type EndpointName } from "./fault-config.js";

export const liesSchema = z.strictObject({
  /** Plan id → the price text listed for it (anything: "-5.00", "₦500", "0"); the debit stays the real price. */
  prices: z.record(z.string(), z.string()).optional(),
  /** New references are 20 digits, written unquoted (a JSON number beyond 2^53) in purchase and verify answers. */
  referenceAsNumber: z.boolean().optional(),
  /** The purchase answer's `wallet_balance`, written as this JSON number text (e.g. "10000000000000"). */
  walletBalance: z
    .string()
    .regex(/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/)
    .optional(),
  /** The purchase answer's `amount`, written as this text (the debit stays the real price). */
  amount: z.string().optional(),
  /**
   * The `true_response` text of purchase answers, verify answers and notifications (any text: a NUL, half a
   * surrogate pair, control characters), written as JSON writes it (`\u0000`, `\ud800`).
   */
  trueResponse: z.string().optional(),
  /** Answers of `endpoints` are sent one byte every `trickleMs` milliseconds. */
  trickleMs: z.number().int().min(1).optional(),
  /** Answers of `endpoints` are padded to this many bytes, streamed as the reader takes them. */
  hugeBodyBytes: z.number().int().min(1).optional(),
  /** Where trickling and padding apply; the buy-data endpoint by default. */
  endpoints: z.array(z.enum(ENDPOINT_NAMES)).optional(),
});

export type Lies = z.infer<typeof liesSchema>;

/** The answer body as text, with the lies that change its JSON applied. */
export function answerText(lies: Lies, body: unknown): string {
  let text = JSON.stringify(body);
  if (lies.referenceAsNumber) text = text.replace(/"reference":"(\d{16,})"/g, '"reference":$1');
  if (lies.walletBalance !== undefined) {
    text = text.replace(/"wallet_balance":-?[\d.eE+-]+/, `"wallet_balance":${lies.walletBalance}`);
  }
  return text;
}

/** Whether this endpoint's answers are trickled or padded. */
export function deliversSlowly(lies: Lies, endpoint: EndpointName): boolean {
  if (lies.trickleMs === undefined && lies.hugeBodyBytes === undefined) return false;
  return (lies.endpoints ?? ["data"]).includes(endpoint);
}

/**
 * Sends `text` one byte per `trickleMs`, or padded with spaces after its first byte to `hugeBodyBytes` (still
 * JSON), written only as fast as the client reads. Stops when the client goes away. Resolves with the bytes sent.
 */
export async function deliverSlowly(
  res: ServerResponse,
  status: number,
  text: string,
  lies: Lies,
  closing: AbortSignal,
): Promise<number> {
  res.writeHead(status, { "content-type": "application/json" });
  const gone = () => res.destroyed || res.writableEnded || closing.aborted;
  let sent = 0;
  const write = async (chunk: string | Buffer) => {
    sent += Buffer.byteLength(chunk);
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  };
  const bytes = Buffer.from(text);
  if (lies.hugeBodyBytes !== undefined) {
    await write(bytes.subarray(0, 1));
    const pad = Buffer.alloc(64 * 1024, " ");
    let left = lies.hugeBodyBytes - bytes.length;
    while (left > 0 && !gone()) {
      await write(left >= pad.length ? pad : pad.subarray(0, left));
      left -= pad.length;
    }
    if (!gone()) res.end(bytes.subarray(1));
    return sent;
  }
  for (let i = 0; i < bytes.length && !gone(); i++) {
    await write(bytes.subarray(i, i + 1));
    try {
      await delay(lies.trickleMs ?? 0, undefined, { signal: closing });
    } catch {
      break;
    }
  }
  if (!gone()) res.end();
  return sent;
}
