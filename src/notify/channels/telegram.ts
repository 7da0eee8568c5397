// Telegram's Bot API: POST <api_url>/bot<token>/sendMessage with {chat_id, text} (plain text, at most 4,096
// characters). Past its limits (1 a second per chat, 20 a minute per group) it answers
// {"ok":false,"error_code":429,"parameters":{"retry_after":N}}.
import type { ChannelConfig } from "../../config/index.js";
import { cutText } from "../../text/storable.js";
import { renderText } from "../templates.js";
import { type Channel, urlSecrets } from "./channel.js";
import { answerOf, ChannelHttp, networkError } from "./http.js";

type TelegramConfig = Extract<ChannelConfig, { type: "telegram" }>;

const MAX_TEXT = 4096;
/** A group or channel (a chat id starting with "-", or a channel's "@name") takes at most 20 messages a minute. */
const GROUP_PACE_MS = 3000;
const CHAT_PACE_MS = 1000;

interface TelegramAnswer {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

function parse(text: string): TelegramAnswer {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as TelegramAnswer) : {};
  } catch {
    return {};
  }
}

export function telegramChannel(name: string, config: TelegramConfig, timeoutMs: number): Channel {
  const base = config.api_url.replace(/\/+$/, "");
  const http = new ChannelHttp(`${base}/bot${config.token}/sendMessage`, timeoutMs);
  return {
    name,
    type: "telegram",
    paceMs: config.pace ?? (/^[-@]/.test(config.chat_id) ? GROUP_PACE_MS : CHAT_PACE_MS),
    secrets: [config.token, `bot${config.token}`, ...urlSecrets(`${base}/bot${config.token}/sendMessage`)],
    async send(message, ctx) {
      const rendered = renderText(message, ctx).text;
      const text = rendered.length > MAX_TEXT ? `${cutText(rendered, MAX_TEXT - 1)}…` : rendered;
      try {
        const answer = await http.post(
          JSON.stringify({ chat_id: config.chat_id, text, disable_web_page_preview: true }),
          {},
        );
        const body = parse(answer.text);
        const shown = answerOf(answer.status, answer.text);
        if (answer.status >= 200 && answer.status < 300 && body.ok === true)
          return { ok: true, answer: shown };
        const limited = answer.status === 429 || body.error_code === 429;
        const retryAfter = body.parameters?.retry_after;
        return {
          ok: false,
          answer: shown,
          error: limited
            ? "rate limited (429)"
            : `Telegram answered ${answer.status}${body.description ? `: ${body.description}` : ""}`,
          ...(limited
            ? {
                retryAfterMs:
                  typeof retryAfter === "number" ? retryAfter * 1000 : (answer.retryAfterMs ?? 1000),
              }
            : {}),
        };
      } catch (error) {
        return { ok: false, answer: "", error: networkError(error) };
      }
    },
    close: () => http.close(),
  };
}
