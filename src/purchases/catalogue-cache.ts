// The live catalogue for one run: networks and plans fetched once per run per network.
import type { Logger } from "../log/logger.js";
import type { ResellerClient } from "../reseller/client.js";
import type { Plan, UnusablePlan } from "../reseller/schemas.js";
import { mark } from "../timings.js";
import type { Catalogue } from "./resolve.js";

export async function loadCatalogue(reseller: ResellerClient, logger: Logger): Promise<Catalogue> {
  const networks = await reseller.listNetworks();
  const plans = new Map<string, Plan[]>();
  const unusable: UnusablePlan[] = [];
  await Promise.all(
    networks.map(async (network) => {
      try {
        const list = await reseller.readPlans(network.id);
        plans.set(network.id, list.plans);
        for (const plan of list.unusable) {
          unusable.push({ ...plan, network: network.name });
          // Once per run: the catalogue is read once per run.
          logger.warn(
            { network: network.name, plan: plan.planId, reason: plan.reason },
            `plan ${plan.planId} of ${network.name} is skipped: ${plan.reason}`,
          );
        }
      } catch (error) {
        logger.warn(
          { network: network.name, err: error },
          `could not read the plans of ${network.name}; its purchases wait`,
        );
      }
    }),
  );
  mark("catalogue");
  return { networks, plans, unusable };
}
