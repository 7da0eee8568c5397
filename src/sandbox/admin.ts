// The admin endpoint under /__admin/ on both servers (no auth): views of the wallet, debits and website
// mutations, and reset, options, faults, website seeding, the reversal of a delivered purchase and the late delivery
// of a failed one, for tests and demos driving the sandbox remotely.
import * as z from "zod";
import {
  debitRecords,
  mutationRecords,
  refundRecords,
  requestRecords,
  resetSandbox,
  seedNumberedWebsites,
  seedWebsites,
  setFaults,
  setOptions,
  stateSnapshot,
  walletText,
} from "./controls.js";
import { deliverLate, reverseTransaction } from "./notify.js";
import type { Reply } from "./route.js";
import type { SandboxState } from "./state.js";

const flag = z.union([z.literal(0), z.literal(1)]);

const seedRequestSchema = z.union([
  z.object({
    records: z.array(
      z.object({
        domain: z.string().min(1),
        privacy: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
        password: z.string().nullable().optional(),
        email: flag.optional(),
        exclude_bots: flag.optional(),
        exclude_params: z.string().nullable().optional(),
        exclude_ips: z.string().nullable().optional(),
      }),
    ),
  }),
  z.object({ count: z.number().int().min(1).max(1_000_000), prefix: z.string().min(1).default("site") }),
]);

const ok = (body: unknown): Reply => ({ status: 200, body });

function readJson(body: Buffer): unknown {
  return body.length === 0 ? {} : JSON.parse(body.toString("utf8"));
}

function seed(state: SandboxState, value: unknown): Reply {
  const request = seedRequestSchema.parse(value);
  const created =
    "records" in request
      ? seedWebsites(state, request.records)
      : seedNumberedWebsites(state, request.count, request.prefix);
  return ok({ created: created.length, websites: created });
}

/** A late change of a transaction named by the body's `reference`: 200 with `{[done]: reference}`, or 404 and why not. */
function changeLate(
  state: SandboxState,
  value: unknown,
  change: (state: SandboxState, reference: string) => string | undefined,
  done: string,
): Reply {
  const { reference } = z.object({ reference: z.string().min(1) }).parse(value);
  const problem = change(state, reference);
  return problem ? { status: 404, body: { message: problem } } : ok({ [done]: reference });
}

function route(state: SandboxState, method: string, path: string, body: Buffer): Reply {
  const key = `${method} ${path.replace(/\/+$/, "")}`;
  switch (key) {
    case "GET /__admin/state":
      return ok(stateSnapshot(state));
    case "GET /__admin/debits":
      return ok({ debits: debitRecords(state) });
    case "GET /__admin/refunds":
      return ok({ refunds: refundRecords(state) });
    case "GET /__admin/wallet":
      return ok({ wallet: walletText(state) });
    case "GET /__admin/website-mutations":
      return ok({ websiteMutations: mutationRecords(state) });
    case "GET /__admin/requests":
      return ok({ requests: requestRecords(state) });
    case "POST /__admin/reset":
      resetSandbox(state, readJson(body));
      return ok({ ok: true });
    case "POST /__admin/faults":
      setFaults(state, readJson(body));
      return ok({ ok: true });
    case "POST /__admin/options":
      setOptions(state, readJson(body));
      return ok({ ok: true });
    case "POST /__admin/websites":
      return seed(state, readJson(body));
    case "POST /__admin/reverse":
      return changeLate(state, readJson(body), reverseTransaction, "reversed");
    case "POST /__admin/deliver-late":
      return changeLate(state, readJson(body), deliverLate, "delivered");
    default:
      return { status: 404, body: { message: `No admin route ${key}.` } };
  }
}

/** Answers an admin request; a bad request body answers 400 with the reason instead of throwing. */
export function handleAdmin(state: SandboxState, method: string, path: string, body: Buffer): Reply {
  try {
    return route(state, method, path, body);
  } catch (error) {
    const message = error instanceof z.ZodError ? z.prettifyError(error) : String(error);
    return { status: 400, body: { message } };
  }
}
