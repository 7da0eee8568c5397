// Validation of website create and update requests, with the analytics service's own messages:
// domain normalising, uniqueness, the plan limit, enumerated settings and the password rule.
import { type Fields, textField } from "./http-util.js";
import type { FieldErrors } from "./laravel-errors.js";
import type { Flag, Privacy, WebsiteInput, WebsiteRecord } from "./records.js";
import type { WebsiteStore } from "./website-store.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export type WebsiteChanges = Partial<Omit<WebsiteInput, "domain">>;

const HOSTNAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/** Drops a leading scheme and "www.", and lower-cases, as the service does before validating. */
export function normaliseDomain(domain: string): string {
  return domain
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/^www\./, "");
}

/** What the installation holds beyond this account's store: the plan limit and other accounts' domains. */
export interface Installation {
  maxWebsites: number | undefined;
  takenDomains: readonly string[];
}

function domainError(domain: string | null | undefined, store: WebsiteStore, installation: Installation) {
  const limit = installation.maxWebsites;
  if (limit !== undefined && store.byId.size >= limit) return "You created too many websites.";
  if (domain == null) return "The domain field is required.";
  const normal = normaliseDomain(domain);
  if (normal.length > 255) return "The domain must not be greater than 255 characters.";
  if (!HOSTNAME.test(normal)) return "The domain format is invalid.";
  // `unique:websites,domain` is installation-wide: another account's website takes the domain too.
  if (store.byDomain.has(normal) || installation.takenDomains.includes(normal)) {
    return "The domain has already been taken.";
  }
  return undefined;
}

/** Reads the settable fields other than the domain; only fields present in the request are returned. */
function readSettings(fields: Fields, errors: FieldErrors): WebsiteChanges {
  const changes: WebsiteChanges = {};
  const choice = <T extends number>(name: string, allowed: readonly T[], label: string) => {
    const text = textField(fields, name);
    if (text === undefined) return undefined;
    const value = allowed.find((option) => String(option) === text);
    if (value === undefined) errors[name] = [`The selected ${label} is invalid.`];
    return value;
  };
  const privacy = choice<Privacy>("privacy", [0, 1, 2], "privacy");
  const email = choice<Flag>("email", [0, 1], "email");
  const excludeBots = choice<Flag>("exclude_bots", [0, 1], "exclude bots");
  if (privacy !== undefined) changes.privacy = privacy;
  if (email !== undefined) changes.email = email;
  if (excludeBots !== undefined) changes.exclude_bots = excludeBots;
  const password = textField(fields, "password");
  if (password != null) {
    if (password.length > 128) errors.password = ["The password must not be greater than 128 characters."];
    else changes.password = password;
  }
  for (const name of ["exclude_params", "exclude_ips"] as const) {
    const text = textField(fields, name);
    if (text !== undefined) changes[name] = text;
  }
  return changes;
}

function requirePassword(privacy: Privacy, password: string | null | undefined, errors: FieldErrors): void {
  if (privacy === 2 && password == null && !errors.password) {
    errors.password = ["The password field is required when privacy is 2."];
  }
}

export function checkCreate(
  fields: Fields,
  store: WebsiteStore,
  installation: Installation,
): Checked<WebsiteInput> {
  const errors: FieldErrors = {};
  const domain = textField(fields, "domain");
  const problem = domainError(domain, store, installation);
  if (problem) errors.domain = [problem];
  const settings = readSettings(fields, errors);
  const privacy = settings.privacy ?? 1;
  requirePassword(privacy, settings.password, errors);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      domain: normaliseDomain(domain ?? ""),
      privacy,
      password: settings.password ?? null,
      email: settings.email ?? 0,
      exclude_bots: settings.exclude_bots ?? 1,
      exclude_params: settings.exclude_params ?? null,
      exclude_ips: settings.exclude_ips ?? null,
    },
  };
}

/** Only the fields sent change; the domain is ignored; an empty password leaves the stored one. */
export function checkUpdate(fields: Fields, current: WebsiteRecord): Checked<WebsiteChanges> {
  const errors: FieldErrors = {};
  const changes = readSettings(fields, errors);
  requirePassword(changes.privacy ?? current.privacy, changes.password ?? current.password, errors);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: changes };
}
