// Warnings about refused requests, at most one a reason per window: under a flood of bad requests the log
// says what is happening and how much of it, without becoming the flood's next victim. Messages carry no
// request target or header (a token may be in either).
import { formatDuration } from "../duration.js";
import type { Logger } from "../log/logger.js";

const WINDOW_MS = 10_000;

export class RefusalLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  warn(reason: string, message: string): void {
    const at = this.now();
    const seen = this.last.get(reason);
    if (seen && at - seen.at < WINDOW_MS) {
      seen.suppressed++;
      return;
    }
    const more =
      seen && seen.suppressed > 0
        ? ` (and ${seen.suppressed} more since the last such warning, not logged: one a ${formatDuration(WINDOW_MS)})`
        : "";
    this.last.set(reason, { at, suppressed: 0 });
    this.logger.warn({ reason }, `${message}${more}`);
  }
}
