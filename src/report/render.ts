// One entry for every report format: text, markdown and html draw the same document; json is the report's
// own stable shape (format_version "1", see README "Reports").

import type { ReportDocument } from "./document.js";
import { inertDocument } from "./inert-document.js";
import { renderHtml } from "./render-html.js";
import { renderMarkdown } from "./render-markdown.js";
import { renderText } from "./render-text.js";
import { renderJson } from "./table.js";

export const REPORT_FORMATS = ["text", "markdown", "json", "html"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const REPORT_FORMAT_VERSION = "1";

export function isReportFormat(value: string): value is ReportFormat {
  return (REPORT_FORMATS as readonly string[]).includes(value);
}

/** Renders lazily: only the document or only the JSON value is built, whichever the format needs. */
export function renderReport(
  format: ReportFormat,
  views: { document: () => ReportDocument; json: () => unknown },
): string {
  switch (format) {
    case "json":
      return renderJson(views.json());
    case "markdown":
      return renderMarkdown(inertDocument(views.document()));
    case "html":
      return renderHtml(inertDocument(views.document()));
    default:
      return renderText(inertDocument(views.document()));
  }
}
