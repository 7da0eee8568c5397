// `topsync sandbox`: both simulated services on loopback, until SIGINT or SIGTERM.
import { DataError, UsageError } from "../errors.js";
import { fileProblem } from "../file-problem.js";
import { type FaultConfig, loadFaultsFile, startSandbox } from "../sandbox/index.js";
import { amountFlag } from "./amount.js";
import { write } from "./output.js";

export interface SandboxFlags {
  resellerPort: string;
  analyticsPort: string;
  receiverPort: string;
  host: string;
  latency: string;
  seed: string;
  faults?: string;
  failRate: string;
  reverseRate: string;
  wallet: string;
  websites: string;
  throttle: boolean;
  throttleLimit: string;
  throttleWindow: string;
  pageShape: string;
  recordShape: string;
  perPageCap?: string;
  verifyLag: string;
  notifyUrl?: string;
  /** `ID=PRICE`, repeatable: a plan's price, listed and debited. */
  price?: string[];
}

/** `--price 102=350.00` (repeatable) as the `planPrices` option. */
function planPrices(list: readonly string[] | undefined): Record<string, string> | undefined {
  if (!list || list.length === 0) return undefined;
  const prices: Record<string, string> = {};
  for (const pair of list) {
    const match = /^(\w+)=(\d+\.\d{2})$/.exec(pair.trim());
    if (!match) throw new UsageError(`--price must be PLAN_ID=PRICE like 102=350.00; got "${pair}"`);
    prices[match[1]!] = match[2]!;
  }
  return prices;
}

function httpUrl(text: string, flag: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new UsageError(`${flag} must be an http(s) URL, such as http://127.0.0.1:9464/webhooks/reseller`);
  return url.toString();
}

/** `--wallet`: an amount as the config writes one. */
function walletFlag(text: string): string {
  const amount = amountFlag(text);
  if (amount === undefined)
    throw new UsageError(`--wallet must be an amount like 1000000.00 (at least 0), got "${text}"`);
  return amount;
}

/** The largest fault file read: a few endpoints' shares take a few hundred bytes. */
const MAX_FAULTS_BYTES = 1024 * 1024;

/**
 * `--faults FILE`: a file that cannot be read (missing, a directory, a device like /dev/zero, over 1 MiB) is a usage
 * error, one that is not a fault config bad data.
 */
async function faultsFlag(file: string): Promise<FaultConfig> {
  const problem = await fileProblem(file, (bytes) =>
    bytes > MAX_FAULTS_BYTES ? `is ${bytes} bytes, more than a fault config's 1 MiB` : undefined,
  );
  if (problem) throw new UsageError(`--faults ${file} ${problem}`);
  try {
    return loadFaultsFile(file);
  } catch (error) {
    const reason = (error as Error).message;
    if ((error as NodeJS.ErrnoException).code !== undefined)
      throw new UsageError(`--faults ${file}: cannot read it: ${reason}`);
    throw new DataError(`--faults ${file}: ${reason}`);
  }
}

export async function sandboxCommand(flags: SandboxFlags): Promise<void> {
  const sandbox = await startSandbox({
    host: flags.host,
    resellerPort: integer(flags.resellerPort, "--reseller-port", 0, 65_535),
    analyticsPort: integer(flags.analyticsPort, "--analytics-port", 0, 65_535),
    receiverPort: integer(flags.receiverPort, "--receiver-port", 0, 65_535),
    latencyMs: integer(flags.latency, "--latency", 0, 600_000),
    seed: integer(flags.seed, "--seed", 0, 2 ** 31),
    failRate: share(flags.failRate, "--fail-rate"),
    reverseRate: share(flags.reverseRate, "--reverse-rate"),
    walletBalance: walletFlag(flags.wallet),
    faults: flags.faults === undefined ? undefined : await faultsFlag(flags.faults),
    throttle: flags.throttle
      ? {
          limit: integer(flags.throttleLimit, "--throttle-limit", 1, 1_000_000),
          windowSeconds: integer(flags.throttleWindow, "--throttle-window", 1, 86_400),
        }
      : null,
    pageShape: choice(flags.pageShape, "--page-shape", ["laravel", "bare"] as const),
    recordShape: choice(flags.recordShape, "--record-shape", ["wrapped", "bare"] as const),
    perPageCap:
      flags.perPageCap === undefined ? undefined : integer(flags.perPageCap, "--per-page-cap", 1, 100),
    verifyLag: choice(flags.verifyLag, "--verify-lag", ["time", "reads"] as const),
    notifyUrl: flags.notifyUrl === undefined ? undefined : httpUrl(flags.notifyUrl, "--notify-url"),
    planPrices: planPrices(flags.price),
  });
  const count = integer(flags.websites, "--websites", 0, 1_000_000);
  if (count > 0) {
    sandbox.seedWebsites(
      Array.from({ length: count }, (_, i) => ({
        domain: `site-${String(i + 1).padStart(5, "0")}.example.com`,
      })),
    );
  }
  // Listening for the signals before the banner: a script that stops the sandbox once it reads the banner must
  // not find the process without a handler, which a signal would end without closing anything.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  write(
    `sandbox reseller  ${sandbox.resellerUrl}\n` +
      `sandbox analytics ${sandbox.analyticsUrl}\n` +
      `admin             ${sandbox.resellerUrl}/__admin/state\n` +
      `notifications     ${sandbox.receivers.url} (/slack/…, /bot<token>/sendMessage, /hooks/…; what arrived: /__admin/received)\n` +
      `throttle          ${flags.throttle ? `analytics API ${flags.throttleLimit} requests per ${flags.throttleWindow}s (--no-throttle: off)` : "off"}\n` +
      `API keys are the sandbox defaults of config.yaml. Ctrl-C stops.\n`,
  );
  await stopped;
  await sandbox.close();
}

function integer(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function choice<T extends string>(text: string, flag: string, allowed: readonly T[]): T {
  const found = allowed.find((value) => value === text);
  if (found === undefined)
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, got "${text}"`);
  return found;
}

function share(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(`${flag} must be a share between 0 and 1, got "${text}"`);
  }
  return value;
}
