// The Dockerfile and .dockerignore agree: what the stages copy from the context is not ignored, what must stay out
// of it (the repository, dependencies, local databases, environment files) is; one base image for both stages; a
// health check on what the daemon serves; a user that is not root.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";

const dockerfile = readFileSync(`${ROOT}Dockerfile`, "utf8");
const ignored = readFileSync(`${ROOT}.dockerignore`, "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .filter((line) => /^[A-Z]+\s/.test(line));

/** Whether .dockerignore leaves `path` out of the context: a pattern naming it or a folder above it. */
function leftOut(path: string): boolean {
  const parts = path.replace(/^\.\//, "").replace(/\/$/, "").split("/");
  return ignored.some((pattern) => parts.some((_, i) => parts.slice(0, i + 1).join("/") === pattern));
}

describe("the Docker image", () => {
  it("copies nothing .dockerignore leaves out, and leaves out the repository, dependencies, databases and .env", () => {
    const copied = instructions
      .filter((line) => line.startsWith("COPY ") && !line.includes("--from="))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(copied).toEqual(expect.arrayContaining(["src", "drizzle", "config.yaml", "package.json"]));
    for (const path of copied) expect(leftOut(path), path).toBe(false);
    for (const path of [".git", "node_modules", "dist", ".topsync", ".env", "test", "bench"])
      expect(leftOut(path), path).toBe(true);
  });

  it("builds both stages on one base image, named by tag or digest", () => {
    const from = instructions.filter((line) => line.startsWith("FROM "));
    const base = "$" + "{NODE_IMAGE}"; // the Dockerfile's variable, as written there
    expect(from.map((line) => line.split(/\s+/)[1])).toEqual([base, base]);
    const arg = instructions.find((line) => line.startsWith("ARG NODE_IMAGE="));
    expect(arg).toMatch(/^ARG NODE_IMAGE=node:\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/);
  });

  it("runs as the image's node user, checks /healthz, and starts topsync run", () => {
    expect(instructions).toContain("USER node");
    const health = instructions.find((line) => line.startsWith("HEALTHCHECK "));
    expect(health).toMatch(/\/healthz|doctor --quick/);
    expect(instructions).toContain('ENTRYPOINT ["node", "dist/cli.cjs"]');
    expect(instructions).toContain('CMD ["run"]');
  });
});
