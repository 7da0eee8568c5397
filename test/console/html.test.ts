// Markup by construction: a value is text unless `html` made it, and text is escaped, inert and phone-masked.
import { describe, expect, it } from "vitest";
import { html, toText, trustedMarkup } from "../../src/console/html.js";

describe("the console's markup", () => {
  it("escapes every interpolated value, in text and in attributes", () => {
    const evil = `<script>alert(1)</script>" onmouseover="x' \``;
    const out = toText(html`<p title="${evil}">${evil}</p>`);
    expect(out).not.toContain("<script>");
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;x&#39; &#96;");
  });

  it("keeps markup made by html as markup, and lists of it", () => {
    const items = ["a", "<b>"].map((x) => html`<li>${x}</li>`);
    expect(toText(html`<ul>${items}</ul>`)).toBe("<ul><li>a</li><li>&lt;b&gt;</li></ul>");
  });

  it("shows control characters and bidi overrides as escapes", () => {
    expect(toText(html`${"ref\u202Egnp.exe\x1b[31m"}`)).toBe("ref\\u202Egnp.exe\\x1B[31m");
  });

  it("masks every phone number, in any form, in text and in trusted markup", () => {
    const out = toText(html`<p>${"paid +234 803 123 4567 and 08051234567"}</p>`);
    expect(out).toBe("<p>paid 0803****567 and 0805****567</p>");
    expect(toText(trustedMarkup("<td>08031234567</td>"))).toBe("<td>0803****567</td>");
  });

  it("writes nothing for null, undefined and false", () => {
    expect(toText(html`[${null}${undefined}${false}]`)).toBe("[]");
  });
});
