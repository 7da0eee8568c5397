// Reading an answer's body under a size cap: the bytes are counted as they arrive and reading stops at the
// cap, so a hostile or broken service cannot make this process hold more than `maxBytes` of one answer.
import { StringDecoder } from "node:string_decoder";
import { cutText } from "../text/storable.js";

/** How much of an oversized answer is kept for the event log. */
export const KEPT_BYTES = 4096;

export type BodyRead =
  | { complete: true; text: string }
  | { complete: false; head: string; readBytes: number };

type Body = AsyncIterable<Buffer | Uint8Array> & { destroy?: (error?: Error) => unknown };

/**
 * The text of an answer as its chunks come, under the cap: `add` returns the cut answer (its head and the bytes
 * read) at the chunk that passes the cap, after which the body is to be let go; `end` the whole text.
 */
class CappedText {
  private readonly decoder = new StringDecoder("utf8");
  private text = "";
  private readBytes = 0;

  constructor(private readonly maxBytes: number) {}

  add(chunk: Buffer | Uint8Array): BodyRead | undefined {
    this.readBytes += chunk.length;
    if (this.readBytes > this.maxBytes) {
      const room = Math.max(0, KEPT_BYTES - Buffer.byteLength(this.text));
      const head =
        this.text.length >= KEPT_BYTES
          ? this.text
          : this.text + this.decoder.write(Buffer.from(chunk).subarray(0, room));
      return { complete: false, head: cutText(head, KEPT_BYTES), readBytes: this.readBytes };
    }
    this.text += this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    return undefined;
  }

  end(): BodyRead {
    return { complete: true, text: this.text + this.decoder.end() };
  }
}

/** A readable stream as undici hands an answer's body over: read through its events. */
interface EventBody {
  on(event: "data", listener: (chunk: Buffer | Uint8Array) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  destroy(error?: Error): unknown;
  destroyed: boolean;
}

export function readCapped(body: Body, maxBytes: number): Promise<BodyRead> {
  return isEventBody(body) ? readEvents(body, maxBytes) : readIterable(body, maxBytes);
}

/**
 * The same reading through the stream's events rather than `for await`: a stream's async iterator sets up a
 * finished-watcher and a promise per chunk, which on a run's every answer (a buy and its verify reads) cost more
 * than the reading.
 */
function readEvents(body: EventBody, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const read = new CappedText(maxBytes);
    let settled = false;
    const finish = (): void => {
      settled = true;
      body.removeListener("data", onData);
      body.removeListener("end", onEnd);
      body.removeListener("close", onClose);
    };
    const onData = (chunk: Buffer | Uint8Array): void => {
      if (settled) return;
      const cut = read.add(chunk);
      if (cut === undefined) return;
      finish();
      body.destroy();
      resolve(cut);
    };
    const onEnd = (): void => {
      if (settled) return;
      finish();
      resolve(read.end());
    };
    const onError = (error: Error): void => {
      if (settled) return;
      finish();
      reject(error);
    };
    // Closed before its end without an error: as a stream's async iterator says it.
    const onClose = (): void => {
      if (settled) return;
      finish();
      reject(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    };
    // The error listener stays: an error after the answer was read must not go unheard.
    body.on("error", onError);
    body.on("end", onEnd);
    body.on("close", onClose);
    body.on("data", onData);
  });
}

async function readIterable(body: Body, maxBytes: number): Promise<BodyRead> {
  const read = new CappedText(maxBytes);
  for await (const chunk of body) {
    const cut = read.add(chunk);
    if (cut === undefined) continue;
    body.destroy?.();
    return cut;
  }
  return read.end();
}

/** A stream not yet destroyed (one that is goes the iterator's way, which says how it ended). */
function isEventBody(body: Body): body is Body & EventBody {
  const stream = body as Partial<EventBody>;
  return (
    stream.destroyed === false &&
    typeof stream.on === "function" &&
    typeof stream.removeListener === "function" &&
    typeof stream.destroy === "function"
  );
}
