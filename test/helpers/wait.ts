// Polling for a condition in tests, with a deadline and a message that says what never happened.

/** Polls until `check` gives a truthy value; fails with `what` (and whatever `context` adds) otherwise. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; context?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}\n${options.context?.() ?? ""}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
