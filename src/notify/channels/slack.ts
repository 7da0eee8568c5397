// Slack incoming webhooks: POST {text, blocks}; "ok" on success; 429 with Retry-After (seconds) past about one
// message a second per webhook.
import type { ChannelConfig } from "../../config/index.js";
import { renderSlack } from "../templates.js";
import { type Channel, urlSecrets } from "./channel.js";
import { answerOf, ChannelHttp, networkError } from "./http.js";

type SlackConfig = Extract<ChannelConfig, { type: "slack" }>;

export function slackChannel(name: string, config: SlackConfig, timeoutMs: number): Channel {
  const http = new ChannelHttp(config.url, timeoutMs);
  return {
    name,
    type: "slack",
    paceMs: config.pace,
    secrets: urlSecrets(config.url),
    async send(message, ctx) {
      try {
        const answer = await http.post(JSON.stringify(renderSlack(message, ctx)), {});
        const shown = answerOf(answer.status, answer.text);
        if (answer.status >= 200 && answer.status < 300) return { ok: true, answer: shown };
        return {
          ok: false,
          answer: shown,
          error: answer.status === 429 ? "rate limited (429)" : `Slack answered ${answer.status}`,
          ...(answer.status === 429 ? { retryAfterMs: answer.retryAfterMs ?? 1000 } : {}),
        };
      } catch (error) {
        return { ok: false, answer: "", error: networkError(error) };
      }
    },
    close: () => http.close(),
  };
}
