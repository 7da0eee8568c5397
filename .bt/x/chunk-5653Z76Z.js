import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/reseller/prefixes.js
var PREFIX_TABLE = {
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
      "07026"
    ],
    GLO: ["0705", "0805", "0807", "0811", "0815", "0905", "0915"],
    AIRTEL: ["0701", "0708", "0802", "0808", "0812", "0901", "0902", "0904", "0907", "0911", "0912"],
    "9MOBILE": ["0809", "0817", "0818", "0908", "0909"]
  }
};
var NETWORK_NAMES = {
  mtn: "MTN",
  glo: "GLO",
  globacom: "GLO",
  airtel: "AIRTEL",
  "9mobile": "9MOBILE",
  etisalat: "9MOBILE",
  t2: "9MOBILE"
};
function prefixNetworkOf(name) {
  return NETWORK_NAMES[name.trim().toLowerCase()];
}
function networkOfNumber(phone) {
  for (const length of [5, 4]) {
    const prefix = phone.slice(0, length);
    for (const [network, prefixes] of Object.entries(PREFIX_TABLE.networks)) {
      if (prefixes.includes(prefix))
        return network;
    }
  }
  return void 0;
}

export {
  PREFIX_TABLE,
  prefixNetworkOf,
  networkOfNumber
};
