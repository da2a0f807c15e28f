// The catalogue's styles, inside its shadow root. Themable through CSS custom properties on the element;
// colours chosen for WCAG AA contrast on their backgrounds.
export const STYLES = `
:host {
  --mk-accent: #1d4ed8;
  --mk-accent-fg: #ffffff;
  --mk-bg: #ffffff;
  --mk-fg: #1f2937;
  --mk-muted: #4b5563;
  --mk-border: #d1d5db;
  --mk-surface: #f3f4f6;
  --mk-danger: #b91c1c;
  --mk-warn: #92400e;
  --mk-ok: #166534;
  --mk-radius: 8px;
  --mk-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --mk-mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  display: block;
  color: var(--mk-fg);
  background: var(--mk-bg);
  font: 15px/1.5 var(--mk-font);
  min-height: 100vh;
}
* { box-sizing: border-box; }
a { color: var(--mk-accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible,
summary:focus-visible, [tabindex]:focus-visible { outline: 3px solid var(--mk-accent); outline-offset: 2px; }
code, pre, textarea { font-family: var(--mk-mono); font-size: 0.92em; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; padding: 12px 24px; border-bottom: 1px solid var(--mk-border); background: var(--mk-surface); }
header h1 { font-size: 1.2rem; margin: 0; }
nav ul { display: flex; gap: 4px; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
nav a { display: inline-block; padding: 6px 12px; border-radius: var(--mk-radius); text-decoration: none; color: var(--mk-fg); }
nav a[aria-current="page"] { background: var(--mk-accent); color: var(--mk-accent-fg); }
main { padding: 16px 24px 48px; max-width: 1200px; margin: 0 auto; }
h2 { font-size: 1.4rem; margin: 8px 0 12px; }
h3 { font-size: 1.1rem; margin: 20px 0 8px; }
h4, h5 { margin: 12px 0 6px; font-size: 1rem; }
.muted { color: var(--mk-muted); }
.desc { margin: 4px 0; color: var(--mk-muted); white-space: pre-line; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.crumbs { margin: 0 0 4px; }
.cards { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--mk-border); border-radius: var(--mk-radius); padding: 12px 16px; }
.card h3 { margin: 0 0 4px; }
.links { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 8px 0 0; padding: 0; list-style: none; }
form.search { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 8px 12px; align-items: end; margin-bottom: 12px; }
label { display: flex; flex-direction: column; gap: 2px; font-weight: 600; font-size: 0.9rem; }
input, select, textarea { font: inherit; font-weight: 400; color: var(--mk-fg); background: var(--mk-bg); border: 1px solid #6b7280; border-radius: 6px; padding: 6px 8px; min-width: 0; width: 100%; }
textarea { min-height: 14rem; resize: vertical; font-family: var(--mk-mono); font-size: 0.9rem; }
button { font: inherit; cursor: pointer; border-radius: 6px; padding: 7px 14px; border: 1px solid var(--mk-accent); background: var(--mk-accent); color: var(--mk-accent-fg); }
button.secondary { background: var(--mk-bg); color: var(--mk-accent); }
button.tag { padding: 1px 8px; font-size: 0.85rem; border-radius: 999px; background: #e0e7ff; color: #1e3a8a; border-color: #c7d2fe; }
.tags { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; margin: 6px 0; }
.badge.derived { border-style: dashed; }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 0 0 8px; }
.entries { list-style: none; padding: 0; margin: 0; }
.entries > li { border-bottom: 1px solid var(--mk-border); padding: 10px 0; }
.entries h3 { margin: 0; font-size: 1.05rem; }
.clamp { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; background: var(--mk-surface); border: 1px solid var(--mk-border); font-size: 0.85rem; }
.method { display: inline-block; min-width: 4.2em; text-align: center; padding: 1px 6px; border-radius: 4px; font: 700 0.8rem var(--mk-mono); background: #e5e7eb; color: #111827; }
.m-get { background: #dbeafe; color: #1e3a8a; }
.m-post { background: #dcfce7; color: #14532d; }
.m-put { background: #fef3c7; color: #78350f; }
.m-patch { background: #ede9fe; color: #4c1d95; }
.m-delete { background: #fee2e2; color: #7f1d1d; }
.controls { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 8px 12px; align-items: end; margin: 8px 0; }
.count { margin: 4px 0 8px; color: var(--mk-muted); }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--mk-border); }
th { background: var(--mk-surface); white-space: nowrap; }
th button { background: none; border: 0; color: var(--mk-fg); font-weight: 700; padding: 2px 4px; }
th button::after { content: " ↕"; color: var(--mk-muted); }
th[aria-sort="ascending"] button::after { content: " ▲"; color: var(--mk-fg); }
th[aria-sort="descending"] button::after { content: " ▼"; color: var(--mk-fg); }
td.path, td.opid { font-family: var(--mk-mono); font-size: 0.88rem; overflow-wrap: break-word; }
table.ops td.path { min-width: 14rem; }
table.ops td.summary { min-width: 12rem; }
.op { border: 1px solid var(--mk-border); border-radius: var(--mk-radius); margin: 6px 0; }
.op > summary { padding: 8px 12px; cursor: pointer; overflow-wrap: anywhere; }
.op-body { padding: 4px 12px 12px; border-top: 1px solid var(--mk-border); }
.op-summary { color: var(--mk-fg); }
.lock { color: var(--mk-warn); font-size: 0.85rem; }
.schema { margin: 2px 0 2px 0; }
.props { list-style: none; margin: 2px 0; padding-left: 16px; border-left: 2px solid var(--mk-border); }
.props > li { margin: 4px 0; }
.prop { font-weight: 700; }
.req { color: var(--mk-danger); font-size: 0.85rem; }
.facts { color: var(--mk-muted); font-size: 0.88rem; margin-left: 6px; }
.ref { color: #5b21b6; }
.responses { list-style: none; padding: 0; }
.status { font-weight: 700; }
.s2 { color: var(--mk-ok); }
.s4, .s5 { color: var(--mk-danger); }
pre { background: var(--mk-surface); border: 1px solid var(--mk-border); border-radius: 6px; padding: 8px; overflow: auto; max-height: 28rem; }
.raw { margin-top: 16px; }
.box { border: 1px solid var(--mk-border); border-radius: var(--mk-radius); padding: 12px 16px; margin: 12px 0; }
.box.ok { border-color: var(--mk-ok); border-left-width: 6px; }
.box.bad { border-color: var(--mk-danger); border-left-width: 6px; }
.alert { border: 1px solid var(--mk-danger); border-left-width: 6px; border-radius: var(--mk-radius); padding: 10px 14px; color: var(--mk-danger); margin: 12px 0; }
.issues { padding-left: 1.4em; }
.issues > li { margin: 10px 0; }
.pointer { font-weight: 700; overflow-wrap: anywhere; background: #fef3c7; color: #78350f; padding: 0 4px; border-radius: 4px; }
.issue-error .pointer { background: #fee2e2; color: #7f1d1d; }
.pos { color: var(--mk-muted); font-size: 0.88rem; margin-left: 6px; }
.excerpt { margin: 4px 0 0; font-size: 0.85rem; max-height: 12rem; }
.excerpt mark { background: #fde68a; color: #111827; }
.validate-forms { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 16px 24px; }
.validate-forms form { display: flex; flex-direction: column; gap: 8px; align-items: flex-start; }
.validate-forms label { align-self: stretch; }
@media (max-width: 640px) {
  header { padding: 10px 12px; }
  main { padding: 12px 12px 40px; }
  .controls, .validate-forms { grid-template-columns: 1fr; }
  th, td { padding: 5px 6px; }
  table.ops td.path { min-width: 10rem; }
}
`;
