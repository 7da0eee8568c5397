// The lean heap of a command on the embedded database (src/v8-flags.ts), in a child process of its own: V8's flags
// are the whole process's, and the test's own must not change.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";

/** The young generation's largest size (MB) while a child allocates objects of which a third survive a while. */
function youngGenerationPeak(lean: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    import { holdHeapLean } from ${JSON.stringify(join(ROOT, "dist", "v8-flags.js"))};
    if (${lean}) holdHeapLean();
    const young = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
    const keep = [];
    let peak = 0;
    for (let round = 0; round < 300; round++) {
      for (let i = 0; i < 10000; i++) {
        const row = { id: round * 10000 + i, phone: "0803" + i, tags: [i, round] };
        if (i % 3 === 0) keep.push(row);
      }
      if (keep.length > 200000) keep.splice(0, 100000);
      peak = Math.max(peak, young());
      await new Promise((resolve) => setImmediate(resolve));
    }
    console.log(peak / 1024 / 1024);
  `;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script]).toString().trim());
}

describe("a lean heap (src/v8-flags.ts)", () => {
  it("stops the young generation growing at 8 MB, where V8 left alone takes it further", () => {
    expect(youngGenerationPeak(false)).toBeGreaterThan(8);
    expect(youngGenerationPeak(true)).toBeLessThanOrEqual(8);
  });
});
