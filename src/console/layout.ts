// The page around every console page: the navigation, who is logged in, and the style sheet (served as a file,
// so the Content-Security-Policy allows no inline style or script at all).
import { REPORT_CSS } from "../report/render-html.js";
import type { ConsoleUserView } from "./access.js";
import { html, type Markup, toText } from "./html.js";

export const NAV = [
  ["", "Needs a person"],
  ["/purchases", "Purchases"],
  ["/plans", "Plans"],
  ["/jobs", "Jobs"],
  ["/websites", "Websites"],
  ["/report", "Report"],
] as const;

export interface PageFrame {
  base: string;
  user?: ConsoleUserView;
  /** The CSRF token of the session, for the logout form. */
  csrf?: string;
  readOnly: boolean;
  /** The nav entry shown as current. */
  current?: string;
}

export function page(frame: PageFrame, title: string, body: Markup): string {
  const nav = frame.user
    ? html`<nav aria-label="console"><ul>${NAV.map(
        ([path, label]) =>
          html`<li><a href="${frame.base}${path || "/"}"${path === frame.current ? html` aria-current="page"` : ""}>${label}</a></li>`,
      )}</ul>
      <form method="post" action="${frame.base}/logout" class="logout"><input type="hidden" name="_csrf" value="${frame.csrf ?? ""}">
      <span class="who">${frame.user.name} (${frame.user.role}${frame.readOnly ? ", read-only" : ""})</span>
      <button type="submit">Log out</button></form></nav>`
    : "";
  return `<!doctype html>\n${toText(html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} &middot; topsync console</title>
<link rel="stylesheet" href="${frame.base}/console.css">
</head>
<body>
<header><a class="brand" href="${frame.base}/">topsync console</a>${nav}</header>
<main>
${body}
</main>
</body>
</html>
`)}`;
}

export const CONSOLE_CSS = `${REPORT_CSS}
header { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 16px; padding: 0 0 10px; margin-bottom: 12px;
  border-bottom: 2px solid var(--line); }
header .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
nav { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 16px; flex: 1; }
nav ul { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; margin: 0; padding: 0; }
nav a { color: var(--bar); }
nav a[aria-current="page"] { font-weight: 700; color: var(--fg); text-decoration: none; }
nav, form.logout { min-width: 0; }
form.logout { margin-left: auto; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.who { color: var(--muted); font-size: 0.9em; overflow-wrap: anywhere; min-width: 0; }
main { max-width: 100%; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 8px; margin: 8px 0 16px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.card b { display: block; font-size: 1.3em; }
.card span { color: var(--muted); font-size: 0.9em; }
.item { border: 1px solid var(--line); border-left: 5px solid #c98a00; border-radius: 6px; padding: 8px 10px;
  margin: 8px 0; overflow-wrap: anywhere; }
.item.in_doubt { border-left-color: #c0392b; }
.item h3 { margin: 0 0 4px; font-size: 1em; }
.item p { margin: 2px 0; }
.muted { color: var(--muted); }
a.action, button { display: inline-block; padding: 6px 12px; border-radius: 4px; border: 1px solid var(--bar);
  background: var(--bar); color: #fff; font: inherit; text-decoration: none; cursor: pointer; }
button.secondary { background: #fff; color: var(--bar); }
button.danger { background: #c0392b; border-color: #c0392b; }
form.act { border: 1px solid var(--line); border-radius: 6px; padding: 10px; margin: 10px 0; max-width: 40em; }
form.act h3 { margin: 0 0 6px; font-size: 1em; }
label { display: block; margin: 6px 0 2px; font-weight: 600; }
input[type=text], input[type=password], input[type=search], input[type=date], select, textarea {
  width: 100%; max-width: 100%; padding: 6px; font: inherit; border: 1px solid #9aa4ae; border-radius: 4px; }
textarea { min-height: 3.5em; }
fieldset { border: 0; padding: 0; margin: 4px 0; }
fieldset label { display: inline; font-weight: normal; margin-right: 12px; }
form.search { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 6px 10px;
  align-items: end; margin: 8px 0 12px; }
form.search label { margin: 0; }
.notice { padding: 10px 12px; border-radius: 6px; border-left: 5px solid #2f6fb3; background: #eef3f9; margin: 8px 0; }
.notice.error { border-color: #c0392b; background: #fdecea; }
.notice.ok { border-color: #2e8540; background: #eaf6ec; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f3f5f7; padding: 8px; border-radius: 4px;
  font-size: 0.85em; max-height: 24em; overflow-y: auto; }
details { margin: 4px 0; }
.pager { margin: 10px 0; }
.placeholder { border: 1px dashed var(--line); padding: 4px 8px; color: var(--muted); font-size: 0.85em; }
@media (max-width: 600px) { form.logout { margin-left: 0; } }
`;
