// Email through SMTP submission with nodemailer (STARTTLS on smtp://…:587, TLS on smtps://…:465), plain text.
// nodemailer is loaded on the first send: most commands never mail.
import type { Transporter } from "nodemailer";
import type { ChannelConfig } from "../../config/index.js";
import { renderText } from "../templates.js";
import { type Channel, urlSecrets } from "./channel.js";

type EmailConfig = Extract<ChannelConfig, { type: "email" }>;

/** SMTP replies that say "try again later" (RFC 5321 4yz) are retried like any failure; the code is shown. */
function smtpError(error: unknown): string {
  const e = error as { responseCode?: number; code?: string; message?: string };
  return `${e.responseCode ? `SMTP ${e.responseCode}` : (e.code ?? "error")}: ${e.message ?? String(error)}`;
}

class SendTimedOut extends Error {
  readonly code = "ETIMEDOUT";
  constructor(ms: number) {
    super(`the SMTP server did not take the message within ${ms} ms (notifications.timeout)`);
  }
}

export function emailChannel(name: string, config: EmailConfig, timeoutMs: number): Channel {
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport(config.smtp, {
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      } as Record<string, unknown>),
    ));
  return {
    name,
    type: "email",
    paceMs: config.pace,
    secrets: urlSecrets(config.smtp),
    async send(message, ctx) {
      const { subject, text } = renderText(message, ctx);
      try {
        // The whole send within `timeout`, as the HTTP channels' calls: nodemailer's own timeouts are each a phase's
        // or the socket's idle time, so a server answering a line at a time held the send (and the notifier's round,
        // every channel's) as long as it kept talking. The abort closes the connection.
        const deadline = AbortSignal.timeout(timeoutMs);
        const info = (await (
          await open()
        )
          .sendMail({ from: config.from, to: config.to, subject, text, signal: deadline })
          .catch((error: unknown) => {
            throw deadline.aborted ? new SendTimedOut(timeoutMs) : error;
          })) as {
          response?: string;
          accepted?: unknown[];
          rejected?: unknown[];
        };
        const answer = String(info.response ?? "accepted");
        const refused = Array.isArray(info.rejected) ? info.rejected.length : 0;
        if (refused === 0) return { ok: true, answer };
        // The server took the message for the other recipients: sending it again would mail them again on every
        // retry until give_up_after. Delivered, with the refusal in its answer (notify list shows it).
        const error = `the server refused ${refused} recipient(s)`;
        if (Array.isArray(info.accepted) && info.accepted.length > 0)
          return { ok: true, answer: `${answer}; ${error}` };
        return { ok: false, answer, error };
      } catch (error) {
        return { ok: false, answer: "", error: smtpError(error) };
      }
    },
    async close() {
      const opened = transport;
      transport = undefined;
      if (opened) (await opened.catch(() => undefined))?.close();
    },
  };
}
