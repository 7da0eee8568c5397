// Looking a name up in a record from config (users, approvers, channels): its own entries only. A plain object
// looked up by "__proto__" or "constructor" finds what every object inherits, which is no entry of the config.

/** The entry of `record` named `key`, if the record itself has one. */
export function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
