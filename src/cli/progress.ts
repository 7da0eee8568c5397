// Progress of long work: a live line on a terminal, a log line every few seconds otherwise.
import type { Logger } from "../log/logger.js";

export interface ProgressReporter<T> {
  update(value: T): void;
  done(): void;
}

export function progressReporter<T>(
  render: (value: T) => string,
  logger: Logger,
  intervalMs = 5000,
): ProgressReporter<T> {
  const tty = process.stderr.isTTY === true;
  let latest: T | undefined;
  let lastWrite = 0;
  const every = tty ? 150 : intervalMs;
  const timer = setInterval(() => flush(), every);
  timer.unref();
  function flush() {
    if (latest === undefined || Date.now() - lastWrite < every - 5) return;
    lastWrite = Date.now();
    if (tty) process.stderr.write(`\r\x1b[2K${render(latest)}`);
    else logger.info(render(latest));
  }
  return {
    update(value) {
      latest = value;
    },
    done() {
      clearInterval(timer);
      if (tty && latest !== undefined) process.stderr.write(`\r\x1b[2K${render(latest)}\n`);
    },
  };
}
