// Markup by construction: `html` is a tagged template whose every interpolated value is text unless it is
// markup made by `html` itself. Text is made inert (control characters and bidi marks as visible escapes), every
// phone number in it masked, then escaped for HTML — so no page can show a provider's markup, reorder a line with a
// bidi override, or show a phone number in full, whatever a handler forgets.
import { maskPhonesIn } from "../log/mask.js";
import { inertLines } from "../text/inert.js";

const MARKUP = Symbol("markup");

export interface Markup {
  readonly [MARKUP]: true;
  readonly text: string;
}

type Value = Markup | string | number | boolean | null | undefined | readonly Value[];

function markup(text: string): Markup {
  return { [MARKUP]: true, text };
}

function isMarkup(value: unknown): value is Markup {
  return typeof value === "object" && value !== null && MARKUP in value;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text from anywhere, as HTML text or an attribute value: inert, phones masked, escaped. */
export function escapeText(text: string): string {
  return maskPhonesIn(inertLines(text)).replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  if (isMarkup(value)) return value.text;
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return markup(out);
}

/**
 * Markup that is not text from outside: a document the report renderers made (they escape every value
 * themselves, and their text is made inert before). Phone numbers in it are masked here too.
 */
export function trustedMarkup(text: string): Markup {
  return markup(maskPhonesIn(text));
}

export function toText(value: Markup): string {
  return value.text;
}
