// The one definition of "the same website": how a domain as written (config or remote) becomes the key
// topsync matches on. The analytics service strips the scheme and `www.` itself, so both sides must too.
import { domainToASCII } from "node:url";

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const MAX_DOMAIN_LENGTH = 255;

/**
 * Lower case, no scheme, no path/query/fragment, no trailing dot, no leading `www.`; non-ASCII names
 * in their punycode form. Does not validate: see {@link domainProblem}.
 */
export function normaliseDomain(text: string): string {
  let host = text.trim().toLowerCase().replace(SCHEME, "").replace(/^\/\//, "");
  host = host.split(/[/?#]/, 1)[0] ?? "";
  // To ASCII first: full-width letters and ideographic dots ("ＷＷＷ．example．com。") become "www." and a trailing
  // dot only then, and the service would strip that www. from what topsync sends.
  if (/[^\p{ASCII}]/u.test(host)) host = domainToASCII(host) || host;
  return host.replace(/\.+$/, "").replace(/^www\./, "");
}

/** Why a normalised domain is not a hostname the service will take, or undefined when it is one. */
export function domainProblem(domain: string): string | undefined {
  if (domain === "") return "is empty";
  if (domain.length > MAX_DOMAIN_LENGTH) return `is longer than ${MAX_DOMAIN_LENGTH} characters`;
  if (!domain.includes(".")) return "needs at least one dot";
  const bad = domain.split(".").find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    return bad === ""
      ? "has an empty label (two dots in a row)"
      : `has an invalid label "${bad}" (letters, digits and inner hyphens only, at most 63 characters)`;
  }
  return undefined;
}

export function isHostname(domain: string): boolean {
  return domainProblem(domain) === undefined;
}
