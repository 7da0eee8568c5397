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

/** A network named by a query: the one match, none, or two or more equally good ones. */
export type NetworkMatch =
  | { kind: "found"; network: Network }
  | { kind: "unknown" }
  | { kind: "ambiguous"; candidates: Network[]; message: string };

/**
 * Matches in tiers, the first tier with a match deciding: the id or code exactly, then the name (any case), then
 * `other_name`, then the names a network is also known by. Two networks matching in the deciding tier are
 * ambiguous: nothing is guessed (with `MTN-OLD` whose other_name is "mtn" and `MTN`, "MTN" is `MTN`).
 */
export function matchNetwork(networks: readonly Network[], query: string): NetworkMatch {
  const exact = query.trim();
  const wanted = exact.toLowerCase();
  const tiers: Array<(n: Network) => boolean> = [
    (n) => n.id === exact || n.code === exact,
    (n) => n.name.trim().toLowerCase() === wanted,
    (n) => n.other_name.trim().toLowerCase() === wanted,
    (n) => namesOf(n).includes(wanted),
  ];
  for (const matches of tiers) {
    const found = [...new Set(networks.filter(matches))];
    if (found.length === 1) return { kind: "found", network: found[0]! };
    if (found.length > 1) {
      const named = found.map((n) => `${n.name} (id ${n.id}, code ${n.code})`).join(" and ");
      return {
        kind: "ambiguous",
        candidates: found,
        message: `network "${query}" is ambiguous: it names both ${named}; use the id or code`,
      };
    }
  }
  return { kind: "unknown" };
}

/** The network a query names, or undefined when none or more than one do (see `matchNetwork`). */
export function findNetwork(networks: Network[], query: string): Network | undefined {
  const match = matchNetwork(networks, query);
  return match.kind === "found" ? match.network : undefined;
}

export function resolveNetwork(networks: Network[], query: string): Network {
  const match = matchNetwork(networks, query);
  if (match.kind === "found") return match.network;
  if (match.kind === "ambiguous") throw new UsageError(match.message, "AMBIGUOUS_NETWORK");
  const known = networks.map((n) => `${n.name} (${n.id})`).join(", ");
  throw new UsageError(`unknown network "${query}"; the reseller has: ${known}`, "UNKNOWN_NETWORK");
}
