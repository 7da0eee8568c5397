// Reading an answer's body under a size cap: the bytes are counted as they arrive and reading stops at the
// cap, so a hostile or broken service cannot make this process hold more than `maxBytes` of one answer.
import { StringDecoder } from "node:string_decoder";

/** How much of an oversized answer is kept for the event log. */
export const KEPT_BYTES = 4096;

export type BodyRead =
  | { complete: true; text: string }
  | { complete: false; head: string; readBytes: number };

export async function readCapped(
  body: AsyncIterable<Buffer | Uint8Array> & { destroy?: (error?: Error) => unknown },
  maxBytes: number,
): Promise<BodyRead> {
  const decoder = new StringDecoder("utf8");
  let text = "";
  let readBytes = 0;
  for await (const chunk of body) {
    readBytes += chunk.length;
    if (readBytes > maxBytes) {
      const room = Math.max(0, KEPT_BYTES - Buffer.byteLength(text));
      const head =
        text.length >= KEPT_BYTES ? text : text + decoder.write(Buffer.from(chunk).subarray(0, room));
      body.destroy?.();
      return { complete: false, head: head.slice(0, KEPT_BYTES), readBytes };
    }
    text += decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }
  return { complete: true, text: text + decoder.end() };
}
