import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  UsageError
} from "./chunk-3SYTADOT.js";

// dist/reseller/catalogue.js
var ALIASES = {
  "9mobile": ["t2", "etisalat", "9mobile"],
  t2: ["9mobile", "etisalat", "t2"]
};
function namesOf(network) {
  const own = [network.name, network.other_name].map((n) => n.trim().toLowerCase()).filter(Boolean);
  return [.../* @__PURE__ */ new Set([...own, ...own.flatMap((n) => ALIASES[n] ?? [])])];
}
function matchNetwork(networks, query) {
  const exact = query.trim();
  const wanted = exact.toLowerCase();
  const tiers = [
    (n) => n.id === exact || n.code === exact,
    (n) => n.name.trim().toLowerCase() === wanted,
    (n) => n.other_name.trim().toLowerCase() === wanted,
    (n) => namesOf(n).includes(wanted)
  ];
  for (const matches of tiers) {
    const found = [...new Set(networks.filter(matches))];
    if (found.length === 1)
      return { kind: "found", network: found[0] };
    if (found.length > 1) {
      const named = found.map((n) => `${n.name} (id ${n.id}, code ${n.code})`).join(" and ");
      return {
        kind: "ambiguous",
        candidates: found,
        message: `network "${query}" is ambiguous: it names both ${named}; use the id or code`
      };
    }
  }
  return { kind: "unknown" };
}
function findNetwork(networks, query) {
  const match = matchNetwork(networks, query);
  return match.kind === "found" ? match.network : void 0;
}
function resolveNetwork(networks, query) {
  const match = matchNetwork(networks, query);
  if (match.kind === "found")
    return match.network;
  if (match.kind === "ambiguous")
    throw new UsageError(match.message, "AMBIGUOUS_NETWORK");
  const known = networks.map((n) => `${n.name} (${n.id})`).join(", ");
  throw new UsageError(`unknown network "${query}"; the reseller has: ${known}`, "UNKNOWN_NETWORK");
}

export {
  matchNetwork,
  findNetwork,
  resolveNetwork
};
