// The config module: the schema and its types, loading with positions, the JSON Schema, website helpers.
export { domainProblem, isHostname, MAX_DOMAIN_LENGTH, normaliseDomain } from "./domain.js";
export { checkConfigFiles } from "./files.js";
export { configJsonSchema } from "./json-schema.js";
export {
  ConfigError,
  type ConfigIssue,
  formatIssue,
  type LoadedConfig,
  loadConfig,
  parseConfig,
} from "./load.js";
export {
  PRIVACY,
  PRIVACY_NAMES,
  type Privacy,
  type PrivacyName,
  privacyCode,
  privacyName,
} from "./privacy.js";
export * from "./schema.js";
