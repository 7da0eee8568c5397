// Nigerian mobile number prefixes by network — the one copy of this table (topsync and its sandbox).
// Source: NCC numbering allocations as republished in 2025 operator lists (docs/services.md); as of 2025-08.
// 9mobile was rebranded T2 in August 2025. Numbers keep their prefix when ported to another network.
// 0918, which some lists give 9mobile, is left out: the numbering plan as libphonenumber-js's metadata has it
// (v1.13, checked 2026-11) does not allocate it, so no valid number carries it. A valid mobile number whose
// prefix is in no list here is refused as `unknown_prefix` unless it is marked ported.

export const PREFIX_TABLE = {
  source: "NCC numbering allocations as republished in 2025 operator prefix lists",
  as_of: "2025-08",
  networks: {
    MTN: [
      "0703",
      "0704",
      "0706",
      "0707",
      "0803",
      "0806",
      "0810",
      "0813",
      "0814",
      "0816",
      "0903",
      "0906",
      "0913",
      "0916",
      "07025",
      "07026",
    ],
    GLO: ["0705", "0805", "0807", "0811", "0815", "0905", "0915"],
    AIRTEL: ["0701", "0708", "0802", "0808", "0812", "0901", "0902", "0904", "0907", "0911", "0912"],
    "9MOBILE": ["0809", "0817", "0818", "0908", "0909"],
  },
} as const;

export type PrefixNetwork = keyof typeof PREFIX_TABLE.networks;

/** Names a network goes by on different platforms, mapped to the table's key. */
const NETWORK_NAMES: Record<string, PrefixNetwork> = {
  mtn: "MTN",
  glo: "GLO",
  globacom: "GLO",
  airtel: "AIRTEL",
  "9mobile": "9MOBILE",
  etisalat: "9MOBILE",
  t2: "9MOBILE",
};

export function prefixNetworkOf(name: string): PrefixNetwork | undefined {
  return NETWORK_NAMES[name.trim().toLowerCase()];
}

/** The network whose prefix list holds this national number (longest prefix first), or undefined. */
export function networkOfNumber(phone: string): PrefixNetwork | undefined {
  for (const length of [5, 4]) {
    const prefix = phone.slice(0, length);
    for (const [network, prefixes] of Object.entries(PREFIX_TABLE.networks)) {
      if ((prefixes as readonly string[]).includes(prefix)) return network as PrefixNetwork;
    }
  }
  return undefined;
}
