// Website privacy as people write it (public/private/password) and as the analytics service stores it (0/1/2).

export const PRIVACY = { public: 0, private: 1, password: 2 } as const;
export type PrivacyName = keyof typeof PRIVACY;
export type Privacy = (typeof PRIVACY)[PrivacyName];
export const PRIVACY_NAMES = Object.keys(PRIVACY) as PrivacyName[];

/** The service's code for a privacy name, code, or code text; undefined for anything else. */
export function privacyCode(value: unknown): Privacy | undefined {
  if (typeof value === "string" && Object.hasOwn(PRIVACY, value)) return PRIVACY[value as PrivacyName];
  const code = typeof value === "string" && /^[0-2]$/.test(value) ? Number(value) : value;
  return code === 0 || code === 1 || code === 2 ? code : undefined;
}

export function privacyName(code: Privacy): PrivacyName {
  return PRIVACY_NAMES[code]!;
}
