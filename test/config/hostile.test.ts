import { execFileSync } from "node:child_process";
// A config written to hurt: alias bombs, huge inline lists, a key that cannot travel in a header, a key in the
// URL, recipients files that are not there. Each is refused with the line it is on (exit 78).
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, checkConfigFiles, loadConfig } from "../../src/config/index.js";
import { MAX_CONFIG_BYTES } from "../../src/config/load.js";
import { issues, load, yaml } from "./helpers.js";

/** Nine levels of nine aliases each: 9^9 (387 million) values if expanded, in about 450 bytes. */
function aliasBomb(): string[] {
  const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(",")}]`,
    );
  return ["log:", "  level: info", "x-bomb:", ...lines.map((l) => `  ${l}`), "server: *a8"];
}

describe("alias expansion is bounded", () => {
  it("refuses an alias bomb at the line that sets it off (expanded, it would never finish)", () => {
    const text = yaml(...aliasBomb());
    const error = (() => {
      try {
        load(text);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(78);
    // Counted where the values are used: the aliases of line 14 (a4: 9 × *a3) pass 10,000 values first.
    expect((error as ConfigError).issues.map((i) => `${i.line}: ${i.message}`)).toEqual([
      "14: aliases expand to more than 10000 values; write the values out or use fewer nested aliases",
    ]);
  });

  it("still reads aliases a real config uses", () => {
    const { config } = load(
      yaml(
        "purchases:",
        "  - name: a",
        "    plan: &plan { network: MTN, plan_id: '102' }",
        "    recipients: &staff ['08031234567', '08051234567']",
        "  - name: b",
        "    plan: *plan",
        "    recipients: *staff",
      ),
    );
    expect(config.purchases[1]?.recipients).toHaveLength(2);
  });
});

describe("inline recipients and the config file are bounded", () => {
  it("refuses more than 50,000 inline recipients, pointing to recipients_file", () => {
    const phones = Array.from({ length: 50_001 }, (_, i) => `"0803${String(i).padStart(7, "0")}"`);
    const text = yaml(
      "purchases:",
      "  - name: big",
      "    plan: { network: MTN, plan_id: '102' }",
      `    recipients: [${phones.join(",")}]`,
    );
    expect(issues(text)).toEqual([
      'config.yaml:10:17: purchases[0].recipients (job "big"): has 50001 recipients; at most 50,000 may be ' +
        "written in the config: put them in a recipients_file (a CSV with a phone column), which is streamed",
    ]);
  });

  it("refuses a config file larger than the limit before parsing it", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "topsync-hostile-"));
    const file = path.join(dir, "config.yaml");
    await writeFile(file, `${yaml()}# ${"x".repeat(MAX_CONFIG_BYTES)}\n`);
    const error = await loadConfig(file, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      /config file .+ is \d+ bytes, more than the 2097152 bytes a config may have; put long recipient lists in a recipients_file/,
    );
  });

  it("reads a pipe or device up to the limit, not further: /dev/zero is refused at once, a pipe still reads", async () => {
    // Before, /dev/zero (size 0 to stat) was read until the string limit: 626 MB and "Invalid string length".
    const error = await loadConfig("/dev/zero", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(
      "config file /dev/zero is more than the 2097152 bytes a config may have",
    );
    const dir = await mkdtemp(path.join(tmpdir(), "topsync-fifo-"));
    const fifo = path.join(dir, "config.yaml");
    execFileSync("mkfifo", [fifo]);
    const writing = writeFile(fifo, yaml());
    const { config } = await loadConfig(fifo, {});
    await writing;
    expect(config.reseller.api_key).toBe("sk-test-reseller-0042");
  });
});

describe("service keys and URLs", () => {
  it("refuses an api_key a header cannot carry, without echoing it", () => {
    const text = yaml().replace("sk-test-reseller-0042", "sk-tëst-reseller-0042");
    const found = issues(text);
    expect(found).toEqual([
      "config.yaml:3:12: reseller.api_key: must be printable ASCII without spaces (it is sent in an HTTP header); character 5 is not",
    ]);
    expect(found.join("\n")).not.toContain("reseller-0042");
  });

  it("refuses a key in base_url's query string, without echoing it", () => {
    const text = yaml().replace("http://127.0.0.1:4010", "http://127.0.0.1:4010/api?key=sk-in-url-77");
    const found = issues(text);
    expect(found).toEqual([
      "config.yaml:2:13: reseller.base_url: must not have a query string or fragment (?… or #…): topsync appends paths to it and would drop them; give the key as api_key",
    ]);
    expect(found.join("\n")).not.toContain("sk-in-url-77");
  });
});

describe("config check looks at every recipients_file", () => {
  async function configWith(files: string[]): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), "topsync-recipients-"));
    await writeFile(path.join(dir, "ok.csv"), "phone\n08031234567\n");
    await mkdir(path.join(dir, "folder.csv"));
    await writeFile(path.join(dir, "locked.csv"), "phone\n08031234567\n");
    await chmod(path.join(dir, "locked.csv"), 0o000);
    const jobs = files.flatMap((file, i) => [
      `  - name: job-${i}`,
      "    plan: { network: MTN, plan_id: '102' }",
      `    recipients_file: ${file}`,
    ]);
    const file = path.join(dir, "config.yaml");
    await writeFile(file, yaml("purchases:", ...jobs));
    return file;
  }

  it("names the job and line of a file that is missing or a directory", async () => {
    const file = await configWith(["ok.csv", "missing.csv", "folder.csv"]);
    const dir = path.dirname(file);
    const found = await checkConfigFiles(await loadConfig(file, {}));
    expect(found.map((i) => `${i.line}:${i.column}: ${i.path}: ${i.message}`)).toEqual([
      `13:22: purchases[1].recipients_file (job "job-1"): ${path.join(dir, "missing.csv")} does not exist`,
      `16:22: purchases[2].recipients_file (job "job-2"): ${path.join(dir, "folder.csv")} is a directory, not a file`,
    ]);
  });

  it.skipIf(process.getuid?.() === 0)("names a file that cannot be read", async () => {
    const file = await configWith(["locked.csv"]);
    const found = await checkConfigFiles(await loadConfig(file, {}));
    expect(found.map((i) => i.message)).toEqual([
      `${path.join(path.dirname(file), "locked.csv")} cannot be read (permission denied)`,
    ]);
  });
});
