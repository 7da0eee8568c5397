// What a test that needs an outside tool does when the tool is missing: fail in CI, skip loudly elsewhere.
import { afterEach, describe, expect, it, vi } from "vitest";
import { needs, type Tool } from "./tools.js";

const tool = (problem: string | undefined): Tool => ({
  name: "frobnicator",
  install: "apt-get install frobnicator",
  problem: () => problem,
});

describe("needs (test/helpers/tools.ts)", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("in CI, a missing tool fails what needs it, saying what, why and how to get it", async () => {
    vi.stubEnv("CI", "true");
    await expect(needs(tool("no frobnicator on the PATH"), "the frobnication test")).rejects.toThrow(
      "the frobnication test needs frobnicator, which cannot be used here: no frobnicator on the PATH. " +
        "CI is set, so a missing tool fails the run (apt-get install frobnicator).",
    );
  });

  it("elsewhere, a missing tool skips what needs it, with a banner on stderr once per test", async () => {
    vi.stubEnv("CI", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const missing = tool("it did not start");
    expect(await needs(missing, "the banner test")).toBe(false);
    expect(await needs(missing, "the banner test")).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(
      /!{100}\nSKIPPED: the banner test needs frobnicator, which cannot be used here: it did not start\.\nIn CI this fails the run; apt-get install frobnicator\.\n!{100}/,
    );
  });

  it("CI=false and CI=0 are not CI", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const value of ["false", "0"]) {
      vi.stubEnv("CI", value);
      expect(await needs(tool("missing"), `CI=${value}`)).toBe(false);
    }
  });

  it("a tool that is here is used, in CI or not, and checked once", async () => {
    const problem = vi.fn(() => undefined);
    const here: Tool = { name: "here", install: "", problem };
    vi.stubEnv("CI", "true");
    expect(await needs(here, "one test")).toBe(true);
    vi.stubEnv("CI", "");
    expect(await needs(here, "another test")).toBe(true);
    expect(problem).toHaveBeenCalledTimes(1);
  });
});
