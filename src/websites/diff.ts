// Field-level comparison of one declared website with its remote record: what differs (from → to, write-only
// values as "(sensitive)") and the fields an update must send. Pure.
import type { RemoteWebsite } from "../analytics/schemas.js";
import { privacyName, type WebsiteItem } from "../config/index.js";
import { type Diff, SENSITIVE, type SecretHashes, type WebsiteFields } from "./model.js";
import { canonicalSet } from "./secrets.js";

export interface FieldChanges {
  diff: Diff;
  send: WebsiteFields;
  sendPassword: boolean;
  /** Hashes of the write-only values this update sends. */
  secrets: SecretHashes;
}

/**
 * `applied` is what topsync last applied to this very website, or null when unknown (never applied, or
 * applied to an earlier website with the same domain): unknown write-only values are set once.
 */
export function compareWebsite(
  item: WebsiteItem,
  remote: RemoteWebsite,
  declared: SecretHashes,
  applied: SecretHashes | null,
): FieldChanges {
  const changes: FieldChanges = { diff: {}, send: {}, sendPassword: false, secrets: {} };
  if (item.privacy !== remote.privacy) {
    changes.diff.privacy = { from: privacyName(remote.privacy), to: privacyName(item.privacy) };
    changes.send.privacy = item.privacy;
  }
  for (const field of FLAGS) {
    if (remote[field] === undefined || item[field] === remote[field]) continue;
    changes.diff[field] = { from: remote[field] === 1, to: item[field] === 1 };
    changes.send[field] = item[field];
  }
  if (!sameSet(item.exclude_ips, remote.exclude_ips)) {
    changes.diff.exclude_ips = { from: remote.exclude_ips, to: canonicalList(item.exclude_ips) };
    changes.send.exclude_ips = canonicalList(item.exclude_ips);
  }
  comparePassword(item, remote, declared, applied, changes);
  if (applied?.exclude_params === undefined || applied.exclude_params !== declared.exclude_params) {
    changes.diff.exclude_params = { from: SENSITIVE, to: SENSITIVE };
    changes.send.exclude_params = canonicalList(item.exclude_params);
    changes.secrets.exclude_params = declared.exclude_params;
  }
  // A setting the record does not show (null) is no reason to change it; an update made anyway sends it too.
  if (Object.keys(changes.send).length > 0 || changes.sendPassword)
    for (const field of FLAGS)
      if (remote[field] === undefined) {
        changes.diff[field] = { from: null, to: item[field] === 1 };
        changes.send[field] = item[field];
      }
  return changes;
}

const FLAGS = ["email", "exclude_bots"] as const;

function comparePassword(
  item: WebsiteItem,
  remote: RemoteWebsite,
  declared: SecretHashes,
  applied: SecretHashes | null,
  changes: FieldChanges,
): void {
  if (item.privacy !== 2 || declared.password === undefined) return;
  // A record that does not say whether a password is set: what topsync last applied to it is all there is to go by.
  if (remote.password !== false && applied?.password === declared.password) return;
  changes.diff.password = { from: remote.password === false ? null : SENSITIVE, to: SENSITIVE };
  changes.sendPassword = true;
  changes.secrets.password = declared.password;
}

/** The fields a create sends: every setting, so the service's own defaults never matter. */
export function createFields(item: WebsiteItem): { diff: Diff; send: WebsiteFields; sendPassword: boolean } {
  const sendPassword = item.privacy === 2 && item.password !== undefined;
  const diff: Diff = {
    privacy: { from: null, to: privacyName(item.privacy) },
    email: { from: null, to: item.email === 1 },
    exclude_bots: { from: null, to: item.exclude_bots === 1 },
    exclude_ips: { from: null, to: canonicalList(item.exclude_ips) },
    exclude_params: { from: null, to: SENSITIVE },
  };
  if (sendPassword) diff.password = { from: null, to: SENSITIVE };
  const send: WebsiteFields = {
    privacy: item.privacy,
    email: item.email,
    exclude_bots: item.exclude_bots,
    exclude_ips: canonicalList(item.exclude_ips),
    exclude_params: canonicalList(item.exclude_params),
  };
  return { diff, send, sendPassword };
}

function sameSet(declared: readonly string[], remote: readonly string[]): boolean {
  const a = canonicalSet(declared);
  const b = canonicalSet(remote);
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** Trimmed, blanks and repeats dropped, in the declared order. */
function canonicalList(values: readonly string[]): string[] {
  return [...new Set(values.map((value) => value.trim()).filter((value) => value !== ""))];
}
