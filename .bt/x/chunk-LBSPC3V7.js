import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  createAnalyticsClient,
  createResellerClient
} from "./chunk-67GFVRO3.js";
import {
  maskPhonesDeep,
  maskPhonesIn
} from "./chunk-CTB3ORUE.js";
import {
  loadConfig
} from "./chunk-GJL2AOOX.js";

// dist/log/logger.js
import { pino } from "pino";
import pretty from "pino-pretty";
var REDACT = [
  "api_key",
  "apiKey",
  "password",
  "authorization",
  "*.api_key",
  "*.apiKey",
  "*.password",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization"
];
function createLogger(options = {}) {
  const level = options.level ?? "info";
  const usePretty = options.pretty ?? (options.destination === void 0 && process.stderr.isTTY === true);
  const destination = options.destination ?? (usePretty ? pretty({
    destination: 2,
    sync: true,
    colorize: true,
    ignore: "pid,hostname",
    translateTime: "HH:MM:ss"
  }) : pino.destination({ dest: 2, sync: true }));
  return pino({
    level,
    base: void 0,
    redact: { paths: REDACT, censor: "[redacted]" },
    formatters: { log: (object) => maskPhonesDeep(object) },
    hooks: {
      logMethod(args, method) {
        const masked = args.map((arg) => typeof arg === "string" ? maskPhonesIn(arg) : arg);
        method.apply(this, masked);
      }
    },
    serializers: { err: pino.stdSerializers.err }
  }, destination);
}

// dist/cli/context.js
function createLoggerFor(globals) {
  return createLogger({ level: globals.logLevel ?? process.env.TOPSYNC_LOG_LEVEL ?? "info" });
}
async function openContext(globals, override) {
  const loaded = await loadConfig(globals.config, process.env);
  const config = override ? override(loaded.config) : loaded.config;
  const logger = createLogger({ level: globals.logLevel ?? config.log.level });
  for (const warning of loaded.warnings) {
    logger.warn(`${warning.file}:${warning.line}:${warning.column}: ${warning.path}: ${warning.message}`);
  }
  return contextFrom(globals, config, loaded.file, logger);
}
function contextFrom(globals, config, configFile, logger) {
  const cleanups = [];
  let reseller;
  let analytics;
  const context = {
    globals,
    config,
    configFile,
    logger,
    reseller() {
      if (!reseller) {
        const client = createResellerClient(config.reseller, { logger });
        cleanups.push(() => client.close());
        reseller = client;
      }
      return reseller;
    },
    analytics() {
      if (!analytics) {
        const client = createAnalyticsClient(config.analytics, { logger });
        cleanups.push(() => client.close());
        analytics = client;
      }
      return analytics;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
    async close() {
      for (const cleanup of cleanups.reverse())
        await cleanup();
      cleanups.length = 0;
    }
  };
  return context;
}

export {
  createLoggerFor,
  openContext,
  contextFrom
};
