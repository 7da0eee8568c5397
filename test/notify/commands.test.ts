// `topsync notify list | flush | test` as an operator runs them, and a command run without the daemon saying
// that its notifications wait in the outbox. Email goes through a real SMTP server (smtp-server).
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase } from "../helpers/db.js";
import { freePort } from "../helpers/ports.js";
import { notificationsTo, SLACK_PATH } from "./helpers.js";

/** The subject and the plain-text body of a single-part mail as nodemailer writes it (RFC 2047 words, QP or base64). */
function simpleParser(raw: string): { subject: string; text: string } {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(headers)?.[1] ?? "";
  const words = (value: string) =>
    value.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, how: string, text: string) =>
      how.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : qp(text.replace(/_/g, " ")),
    );
  const body = rest.join("\n\n");
  const encoding = header("Content-Transfer-Encoding").toLowerCase();
  const text =
    encoding === "base64"
      ? Buffer.from(body, "base64").toString("utf8")
      : encoding === "quoted-printable"
        ? qp(body)
        : body;
  return { subject: words(header("Subject")).trim(), text: text.replace(/\r\n/g, "\n") };
}

function qp(text: string): string {
  const bytes: number[] = [];
  const flat = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < flat.length; i++) {
    if (flat[i] === "=" && /^[0-9A-F]{2}$/i.test(flat.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(flat.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(flat[i]!, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

interface Mail {
  from: string;
  to: string[];
  raw: string;
  user?: string;
}

let sandbox: Sandbox;
let drop: () => Promise<void>;
let url: string;
let smtp: SMTPServer;
let smtpPort: number;
const mails: Mail[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 4 });
  ({ url, drop } = await createPostgresDatabase());
  smtpPort = await freePort();
  smtp = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === "mailer" && auth.password === "smtp-secret-pass")
        callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(smtpPort, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await sandbox.close();
  await drop();
});

function config(extra: Record<string, unknown> = {}) {
  const notifications = notificationsTo(sandbox, extra) as { channels: Record<string, unknown> };
  notifications.channels.oncall = {
    type: "email",
    smtp: `smtp://mailer:smtp-secret-pass@127.0.0.1:${smtpPort}`,
    from: "topsync@example.com",
    to: ["ops@example.com", "oncall@example.com"],
  };
  return writeConfigFile(sandbox, url, { notifications }).file;
}

describe("topsync notify", () => {
  it("test sends a message through SMTP and prints the server's answer", async () => {
    const file = config();
    const result = await runCli(["-c", file, "notify", "test", "oncall"]);
    expect(result.stderr).not.toContain("smtp-secret-pass");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^oncall \(email\): delivered — 250 /);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      from: "topsync@example.com",
      to: ["ops@example.com", "oncall@example.com"],
    });
    expect(mails[0]!.user).toBe("mailer");
    const parsed = simpleParser(mails[0]!.raw);
    expect(parsed.subject).toBe("[topsync] topsync test message for channel oncall");
    expect(parsed.text).toContain("If you can read this, the channel works.");
  });

  it("test reports a channel's refusal and exits 1, without its secret", async () => {
    const file = config();
    sandbox.receivers.setFaults([{ kind: "slack", status: 500, times: 1 }]);
    const result = await runCli(["-c", file, "notify", "test", "ops-slack"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^ops-slack \(slack\): not delivered — Slack answered 500 — HTTP 500 internal_error/,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(SLACK_PATH);
    const unknown = await runCli(["-c", file, "notify", "test", "pager"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/no channel named "pager" under notifications.channels \(there are: /);
    // A name every object inherits is no channel either.
    const inherited = await runCli(["-c", file, "notify", "test", "__proto__"]);
    expect(inherited.code).toBe(64);
    expect(inherited.stderr).toMatch(/no channel named "__proto__" under notifications.channels/);
  });

  it("a run without the daemon leaves its notifications in the outbox and says so; flush delivers them once", async () => {
    const file = config({ rules: [{ on: ["in_doubt"], to: ["ops-slack", "oncall"] }] });
    sandbox.receivers.reset();
    mails.length = 0;
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const bought = await runCli([
      "-c",
      file,
      "buy",
      "--network",
      "MTN",
      "--plan",
      "102",
      "--phone",
      "08039990001",
      "--yes",
    ]);
    sandbox.setFaults({ endpoints: {} });
    expect(bought.stderr).toMatch(
      /1 notification from this command waits in the outbox: a running daemon \(topsync run\) delivers them, or run topsync notify flush/,
    );
    const listed = await runCli(["-c", file, "--json", "notify", "list"]);
    expect(listed.code).toBe(0);
    const entries = JSON.parse(listed.stdout) as Array<{ what: string; trigger: string; status: string }>;
    expect(entries).toEqual([
      expect.objectContaining({ what: "event", trigger: "in_doubt", status: "pending" }),
    ]);

    const flushed = await runCli(["-c", file, "notify", "flush"]);
    expect(flushed.code).toBe(0);
    expect(flushed.stdout).toBe("sent 2, failed 0\n");
    const again = await runCli(["-c", file, "notify", "flush"]);
    expect(again.stdout).toBe("sent 0, failed 0\n");
    expect(sandbox.receivers.received("slack")).toHaveLength(1);
    expect(mails).toHaveLength(1);
    const mail = simpleParser(mails[0]!.raw);
    expect(mail.subject).toMatch(/^\[topsync\] 1 purchase in_doubt, ₦305 at risk$/);
    expect(mail.text).toMatch(/#\d+ · MTN 1GB for 30 Days · 0803\*\*\*\*001 · ₦305/);
    expect(mail.text).not.toContain("08039990001");

    // The claim names this process beyond its pid: two flushes in containers (each pid 1) are two deliverers.
    const database = await openDatabase({ url, maxConnections: 1 });
    const claims = await rows<{ claimed_by: string }>(
      database.db,
      sql`select distinct claimed_by from notification_deliveries`,
    ).finally(() => database.close());
    expect(claims.map((c) => c.claimed_by)).toEqual([
      expect.stringMatching(/^notify-flush:[^:]+:\d+:[0-9a-f]{6}$/),
    ]);
    const table = await runCli(["-c", file, "notify", "list"]);
    expect(table.stdout).toMatch(/^WHAT +ID +TRIGGER +TO +STATUS/);
    expect(table.stdout).toMatch(/message +\d+ +in_doubt +oncall +sent +1 +1 /);
    expect(table.stdout).toMatch(/message +\d+ +in_doubt +ops-slack +sent +1 +1 .*HTTP 200 ok/);
  });

  it("keeps a token in a channel URL's query out of what a refusal echoes, in notify test and notify list", async () => {
    const token = "Qt0k3n-in-the-query+77";
    const query = `token=${encodeURIComponent(token)}&format=json`;
    const notifications = notificationsTo(sandbox, {
      rules: [{ on: ["in_doubt"], to: ["q-hook"] }],
      group_wait: "0s",
      give_up_after: "1s",
    }) as { channels: Record<string, unknown> };
    notifications.channels["q-hook"] = {
      type: "webhook",
      url: `${sandbox.receivers.url}/hooks/q?${query}`,
      secret: "whsec_query_test_secret",
    };
    const file = writeConfigFile(sandbox, url, { notifications }).file;
    // The receiver refuses, naming the token as it got it, decoded, and in the URL it was called at.
    const answer = JSON.stringify({
      error: `token ${token} revoked`,
      raw: encodeURIComponent(token),
      url: `/hooks/q?${query}`,
    });
    sandbox.receivers.setFaults([{ kind: "webhook", status: 401, answer, times: 3 }]);
    const tested = await runCli(["-c", file, "notify", "test", "q-hook"]);
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(/^q-hook \(webhook\): not delivered — the receiver answered 401/);
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    await runCli(["-c", file, "buy", "--network", "MTN", "--plan", "102", "--phone", "08039990002", "--yes"]);
    sandbox.setFaults({ endpoints: {} });
    await runCli(["-c", file, "notify", "flush", "--wait", "3s"]);
    const listed = await runCli(["-c", file, "--json", "notify", "list"]);
    expect(listed.stdout).toContain("token [redacted] revoked");
    const everything = [tested, listed].map((r) => `${r.stdout}${r.stderr}`).join("\n");
    for (const form of [token, encodeURIComponent(token), "Qt0k3n-in-the-query"])
      expect(everything).not.toContain(form);
  });

  it("refuses a --limit past what it can show and a --wait that is not a duration as usage errors", async () => {
    const file = config();
    for (const args of [
      ["notify", "list", "--limit", "99999999999999999999"],
      ["notify", "list", "--limit", "1e300"],
      ["notify", "flush", "--wait", "abc"],
      ["notify", "flush", "--wait", "-5s"],
    ]) {
      const result = await runCli(["-c", file, ...args]);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(64);
      expect(result.stderr).not.toContain("unexpected failure");
      expect(result.stderr).toMatch(/--(limit|wait) must be/);
    }
  });
});
