import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI, ROOT, runCli } from "../helpers/cli.js";

const packageVersion = (JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { version: string })
  .version;

describe("the topsync program", () => {
  it("--version prints the package's version and exits 0", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it("its first line runs node with flags node accepts (the installed command starts through it)", async () => {
    const first = readFileSync(CLI, "utf8").split("\n")[0] ?? "";
    const match = /^#!\/usr\/bin\/env -S node( .*)?$/.exec(first);
    expect(match, `dist/cli.js starts with ${first}`).not.toBeNull();
    const flags = (match?.[1] ?? "").trim().split(" ").filter(Boolean);
    expect(flags).toContainEqual(expect.stringMatching(/^--max-old-space-size=\d+$/));
    const result = await runCli(["--version"], {}, ROOT, flags);
    expect(result).toMatchObject({ code: 0, stderr: "" });
  });
});
