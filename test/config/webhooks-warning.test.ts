// A `webhooks` section without `enabled` starts no receiver: config check says so, and so does the daemon when it
// starts (and then treats the webhook path as any other: a POST to it is 405).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/config/index.js";
import { freePort, spawnDaemon, waitFor, waitReady } from "../daemon/helpers.js";
import { runCli } from "../helpers/cli.js";
import { createPostgresDatabase } from "../helpers/db.js";
import { HEAD, load, yaml } from "./helpers.js";

const WARNING =
  "config.yaml:8:3: webhooks: has settings but no `enabled: true`, so the daemon starts no webhook receiver";

describe("a webhooks section that is not enabled", () => {
  it("config check warns when it has settings but no enabled; not with enabled either way, nor without it", () => {
    const { config, warnings } = load(yaml("webhooks:", "  secret: whsec-0123456789", "  path: /hooks"));
    expect(config.webhooks.enabled).toBe(false);
    expect(warnings.map(formatIssue)).toHaveLength(1);
    expect(formatIssue(warnings[0]!)).toContain(WARNING);
    expect(formatIssue(warnings[0]!)).not.toContain("whsec-0123456789");
    expect(load(yaml("webhooks:", "  enabled: true", "  secret: whsec-0123456789")).warnings).toEqual([]);
    expect(load(yaml("webhooks:", "  enabled: false", "  secret: whsec-0123456789")).warnings).toEqual([]);
    expect(load(yaml()).warnings).toEqual([]);
  });

  it("`topsync config check` prints the warning; `topsync run` logs it at start and serves no receiver", {
    timeout: 120_000,
  }, async () => {
    const created = await createPostgresDatabase();
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "topsync-hooks-"));
    const file = join(dir, "config.yaml");
    writeFileSync(
      file,
      `${[
        ...HEAD,
        "webhooks:",
        "  secret: whsec-0123456789",
        `database: { url: "${created.url}" }`,
        `server: { host: 127.0.0.1, port: ${port} }`,
        "intake: { enabled: false }",
      ].join("\n")}\n`,
    );
    const checked = await runCli(["-c", file, "config", "check"]);
    expect(checked.code).toBe(0);
    expect(checked.stderr).toContain(`warning: ${file}:8:3: webhooks: has settings but no \`enabled: true\``);
    expect(checked.stdout).toContain("1 warnings");

    const daemon = spawnDaemon(file, port);
    try {
      await waitReady(daemon);
      await waitFor(
        "the warning in the daemon's log",
        () => daemon.stderr().includes("starts no webhook receiver"),
        {
          daemons: [daemon],
        },
      );
      const answer = await fetch(`http://127.0.0.1:${port}/webhooks/reseller`, {
        method: "POST",
        body: "{}",
      });
      expect(answer.status).toBe(405);
      expect(daemon.stderr()).not.toContain("whsec-0123456789");
    } finally {
      daemon.child.kill("SIGTERM");
      await daemon.exited;
      await created.drop();
    }
  });
});
