// Where messages link to: the console's public URL (`console.public_url`), when the config has one. Read
// tolerantly, so messages link as soon as the console's section exists and say nothing before.
import type { Config } from "../config/index.js";

export function consoleUrlOf(config: Config): string | undefined {
  const section = (config as { console?: { public_url?: unknown } }).console;
  const url = section?.public_url;
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : undefined;
}
