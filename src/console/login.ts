// The login page: a name and a password, posted with the page's Origin; nothing else is shown to someone who is
// not logged in.
import { html } from "./html.js";
import { page } from "./layout.js";

export function loginPage(base: string, readOnly: boolean, message?: string): string {
  return page(
    { base, readOnly },
    "Log in",
    html`<h1>Log in</h1>
${message ? html`<div class="notice error" role="alert">${message}</div>` : ""}
<form method="post" action="${base}/login" class="act" id="login">
<label for="user">Name</label><input type="text" id="user" name="user" autocomplete="username" required maxlength="64">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required maxlength="1024">
<p><button type="submit">Log in</button></p>
</form>`,
  );
}
