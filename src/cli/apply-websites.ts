// `topsync apply` of a website plan.
import { UsageError } from "../errors.js";
import type { PlanDocument } from "../plans/document.js";
import type { CommandContext } from "./context.js";

export async function applyWebsitesCommand(
  _ctx: CommandContext,
  id: string,
  _file: PlanDocument | undefined,
  _stale: "refuse" | "drop",
): Promise<void> {
  throw new UsageError(`plan ${id} is a website plan; applying website plans is not available yet`);
}
