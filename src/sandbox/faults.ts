// Deciding which fault, if any, hits one request (one seeded draw per request and endpoint stream),
// and the answers faults give in place of the real one.
import type { ServerResponse } from "node:http";
import { type EndpointName, FAULT_KINDS, type FaultKind, type FaultSpec } from "./fault-config.js";
import { sendJson, sendText, sleep } from "./http-util.js";
import { createNamedPrng } from "./prng.js";
import type { Reply } from "./route.js";
import type { SandboxState } from "./state.js";

/** Faults that answer instead of the endpoint, before it has any effect. */
export type FaultBefore = Extract<FaultKind, "rate429" | "rate500Before">;
/** Faults that let the endpoint take effect, then spoil or withhold its answer. */
export type FaultAfter = Exclude<FaultKind, FaultBefore>;

export function faultSpecOf(state: SandboxState, endpoint: EndpointName): FaultSpec | undefined {
  return state.faults.endpoints[endpoint];
}

/** The fault for this request, or undefined; draws exactly once whenever the endpoint has a spec. */
export function drawFault(state: SandboxState, endpoint: EndpointName): FaultKind | undefined {
  const spec = faultSpecOf(state, endpoint);
  if (!spec) return undefined;
  let stream = state.faultStreams.get(endpoint);
  if (!stream) {
    stream = createNamedPrng(state.faults.seed ?? state.options.seed, endpoint);
    state.faultStreams.set(endpoint, stream);
  }
  const draw = stream();
  let bound = 0;
  for (const kind of FAULT_KINDS) {
    bound += spec[kind] ?? 0;
    if (draw < bound) return kind;
  }
  return undefined;
}

export function isFaultBefore(kind: FaultKind): kind is FaultBefore {
  return kind === "rate429" || kind === "rate500Before";
}

export function faultBeforeReply(kind: FaultBefore, spec: FaultSpec | undefined): Reply {
  if (kind === "rate500Before") return { status: 500, body: { message: "Server Error" } };
  const retryAfter = spec?.retryAfter;
  return {
    status: 429,
    body: { message: "Too Many Attempts." },
    headers: retryAfter ? { "retry-after": String(retryAfter) } : {},
  };
}

const MALFORMED_BODY =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gat";

const GATEWAY_TIMEOUT_BODY =
  "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n</body>\r\n</html>\r\n";

/** nginx's default `proxy_read_timeout`: how long a gateway waits for a slow upstream before its 504. */
export const DEFAULT_TIMEOUT_AFTER_MS = 60_000;

/**
 * Spoils the answer after the effect: a 500, a response that never comes (the socket stays open
 * until the sandbox closes), a reset connection, a 200 whose body is not JSON, or a gateway that times out
 * (nothing for `timeoutAfterMs`, then a 504; a client that gives up first closes the connection and gets
 * nothing). Resolves with the status sent, or null when none was.
 */
export async function deliverFaultAfter(
  kind: FaultAfter,
  res: ServerResponse,
  spec: FaultSpec | undefined,
  signal: AbortSignal,
): Promise<number | null> {
  switch (kind) {
    case "rate500After":
      sendJson(res, 500, { message: "Server Error" });
      return 500;
    case "rateHangAfter":
      return null;
    case "rateResetAfter":
      resetConnection(res);
      return null;
    case "rateMalformedAfter":
      sendText(res, 200, MALFORMED_BODY);
      return 200;
    case "rateTimeoutAfter":
      return gatewayTimeout(res, spec?.timeoutAfterMs ?? DEFAULT_TIMEOUT_AFTER_MS, signal);
  }
}

/** Holds the answer for `ms`, then sends a gateway's 504; null when the client or the sandbox closed first. */
async function gatewayTimeout(res: ServerResponse, ms: number, signal: AbortSignal): Promise<number | null> {
  const wait = new AbortController();
  const stop = () => wait.abort();
  signal.addEventListener("abort", stop, { once: true });
  res.once("close", stop);
  try {
    const waited = await sleep(ms, wait.signal);
    if (!waited || res.destroyed) return null;
    sendText(res, 504, GATEWAY_TIMEOUT_BODY, { "content-type": "text/html" });
    return 504;
  } finally {
    signal.removeEventListener("abort", stop);
    res.off("close", stop);
  }
}

/** Sends a TCP RST where the platform can, else just destroys the socket; either way no response arrives. */
function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
