// The inbox's stylesheet, scoped by its shadow root; hosts theme it through the custom properties below.
export const STYLES = `
:host {
  --mk-accent: #2f5bea;
  --mk-accent-fg: #ffffff;
  --mk-bg: #ffffff;
  --mk-fg: #1c2230;
  --mk-muted: #4d5666;
  --mk-border: #d5d9e0;
  --mk-panel: #f6f7f9;
  --mk-customer-bg: #f1f2f4;
  --mk-agent-bg: #e8eefc;
  --mk-note-bg: #fff8db;
  --mk-note-border: #8a6d00;
  --mk-danger: #b42318;
  --mk-radius: 10px;
  --mk-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  display: block; min-height: 100vh;
  font-family: var(--mk-font); color: var(--mk-fg); background: var(--mk-bg);
}
*, *::before, *::after { box-sizing: border-box; }
button, textarea, input, select { font: inherit; color: inherit; }
button { cursor: pointer; border: 1px solid var(--mk-border); background: var(--mk-bg); border-radius: 8px; padding: 6px 12px; }
button.primary { background: var(--mk-accent); color: var(--mk-accent-fg); border-color: var(--mk-accent); font-weight: 600; }
button:disabled { opacity: .55; cursor: not-allowed; }
input, select, textarea { border: 1px solid var(--mk-muted); border-radius: 8px; padding: 6px 8px; background: var(--mk-bg); min-width: 0; }
:focus-visible { outline: 3px solid var(--mk-accent); outline-offset: 2px; }
h1, h2 { margin: 0; }
h1 { font-size: 1.15rem; }
h2 { font-size: 1.1rem; overflow-wrap: anywhere; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.muted { color: var(--mk-muted); font-size: .85rem; }
.error { color: var(--mk-danger); margin: 0; }
.error:empty { display: none; }

.signin { max-width: 380px; margin: 10vh auto; padding: 24px; border: 1px solid var(--mk-border); border-radius: var(--mk-radius); }
.signin form, .field { display: flex; flex-direction: column; gap: 4px; }
.signin form { gap: 12px; }

.top { display: flex; align-items: center; gap: 12px; padding: 10px 16px; border-bottom: 1px solid var(--mk-border); flex-wrap: wrap; }
.top .grow { flex: 1; }
.live { font-size: .85rem; color: var(--mk-muted); }
.live[data-up="true"]::before { content: "● "; color: #1a7f37; }
.live[data-up="false"]::before { content: "● "; color: var(--mk-danger); }

.layout { display: grid; grid-template-columns: minmax(280px, 380px) 1fr; height: calc(100vh - 56px); }
.list { border-right: 1px solid var(--mk-border); display: flex; flex-direction: column; min-height: 0; background: var(--mk-panel); }
.filters { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; padding: 12px; border-bottom: 1px solid var(--mk-border); }
.filters .wide { grid-column: 1 / -1; }
.filters > .field { min-width: 0; }
.field > input, .field > select, .field > textarea { width: 100%; }
.filters label { font-size: .8rem; color: var(--mk-muted); }
.items { list-style: none; margin: 0; padding: 0; overflow-y: auto; flex: 1; }
.items li + li { border-top: 1px solid var(--mk-border); }
.item { display: block; width: 100%; text-align: left; border: 0; border-radius: 0; padding: 10px 12px; background: transparent; }
.item[aria-current="true"] { background: var(--mk-agent-bg); box-shadow: inset 3px 0 var(--mk-accent); }
.item .subject { font-weight: 600; display: block; overflow-wrap: anywhere; }
.item .meta { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 4px; align-items: center; }
.badge { display: inline-block; font-size: .75rem; padding: 1px 8px; border-radius: 999px; border: 1px solid currentColor; }
.badge.new, .badge.waiting-for-agent { color: #8a4b00; }
.badge.waiting-for-customer { color: #1d4ed8; }
.badge.resolved { color: #1a7f37; }
.badge.closed { color: var(--mk-muted); }
.tag { font-size: .75rem; background: var(--mk-bg); border: 1px solid var(--mk-border); border-radius: 4px; padding: 0 6px; }
.empty { padding: 16px; }

.thread { display: flex; flex-direction: column; min-height: 0; min-width: 0; }
.thread-head { padding: 12px 16px; border-bottom: 1px solid var(--mk-border); display: flex; flex-direction: column; gap: 8px; }
.thread-head .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.thread-head .row > * { min-width: 0; overflow-wrap: anywhere; }
.controls { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-end; }
.controls .field { flex: 1 1 160px; }
.controls .inline { display: flex; gap: 6px; flex-wrap: wrap; }
.controls .inline input { flex: 1 1 120px; }
.messages { list-style: none; margin: 0; padding: 16px; overflow-y: auto; flex: 1; display: flex; flex-direction: column; gap: 10px; }
.msg { max-width: 80%; padding: 8px 12px; border-radius: var(--mk-radius); background: var(--mk-customer-bg); align-self: flex-start; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.agent { background: var(--mk-agent-bg); align-self: flex-end; }
.msg .who { font-size: .75rem; color: var(--mk-muted); display: block; margin-bottom: 2px; white-space: normal; }
.reply { display: flex; gap: 8px; padding: 12px 16px; border-top: 1px solid var(--mk-border); align-items: flex-end; }
.reply { flex-wrap: wrap; }
.reply > .field { flex: 1 1 240px; min-width: 0; }
.reply .actions { display: flex; flex-direction: column; gap: 6px; }
.reply .inline { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; justify-content: space-between; }
.reply .inline > * { min-width: 0; max-width: 100%; }
.msg.note { background: var(--mk-note-bg); border: 1px dashed var(--mk-note-border); align-self: stretch; max-width: none; }
.canned { list-style: none; margin: 0; padding: 4px; border: 1px solid var(--mk-border); border-radius: 8px; background: var(--mk-bg); max-height: 14em; overflow-y: auto; }
.canned[hidden] { display: none; }
.canned li { padding: 4px 8px; border-radius: 6px; cursor: pointer; }
.canned li[aria-selected="true"] { background: var(--mk-agent-bg); outline: 2px solid var(--mk-accent); }
.reply .field { flex: 1; }
.reply textarea { resize: vertical; min-height: 3.2em; }
.files { list-style: none; margin: 6px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 8px; white-space: normal; }
.file a { color: var(--mk-accent); overflow-wrap: anywhere; }
.file .thumb { padding: 0; border-radius: 6px; background: var(--mk-bg); line-height: 0; max-width: 100%; }
.file img { display: block; max-width: 200px; max-height: 150px; width: auto; height: auto; object-fit: contain; border-radius: 6px; }
.file img:not([src]) { width: 80px; height: 60px; background: var(--mk-panel); }
.chips { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.chips[hidden] { display: none; }
.chip { display: flex; align-items: center; gap: 6px; max-width: 100%; border: 1px solid var(--mk-border); border-radius: 999px; padding: 2px 4px 2px 10px; font-size: .85rem; }
.chip .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 200px; }
.chip progress { width: 64px; }
.chip .icon { padding: 0 6px; border: 0; }
.drop { outline: 2px dashed var(--mk-accent); outline-offset: -4px; }
.lightbox { max-width: 95vw; max-height: 95vh; padding: 12px; border: 1px solid var(--mk-border); border-radius: var(--mk-radius); }
.lightbox::backdrop { background: rgba(0,0,0,.6); }
.lightbox img { display: block; max-width: calc(95vw - 40px); max-height: calc(95vh - 90px); margin-bottom: 8px; }
.lightbox .row { display: flex; gap: 12px; align-items: center; justify-content: space-between; flex-wrap: wrap; }
.rating { display: flex; flex-wrap: wrap; gap: 4px 6px; align-items: baseline; white-space: normal; overflow-wrap: anywhere; }
.stars { color: #9a6700; letter-spacing: 1px; }
.rating .comment, .ratings .comment { display: block; flex-basis: 100%; font-style: italic; }
.ratings { width: min(640px, 95vw); max-height: 90vh; padding: 12px 16px; border: 1px solid var(--mk-border); border-radius: var(--mk-radius); }
.ratings::backdrop { background: rgba(0,0,0,.4); }
.ratings .row { display: flex; gap: 8px; align-items: center; }
.ratings .grow { flex: 1; }
.ratings .bars { list-style: none; margin: 4px 0 8px; padding: 0; display: grid; gap: 2px; }
.ratings .bars li { display: grid; grid-template-columns: 3em 1fr 3em; gap: 8px; align-items: center; }
.ratings .bars progress { width: 100%; }
.rated { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
.rated .item { display: flex; flex-direction: column; align-items: flex-start; gap: 2px; width: 100%; text-align: left; overflow-wrap: anywhere; }
.back { display: none; }
.placeholder { margin: auto; padding: 24px; }

@media (max-width: 720px) {
  .layout { grid-template-columns: 1fr; height: auto; min-height: calc(100vh - 56px); }
  .layout[data-view="thread"] .list, .layout[data-view="list"] .thread { display: none; }
  .list { border-right: 0; }
  .back { display: inline-block; }
  .messages { max-height: none; }
  .msg { max-width: 92%; }
  .filters { grid-template-columns: 1fr; }
  .reply .actions { flex-direction: row; flex-wrap: wrap; }
}
`;
