// `topsync doctor`'s look at the console's settings: off, on without TLS, on behind TLS, an unreadable signing key,
// and approvers who could not sign in the console.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Config, parseConfig } from "../../src/config/index.js";
import { checkConsole } from "../../src/console/settings.js";
import { newKeyPair } from "../../src/plans/approvals.js";
import { yaml } from "../config/helpers.js";

const HASH = "scrypt$16384$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA==";
const dir = mkdtempSync(join(tmpdir(), "topsync-console-doctor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(...lines: string[]): Config {
  return parseConfig(yaml(...lines), "config.yaml", {}).config;
}

describe("doctor's console check", () => {
  it("passes a console that is off", () => {
    expect(checkConsole(config(), dir)).toEqual([
      { name: "console", status: "pass", message: "the console is off" },
    ]);
  });

  it("warns of a console without TLS in front, and passes one behind it", () => {
    const users = `users: { ada: { password_hash: "${HASH}", role: operator } }`;
    // Without public_url only on loopback (config refuses it elsewhere: test/config/sections.test.ts).
    const [plain] = checkConsole(
      config(`server: { host: 127.0.0.1 }`, `console: { enabled: true, ${users} }`),
      dir,
    );
    expect(plain).toMatchObject({ name: "console", status: "warn" });
    expect(plain?.message).toContain("console.public_url is not set");
    const [http] = checkConsole(
      config(`console: { enabled: true, public_url: "http://ops.example.com", ${users} }`),
      dir,
    );
    expect(http?.message).toContain("in the clear");
    expect(
      checkConsole(
        config(`console: { enabled: true, public_url: "https://ops.example.com/console", ${users} }`),
        dir,
      ),
    ).toEqual([
      {
        name: "console",
        status: "pass",
        message: "the console is on at https://ops.example.com/console with 1 users",
      },
    ]);
  });

  it("fails an unreadable signing key, and names approvers who could not sign", () => {
    const users = `users: { ada: { password_hash: "${HASH}", role: approver }, bola: { password_hash: "${HASH}", role: approver } }`;
    const missing = checkConsole(
      config(
        `console: { enabled: true, public_url: "https://ops.example.com", signing_key: nokey.pem, ${users} }`,
      ),
      dir,
    );
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ name: "console", status: "fail" });
    expect(missing[0]?.message).toContain(join(dir, "nokey.pem"));
    const signing = newKeyPair();
    writeFileSync(join(dir, "console.key"), signing.privatePem, { mode: 0o600 });
    const other = newKeyPair();
    const checked = checkConsole(
      config(
        `console: { enabled: true, public_url: "https://ops.example.com", signing_key: console.key, ${users} }`,
        `approvals: { approvers: { ada: "${signing.publicKey}", bola: "${other.publicKey}" } }`,
      ),
      dir,
    );
    expect(checked.map((c) => [c.name, c.status])).toEqual([
      ["console", "pass"],
      ["console approvers", "warn"],
    ]);
    expect(checked[1]?.message).toBe(
      "approvals.approvers.bola is not the public key of console.signing_key, so bola cannot approve in the console",
    );

    // bola's own key: she signs with it, not the shared one, and the config's key for her is its public key.
    writeFileSync(join(dir, "bola.key"), other.privatePem, { mode: 0o600 });
    const own = (key: string) =>
      `users: { ada: { password_hash: "${HASH}", role: approver }, bola: { password_hash: "${HASH}", role: approver, signing_key: ${key} } }`;
    const approvers = `approvals: { approvers: { ada: "${signing.publicKey}", bola: "${other.publicKey}" } }`;
    expect(
      checkConsole(
        config(
          `console: { enabled: true, public_url: "https://ops.example.com", signing_key: console.key, ${own("bola.key")} }`,
          approvers,
        ),
        dir,
      ).map((c) => [c.name, c.status]),
    ).toEqual([["console", "pass"]]);
    const unreadable = checkConsole(
      config(
        `console: { enabled: true, public_url: "https://ops.example.com", signing_key: console.key, ${own("nobola.pem")} }`,
        approvers,
      ),
      dir,
    );
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]).toMatchObject({ name: "console", status: "fail" });
    expect(unreadable[0]?.message).toContain(
      `console.users.bola.signing_key: cannot read the ed25519 private key ${join(dir, "nobola.pem")}`,
    );
  });
});
