// How the analytics service shows a website: the password only as "is one set", exclude_params never,
// and integers as strings when the sandbox imitates a build that echoes form values.
import type { WebsiteRecord } from "./records.js";

export function websiteView(record: WebsiteRecord, stringInts: boolean) {
  const int = (value: number) => (stringInts ? String(value) : value);
  return {
    id: int(record.id),
    domain: record.domain,
    privacy: int(record.privacy),
    email: int(record.email),
    password: record.password !== null,
    exclude_bots: int(record.exclude_bots),
    exclude_ips: record.exclude_ips,
    created_at: record.created_at,
    updated_at: record.updated_at,
    favorite: int(record.favorite),
  };
}
