// The HTML of the example server's development pages: the front door and the widget demo. Plain strings, a <style>
// block and one same-origin script (copy buttons): no external script, font or image, so a strict CSP holds.

export interface Credential {
  label: string;
  /** The generated value, shown and copyable; absent when the operator set it (then `note` says where from). */
  value?: string;
  curl?: string;
  note?: string;
}

export interface ServiceCard {
  name: string;
  title: string;
  pages: Array<{ label: string; href: string }>;
  documents: Array<{ label: string; href: string; reference: string }>;
  credentials: Credential[];
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #fff; --code: #f6f8fa; --link: #0550ae; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9da7b3; --line: #30363d; --bg: #0d1117; --code: #161b22; --link: #79c0ff; } }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
a { color: var(--link); }
h1 { margin: 0 0 .25rem; font-size: 1.6rem; }
h2 { margin: 0 0 .5rem; font-size: 1.25rem; }
h3 { margin: 1rem 0 .25rem; font-size: 1rem; color: var(--muted); }
p.lead { margin: 0 0 1.5rem; color: var(--muted); }
section { border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 0 0 1rem; }
ul { margin: 0; padding-left: 1.25rem; }
.cred { margin: .5rem 0; }
.row { display: flex; gap: .5rem; align-items: flex-start; }
pre { flex: 1; margin: .25rem 0; padding: .5rem .75rem; background: var(--code); border-radius: 6px; overflow-x: auto; font: 13px/1.4 ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
button { font: inherit; font-size: .875rem; padding: .3rem .7rem; margin-top: .25rem; border: 1px solid var(--line); border-radius: 6px; background: var(--code); color: var(--fg); cursor: pointer; }
.note { color: var(--muted); }
`;

let copyIds = 0;
/** A value in a <pre> with a button that copies it (front-door.js). */
function copyable(value: string, label: string): string {
  const id = `copy-${++copyIds}`;
  return `<div class="row"><pre id="${id}">${esc(value)}</pre><button type="button" data-copy="${id}" aria-label="Copy ${esc(label)}">Copy</button></div>`;
}

function card(c: ServiceCard): string {
  const creds = c.credentials
    .map((k) =>
      k.value
        ? `<div class="cred"><strong>${esc(k.label)}</strong>${copyable(k.value, k.label)}${k.curl ? copyable(k.curl, `curl line for ${k.label}`) : ""}</div>`
        : `<div class="cred"><strong>${esc(k.label)}</strong>: <span class="note">${esc(k.note ?? "")}</span></div>`,
    )
    .join("");
  return `<section aria-labelledby="svc-${esc(c.name)}"><h2 id="svc-${esc(c.name)}">${esc(c.title)} <span class="note">(${esc(c.name)})</span></h2>
<h3>Pages</h3><ul>${c.pages.map((p) => `<li><a href="${esc(p.href)}">${esc(p.label)}</a></li>`).join("")}</ul>
<h3>OpenAPI</h3><ul>${c.documents
    .map((d) => `<li><a href="${esc(d.reference)}">${esc(d.label)}: interactive reference</a> · <a href="${esc(d.href)}">document</a></li>`)
    .join("")}</ul>
<h3>Credentials</h3>${creds}</section>`;
}

export function frontDoorHtml(o: { cards: ServiceCard[]; origin: string; storage: string; reference: string }): string {
  copyIds = 0;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>mountkit example server</title><style>${STYLE}</style><script src="/front-door.js" defer></script></head>
<body><main><h1>mountkit example server</h1>
<p class="lead">Development mode (storage: ${esc(o.storage)}). The credentials below were generated at start-up and are printed once on
the console; set <code>MOUNTKIT_ENV=production</code> and this page, and every generated credential, is gone.</p>
${o.cards.map(card).join("\n")}
<section aria-labelledby="ops"><h2 id="ops">Operations</h2><ul>
<li><a href="${esc(o.reference)}">API reference</a> (every document above)</li>
<li><a href="/healthz">/healthz</a>: the process answers</li>
<li><a href="/readyz">/readyz</a>: the database answers and its migrations are applied</li>
<li><a href="/metrics">/metrics</a>: Prometheus metrics (when on)</li></ul></section>
</main></body></html>`;
}

/** Copy buttons: the text of the element the button names goes to the clipboard. */
export const FRONT_DOOR_SCRIPT = `"use strict";
document.addEventListener("click", function (e) {
  var button = e.target instanceof Element ? e.target.closest("button[data-copy]") : null;
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source) return;
  var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(source.textContent).then(done, function () {});
  else { var range = document.createRange(); range.selectNodeContents(source); var sel = getSelection(); sel.removeAllRanges(); sel.addRange(range); }
});
`;

/** A shop page with the support widget, served from the API's own origin (so no CORS is needed). */
export function widgetDemoHtml(product: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Support widget demo</title><style>${STYLE}</style><script src="/api/conversations/widget.js" defer></script></head>
<body><main><h1>A shop</h1><p class="lead">This page embeds the support widget for product <code>${esc(product)}</code>:
open it with the button, write, and answer from the <a href="/agent/inbox/?product=${encodeURIComponent(product)}">agent inbox</a>.
<a href="/">Back to the front door</a>.</p></main>
<mountkit-support product="${esc(product)}" heading="Shop support"></mountkit-support></body></html>`;
}
