// The widget's stylesheet, scoped by its shadow root; hosts theme it through the custom properties below.
export const STYLES = `
:host {
  --mk-accent: #2f5bea;
  --mk-accent-fg: #ffffff;
  --mk-bg: #ffffff;
  --mk-fg: #1c2230;
  --mk-muted: #555e6e;
  --mk-border: #d5d9e0;
  --mk-customer-bg: #e8eefc;
  --mk-agent-bg: #f1f2f4;
  --mk-radius: 12px;
  --mk-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --mk-z: 2147483000;
  all: initial;
  font-family: var(--mk-font);
  color: var(--mk-fg);
}
*, *::before, *::after { box-sizing: border-box; }
button, textarea, input { font: inherit; color: inherit; }
button { cursor: pointer; }
button:disabled, textarea:disabled { opacity: .55; cursor: not-allowed; }
:focus-visible { outline: 3px solid var(--mk-accent); outline-offset: 2px; }
.launcher {
  position: fixed; right: 16px; bottom: 16px; z-index: var(--mk-z);
  border: 0; border-radius: 999px; padding: 12px 18px;
  background: var(--mk-accent); color: var(--mk-accent-fg); font-weight: 600;
  box-shadow: 0 4px 14px rgba(0,0,0,.2);
}
.panel {
  position: fixed; right: 16px; bottom: 72px; z-index: var(--mk-z);
  width: min(380px, calc(100vw - 16px)); height: min(560px, calc(100vh - 96px));
  display: flex; flex-direction: column;
  background: var(--mk-bg); border: 1px solid var(--mk-border); border-radius: var(--mk-radius);
  box-shadow: 0 8px 28px rgba(0,0,0,.18); overflow: hidden;
}
.panel[hidden] { display: none; }
@media (max-width: 420px) {
  .panel { right: 8px; left: 8px; bottom: 68px; width: auto; height: calc(100vh - 84px); }
}
header { display: flex; align-items: center; gap: 8px; padding: 10px 12px; border-bottom: 1px solid var(--mk-border); }
header h2 { flex: 1; margin: 0; font-size: 1rem; }
.icon { border: 0; background: transparent; padding: 6px 8px; border-radius: 6px; min-width: 32px; min-height: 32px; }
.icon:hover { background: var(--mk-agent-bg); }
.body { flex: 1; overflow-y: auto; padding: 12px; }
.list { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; }
.list button {
  width: 100%; text-align: left; border: 1px solid var(--mk-border); border-radius: 8px; padding: 10px;
  background: var(--mk-bg); display: grid; gap: 4px;
}
.more { margin-top: 8px; width: 100%; border: 1px dashed var(--mk-border); border-radius: 8px; padding: 8px; background: transparent; }
.subject { font-weight: 600; overflow-wrap: anywhere; }
.meta { color: var(--mk-muted); font-size: .85rem; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: .78rem; font-weight: 600; border: 1px solid currentColor; }
.badge.open { color: #1d6b36; }
.badge.waiting { color: #8a4b00; }
.badge.resolved { color: #1f4fbf; }
.badge.closed { color: #555e6e; }
.thread { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; }
.msg { max-width: 85%; padding: 8px 10px; border-radius: 10px; background: var(--mk-agent-bg); white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.customer { margin-left: auto; background: var(--mk-customer-bg); }
.msg .meta { display: block; margin-top: 4px; }
.msg.failed { border: 1px solid #b3261e; }
.empty, .notice { color: var(--mk-muted); margin: 8px 0; }
.error { color: #b3261e; margin: 8px 0; }
form { display: grid; gap: 8px; padding: 10px 12px; border-top: 1px solid var(--mk-border); }
label { font-size: .85rem; color: var(--mk-muted); }
textarea, input[type="text"] { width: 100%; border: 1px solid var(--mk-border); border-radius: 8px; padding: 8px; background: var(--mk-bg); resize: vertical; }
.row { display: flex; gap: 8px; flex-wrap: wrap; justify-content: flex-end; }
.primary { border: 0; border-radius: 8px; padding: 8px 14px; background: var(--mk-accent); color: var(--mk-accent-fg); font-weight: 600; }
.secondary { border: 1px solid var(--mk-border); border-radius: 8px; padding: 8px 12px; background: var(--mk-bg); }
.files { list-style: none; margin: 6px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; white-space: normal; }
.file a { color: var(--mk-accent); overflow-wrap: anywhere; }
.file .size { color: var(--mk-muted); font-size: .85rem; }
.file img { display: block; max-width: 160px; max-height: 120px; width: auto; height: auto; object-fit: contain; border-radius: 6px; border: 1px solid var(--mk-border); background: var(--mk-bg); }
.chips { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.chips[hidden] { display: none; }
.chip { display: flex; align-items: center; gap: 6px; max-width: 100%; border: 1px solid var(--mk-border); border-radius: 999px; padding: 2px 4px 2px 10px; font-size: .85rem; }
.chip .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 160px; }
.chip progress { width: 56px; }
.chip .icon { min-width: 24px; min-height: 24px; padding: 2px 6px; }
.drop { outline: 2px dashed var(--mk-accent); outline-offset: -4px; }
.rating { margin-top: 12px; border-top: 1px solid var(--mk-border); }
.rating[hidden], .rating [hidden] { display: none; }
.rating form { padding: 10px 0 0; border-top: 0; }
.rating fieldset { border: 0; margin: 0; padding: 0; }
.rating legend { font-weight: 600; padding: 0; margin-bottom: 4px; }
.stars { display: flex; gap: 4px; }
.star { position: relative; font-size: 1.6rem; line-height: 1; color: var(--mk-muted); cursor: pointer; padding: 2px; border-radius: 6px; }
.star.on { color: #8a4b00; }
.star-input { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
.star:has(.star-input:focus-visible) { outline: 3px solid var(--mk-accent); outline-offset: 1px; }
.rated p { margin: 10px 0 6px; }
.rated .quote { border-left: 3px solid var(--mk-border); padding-left: 8px; color: var(--mk-muted); white-space: pre-wrap; overflow-wrap: anywhere; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
