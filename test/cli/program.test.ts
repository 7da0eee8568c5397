import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers/cli.js";

const packageVersion = (JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { version: string })
  .version;

describe("the topsync program", () => {
  it("--version prints the package's version and exits 0", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toBe(packageVersion);
  });
});
