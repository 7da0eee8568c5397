// Where messages link to: the console's public URL (`console.public_url`), when the config has one. Read
// tolerantly, so messages link as soon as the console's section exists and say nothing before.
import type { Config } from "../config/index.js";

/**
 * The console's address for links. A public_url naming only the site (`https://ops.example.com`) is where the
 * console's path is served from: the links go under `console.path` there — before, they went to
 * `https://ops.example.com/plans/…`, a page the daemon does not serve.
 */
export function consoleUrlOf(config: Config): string | undefined {
  const section = (config as { console?: { public_url?: unknown; path?: unknown } }).console;
  const url = section?.public_url;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const path = typeof section?.path === "string" ? section.path.replace(/\/+$/, "") : "";
  if (parsed.pathname.replace(/\/+$/, "") !== "" || path === "") return url;
  return `${parsed.origin}${path}`;
}
