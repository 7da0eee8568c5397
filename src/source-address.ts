// The source a request is counted under, wherever topsync counts by source (console logins, webhook deliveries,
// connections to the daemon's port): an IPv4 address as it is (an IPv4-mapped IPv6 address is its IPv4 address), an
// IPv6 address by its /64 — one host is commonly given a whole /64, so counting each address on its own would let it
// open as many as it has addresses. A leaf.

/** The key a source address is counted under: IPv4 as it is, IPv6 by its /64 (`2001:db8:1:2::/64`). */
export function sourceKey(address: string): string {
  const text = address.toLowerCase().replace(/%.*$/, "");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped) return mapped[1]!;
  if (!text.includes(":")) return text;
  let tail = text;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(tail);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    tail = `${tail.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = tail.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}
