// pino, set up once per process: JSON lines by default, readable lines on a terminal; secrets redacted by
// key, phone numbers masked in every message and field.
import { createRequire } from "node:module";
import { type DestinationStream, type Logger, pino } from "pino";
import type { PrettyOptions } from "pino-pretty";
import { maskPhonesDeep, maskPhonesIn } from "./mask.js";

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** Readable lines instead of JSON; defaults to "is stderr a terminal". */
  pretty?: boolean;
  destination?: DestinationStream;
}

const REDACT = [
  "api_key",
  "apiKey",
  "password",
  "authorization",
  "*.api_key",
  "*.apiKey",
  "*.password",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
];

/** pino-pretty (about 40 modules) is loaded only when a person is reading the terminal. */
function loadPretty(): (options: PrettyOptions) => DestinationStream {
  return createRequire(import.meta.url)("pino-pretty") as (options: PrettyOptions) => DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? "info";
  const usePretty = options.pretty ?? (options.destination === undefined && process.stderr.isTTY === true);
  const destination =
    options.destination ??
    (usePretty
      ? loadPretty()({
          destination: 2,
          sync: true,
          colorize: true,
          ignore: "pid,hostname",
          translateTime: "HH:MM:ss",
        })
      : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT, censor: "[redacted]" },
      formatters: { log: (object) => maskPhonesDeep(object) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((arg) => (typeof arg === "string" ? maskPhonesIn(arg) : arg));
          method.apply(this, masked as Parameters<typeof method>);
        },
      },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}

/** A logger that drops everything, for library use and tests that don't look at logs. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
