import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  loadFaultsFile,
  startSandbox
} from "./chunk-SZPVPX5K.js";
import "./chunk-R4UDDDHW.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-5653Z76Z.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import {
  UsageError
} from "./chunk-3SYTADOT.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";

// dist/cli/sandbox.js
function httpUrl(text, flag) {
  let url;
  try {
    url = new URL(text);
  } catch {
    url = void 0;
  }
  if (!url || url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${flag} must be an http(s) URL, such as http://127.0.0.1:9464/webhooks/reseller`);
  return url.toString();
}
async function sandboxCommand(flags) {
  const sandbox = await startSandbox({
    host: flags.host,
    resellerPort: integer(flags.resellerPort, "--reseller-port", 0, 65535),
    analyticsPort: integer(flags.analyticsPort, "--analytics-port", 0, 65535),
    latencyMs: integer(flags.latency, "--latency", 0, 6e5),
    seed: integer(flags.seed, "--seed", 0, 2 ** 31),
    failRate: share(flags.failRate, "--fail-rate"),
    reverseRate: share(flags.reverseRate, "--reverse-rate"),
    walletBalance: flags.wallet,
    faults: flags.faults ? loadFaultsFile(flags.faults) : void 0,
    throttle: flags.throttle ? {
      limit: integer(flags.throttleLimit, "--throttle-limit", 1, 1e6),
      windowSeconds: integer(flags.throttleWindow, "--throttle-window", 1, 86400)
    } : null,
    pageShape: choice(flags.pageShape, "--page-shape", ["laravel", "bare"]),
    recordShape: choice(flags.recordShape, "--record-shape", ["wrapped", "bare"]),
    perPageCap: flags.perPageCap === void 0 ? void 0 : integer(flags.perPageCap, "--per-page-cap", 1, 100),
    notifyUrl: flags.notifyUrl === void 0 ? void 0 : httpUrl(flags.notifyUrl, "--notify-url")
  });
  const count = integer(flags.websites, "--websites", 0, 1e6);
  if (count > 0) {
    sandbox.seedWebsites(Array.from({ length: count }, (_, i) => ({
      domain: `site-${String(i + 1).padStart(5, "0")}.example.com`
    })));
  }
  write(`sandbox reseller  ${sandbox.resellerUrl}
sandbox analytics ${sandbox.analyticsUrl}
admin             ${sandbox.resellerUrl}/__admin/state
throttle          ${flags.throttle ? `analytics API ${flags.throttleLimit} requests per ${flags.throttleWindow}s (--no-throttle: off)` : "off"}
API keys are the sandbox defaults of config.yaml. Ctrl-C stops.
`);
  await new Promise((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await sandbox.close();
}
function integer(text, flag, min, max) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}
function choice(text, flag, allowed) {
  const found = allowed.find((value) => value === text);
  if (found === void 0)
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, got "${text}"`);
  return found;
}
function share(text, flag) {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(`${flag} must be a share between 0 and 1, got "${text}"`);
  }
  return value;
}
export {
  sandboxCommand
};
