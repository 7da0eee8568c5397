// What `topsync doctor` says of one part of an installation: passed, warned or failed, with the fix.
import type { Config } from "../config/index.js";

export type CheckStatus = "pass" | "warn" | "fail" | "skip";

export interface CheckResult {
  /** Short and stable: `config`, `database`, `migrations`, `reseller`, … (scripts read it from --json). */
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do, for a warning or a failure. */
  fix?: string;
}

export interface DoctorReport {
  /** False when any check failed. */
  ok: boolean;
  quick: boolean;
  config: string;
  checks: CheckResult[];
}

/**
 * A check of settings doctor itself does not know (the web console's): handed the valid config and the folder its
 * relative paths start from, it says what it finds. The command line passes these in, so a part above doctor's layer can add its own.
 */
export type SettingsCheck = (config: Config, configDir: string) => CheckResult[] | Promise<CheckResult[]>;

export const pass = (name: string, message: string): CheckResult => ({ name, status: "pass", message });
export const warn = (name: string, message: string, fix: string): CheckResult => ({
  name,
  status: "warn",
  message,
  fix,
});
export const fail = (name: string, message: string, fix: string): CheckResult => ({
  name,
  status: "fail",
  message,
  fix,
});
export const skip = (name: string, message: string): CheckResult => ({ name, status: "skip", message });
