// A generic webhook: the message as JSON, signed as Stripe signs its webhooks — X-Topsync-Signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> with the channel's secret — so a receiver can check it
// came from topsync and is recent (README "Notifications" has the receiver's check).
import { createHmac } from "node:crypto";
import type { ChannelConfig } from "../../config/index.js";
import { renderWebhook } from "../templates.js";
import { type Channel, urlSecrets } from "./channel.js";
import { answerOf, ChannelHttp, networkError } from "./http.js";

type WebhookConfig = Extract<ChannelConfig, { type: "webhook" }>;

export const SIGNATURE_HEADER = "X-Topsync-Signature";

/** The header's value for `body` sent at `unixSeconds`. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

export function webhookChannel(name: string, config: WebhookConfig, timeoutMs: number): Channel {
  const http = new ChannelHttp(config.url, timeoutMs);
  return {
    name,
    type: "webhook",
    paceMs: config.pace,
    secrets: [config.secret, ...urlSecrets(config.url)],
    async send(message, ctx) {
      const body = JSON.stringify(renderWebhook(message, ctx));
      const signature = signatureHeader(config.secret, body, Math.floor(ctx.now.getTime() / 1000));
      try {
        const answer = await http.post(body, { [SIGNATURE_HEADER.toLowerCase()]: signature });
        const shown = answerOf(answer.status, answer.text);
        if (answer.status >= 200 && answer.status < 300) return { ok: true, answer: shown };
        return {
          ok: false,
          answer: shown,
          error: answer.status === 429 ? "rate limited (429)" : `the receiver answered ${answer.status}`,
          ...(answer.status === 429 ? { retryAfterMs: answer.retryAfterMs ?? 1000 } : {}),
        };
      } catch (error) {
        return { ok: false, answer: "", error: networkError(error) };
      }
    },
    close: () => http.close(),
  };
}
