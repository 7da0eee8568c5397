// The live catalogue for one run: networks and plans fetched once per run per network.
import type { Logger } from "../log/logger.js";
import type { ResellerClient } from "../reseller/client.js";
import type { Plan } from "../reseller/schemas.js";
import type { Catalogue } from "./resolve.js";

export async function loadCatalogue(reseller: ResellerClient, logger: Logger): Promise<Catalogue> {
  const networks = await reseller.listNetworks();
  const plans = new Map<string, Plan[]>();
  await Promise.all(
    networks.map(async (network) => {
      try {
        plans.set(network.id, await reseller.listPlans(network.id));
      } catch (error) {
        logger.warn(
          { network: network.name, err: error },
          `could not read the plans of ${network.name}; its purchases wait`,
        );
      }
    }),
  );
  return { networks, plans };
}
