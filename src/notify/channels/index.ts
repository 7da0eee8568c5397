// The configured channels, made once per deliverer.
import type { NotificationsConfig } from "../../config/index.js";
import type { Channel } from "./channel.js";
import { emailChannel } from "./email.js";
import { slackChannel } from "./slack.js";
import { telegramChannel } from "./telegram.js";
import { webhookChannel } from "./webhook.js";

export type { Channel, SendResult } from "./channel.js";

export function createChannels(config: NotificationsConfig): Map<string, Channel> {
  const channels = new Map<string, Channel>();
  for (const [name, channel] of Object.entries(config.channels)) {
    switch (channel.type) {
      case "slack":
        channels.set(name, slackChannel(name, channel, config.timeout));
        break;
      case "telegram":
        channels.set(name, telegramChannel(name, channel, config.timeout));
        break;
      case "webhook":
        channels.set(name, webhookChannel(name, channel, config.timeout));
        break;
      case "email":
        channels.set(name, emailChannel(name, channel, config.timeout));
        break;
    }
  }
  return channels;
}

/** Every secret of every channel, for redaction. */
export function channelSecrets(channels: Map<string, Channel>): string[] {
  return [...channels.values()].flatMap((channel) => channel.secrets);
}
