// The explorer's stylesheet, scoped by its shadow root; hosts theme it through the custom properties below.
export const STYLES = `
:host {
  --mk-accent: #2f5bea;
  --mk-accent-fg: #ffffff;
  --mk-bg: #ffffff;
  --mk-fg: #1c2230;
  --mk-muted: #555e6e;
  --mk-border: #d5d9e0;
  --mk-panel: #f6f7f9;
  --mk-valid: #1d6b36;
  --mk-danger: #b3261e;
  --mk-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  display: block;
  font-family: var(--mk-font);
  color: var(--mk-fg);
  background: var(--mk-bg);
}
*, *::before, *::after { box-sizing: border-box; }
button, input { font: inherit; color: inherit; }
button { cursor: pointer; border: 0; border-radius: 8px; padding: 8px 14px; background: var(--mk-accent); color: var(--mk-accent-fg); font-weight: 600; }
button.secondary { background: var(--mk-bg); color: var(--mk-fg); border: 1px solid var(--mk-border); }
button.small { padding: 4px 10px; font-size: .85rem; }
button.danger { background: var(--mk-danger); }
[hidden] { display: none !important; }
:focus-visible { outline: 3px solid var(--mk-accent); outline-offset: 2px; }
.app { max-width: 1400px; margin: 0 auto; padding: 12px 16px 32px; }
header { display: flex; align-items: center; gap: 12px; border-bottom: 1px solid var(--mk-border); padding-bottom: 8px; }
h1 { flex: 1; margin: 0; font-size: 1.35rem; }
h2 { margin: 0 0 8px; font-size: 1.1rem; }
h3 { margin: 12px 0 6px; font-size: .95rem; }
.status, .alert { margin: 8px 0; min-height: 1.2em; }
.alert { color: var(--mk-danger); font-weight: 600; }
.alert:empty { display: none; }
.meta { color: var(--mk-muted); font-size: .85rem; overflow-wrap: anywhere; }
.row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.row.spread { justify-content: space-between; }
.row input[type="password"], .row input[type="text"], .row input[type="search"] { flex: 1; min-width: 0; }
input[type="password"], input[type="text"], input[type="search"] { border: 1px solid var(--mk-border); border-radius: 8px; padding: 8px 10px; background: var(--mk-bg); }
label { font-weight: 600; display: block; margin-bottom: 4px; }
.check { display: flex; gap: 6px; align-items: center; margin-top: 6px; }
.check label { font-weight: normal; margin: 0; }
.signin { max-width: 520px; margin: 24px 0; display: grid; gap: 6px; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; margin-top: 8px; }
section { background: var(--mk-panel); border: 1px solid var(--mk-border); border-radius: 12px; padding: 12px; min-width: 0; }
.side { display: grid; gap: 16px; align-content: start; min-width: 0; }
.sliders { display: grid; grid-template-columns: max-content minmax(0, 1fr) max-content; gap: 6px 10px; align-items: center; }
.sliders label { margin: 0; }
.sliders input { width: 100%; accent-color: var(--mk-accent); }
output { font-variant-numeric: tabular-nums; font-size: .9rem; }
.graph { height: 420px; margin-top: 10px; background: var(--mk-bg); border: 1px solid var(--mk-border); border-radius: 8px; }
.facts, .rows { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
ol.facts { list-style: decimal inside; }
.fact, .episode { background: var(--mk-bg); border: 1px solid var(--mk-border); border-radius: 8px; padding: 8px 10px; display: grid; gap: 4px; justify-items: start; }
.fact.valid { border-left: 4px solid var(--mk-valid); }
.fact.ended { border-left: 4px dashed var(--mk-muted); }
.fact-text, .episode-text { overflow-wrap: anywhere; }
.reason { font-style: italic; }
.invalidate { width: 100%; }
.chips { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.chip { background: var(--mk-bg); color: var(--mk-fg); border: 1px solid var(--mk-border); padding: 4px 10px; border-radius: 999px; font-weight: normal; }
.chip[aria-pressed="true"] { background: var(--mk-accent); color: var(--mk-accent-fg); border-color: var(--mk-accent); }
.badge { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: .78rem; font-weight: 600; border: 1px solid currentColor; }
.badge.done { color: var(--mk-valid); }
.badge.queued, .badge.processing { color: #8a4b00; }
.badge.failed { color: var(--mk-danger); }
.rows { max-height: 320px; overflow-y: auto; }
.context { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--mk-bg); border: 1px solid var(--mk-border); border-radius: 8px; padding: 8px; margin: 0; font-size: .85rem; max-height: 240px; overflow-y: auto; }
.markdown { background: var(--mk-bg); border-radius: 8px; margin-top: 8px; overflow-wrap: anywhere; }
.markdown:empty { display: none; }
.markdown :is(h1, h2, h3) { font-size: 1rem; }
.markdown { padding: 0 10px; border: 1px solid var(--mk-border); }
details { margin-top: 10px; }
summary { cursor: pointer; font-weight: 600; }
@media (max-width: 820px) {
  main { grid-template-columns: minmax(0, 1fr); }
  .graph { height: 300px; }
  .sliders { grid-template-columns: minmax(0, 1fr); }
  .app { padding: 8px 10px 24px; }
}
`;
