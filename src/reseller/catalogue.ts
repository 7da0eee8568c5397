// Finding a network or plan the way an operator names it: by id, code or name, in any case.
import { UsageError } from "../errors.js";
import type { Network } from "./schemas.js";

/** Names a network is also known by (9mobile was rebranded T2 in August 2025). */
const ALIASES: Record<string, string[]> = {
  "9mobile": ["t2", "etisalat", "9mobile"],
  t2: ["9mobile", "etisalat", "t2"],
};

function namesOf(network: Network): string[] {
  const own = [network.name, network.other_name].map((n) => n.trim().toLowerCase()).filter(Boolean);
  return [...new Set([...own, ...own.flatMap((n) => ALIASES[n] ?? [])])];
}

export function findNetwork(networks: Network[], query: string): Network | undefined {
  const wanted = query.trim().toLowerCase();
  return (
    networks.find((n) => n.id === query.trim() || n.code === query.trim()) ??
    networks.find((n) => namesOf(n).includes(wanted))
  );
}

export function resolveNetwork(networks: Network[], query: string): Network {
  const network = findNetwork(networks, query);
  if (network) return network;
  const known = networks.map((n) => `${n.name} (${n.id})`).join(", ");
  throw new UsageError(`unknown network "${query}"; the reseller has: ${known}`, "UNKNOWN_NETWORK");
}
