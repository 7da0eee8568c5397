import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { warmTimeZones } from "../../src/time/warm-zones.js";

describe("warmTimeZones", () => {
  it("runs the formatters in a thread of its own to the end, once per process", async () => {
    const worker = warmTimeZones();
    expect(worker).toBeDefined();
    const errors: unknown[] = [];
    worker?.on("error", (error) => errors.push(error));
    // A mistake in what the thread runs would be swallowed in use (the command just waits longer): here it fails.
    const [code] = await once(worker!, "exit");
    expect(errors).toEqual([]);
    expect(code).toBe(0);
    expect(warmTimeZones()).toBeUndefined();
  });
});
