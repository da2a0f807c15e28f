// Canned replies in the reply box: typing `/` and a shortcut lists the product's matching replies (arrows to move,
// Enter or Tab to insert, Escape to dismiss), and a picker inserts one at the cursor. Either way the reply's text
// replaces what was typed for it and the agent can still edit it before sending.
import { h } from "@mountkit/core/dom";
import type { CannedReply } from "../api.js";
import { controlId } from "../dom.js";
import type { InboxContext } from "./context.js";

/** `/` and a shortcut's start, at the start of the box or after a space, right before the cursor. */
const SLASH = /(^|\s)\/([a-z0-9_-]*)$/i;
/** How long the product's list is trusted before the reply box's next focus reads it again. */
const FRESH_MS = 30_000;
/** A typed shortcut that matches nothing reads the list again (one saved meanwhile), one read at a time, reads this
 * far apart (a failing read is not asked again at every key). */
const RETRY_MS = 300;

export class CannedReplies {
  /** The `/` suggestions, shown under the reply box while a shortcut is typed. */
  readonly suggestions = h("ul", { class: "canned", role: "listbox", "aria-label": "Canned responses", hidden: "" });
  /** A picker for the agent who does not remember the shortcut. */
  readonly picker = h("select", { class: "canned-picker", "aria-label": "Insert a canned response" });
  readonly hint = h("span", { class: "muted", id: controlId() }, "Type / for canned responses");
  readonly #cx: InboxContext;
  readonly #box: HTMLTextAreaElement;
  #replies: CannedReply[] = [];
  #loadedAt = 0;
  #triedAt = 0;
  #loading: Promise<void> | undefined;
  /** When a typed shortcut last matched nothing in the list. */
  #missedAt = 0;
  /** A read put off until RETRY_MS after the last one began. */
  #retry: ReturnType<typeof setTimeout> | undefined;
  #shown: CannedReply[] = [];
  #active = 0;

  constructor(cx: InboxContext, box: HTMLTextAreaElement) {
    this.#cx = cx;
    this.#box = box;
    box.setAttribute("aria-describedby", this.hint.id);
    const refresh = () => {
      if (Date.now() - this.#loadedAt > FRESH_MS) void this.load();
    };
    box.addEventListener("focus", refresh);
    this.picker.addEventListener("focus", refresh);
    box.addEventListener("input", () => this.#suggest());
    box.addEventListener("click", () => this.#suggest());
    box.addEventListener("blur", () => setTimeout(() => this.#hide(), 150));
    // capture: the composer's own Enter handling must not see a key that picks a suggestion
    box.addEventListener("keydown", (e) => this.#key(e), true);
    this.picker.addEventListener("change", () => {
      const r = this.#replies.find((x) => x.id === this.picker.value);
      this.picker.value = "";
      if (r) this.#insert(r, false);
    });
    void this.load();
  }

  /** Reads the product's canned replies; a failure leaves the last list (the reply box works without them). A shortcut
   * typed while the list was being read is suggested from the new list once it is in, whatever started the read. */
  load(): Promise<void> {
    this.#loading ??= this.#read().finally(() => {
      this.#loading = undefined;
      if (!this.#focused() || !this.#typed()) return;
      this.#suggest(false);
      // a key found nothing while this read was out (reads go one at a time: #triedAt is when it began): the read may
      // predate a reply saved just before, so once more
      if (!this.#shown.length && this.#missedAt >= this.#triedAt) this.#missed();
    });
    return this.#loading;
  }

  /**
   * A typed shortcut matched nothing: the list may predate a reply saved since. It is read again, at once, or after
   * the read in flight (which reads once more if it still finds nothing), or RETRY_MS after the last read began: a
   * miss is never dropped, so a shortcut typed whole in the meantime is still suggested.
   */
  #missed() {
    this.#missedAt = Date.now();
    if (this.#loading || this.#retry) return;
    const wait = this.#triedAt + RETRY_MS - this.#missedAt;
    if (wait <= 0) {
      void this.load();
      return;
    }
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#focused() && this.#typed()) void this.load();
    }, wait);
  }

  #focused() {
    return (this.#box.getRootNode() as Document | ShadowRoot).activeElement === this.#box;
  }

  async #read() {
    this.#triedAt = Date.now();
    try {
      this.#replies = await this.#cx.api.cannedReplies(this.#cx.product);
      this.#loadedAt = Date.now();
    } catch {
      return;
    }
    this.picker.replaceChildren(
      h("option", { value: "" }, this.#replies.length ? "Canned response…" : "No canned responses"),
      ...this.#replies.map((r) => h("option", { value: r.id }, `/${r.shortcut} · ${r.title}`)),
    );
    this.picker.disabled = this.#replies.length === 0;
  }

  /** The shortcut being typed right before the cursor, if any. */
  #typed(): { start: number; query: string } | undefined {
    const box = this.#box;
    if (box.selectionStart !== box.selectionEnd) return undefined;
    const m = SLASH.exec(box.value.slice(0, box.selectionStart));
    if (!m) return undefined;
    return { start: box.selectionStart - m[2]!.length - 1, query: m[2]!.toLowerCase() };
  }

  /** `byKey`: the agent typed or moved the cursor (a miss asks for the list again); else a read just ended. */
  #suggest(byKey = true) {
    const t = this.#typed();
    if (!t) return this.#hide();
    const starts = this.#replies.filter((r) => r.shortcut.startsWith(t.query));
    const within = this.#replies.filter(
      (r) => !starts.includes(r) && (r.shortcut.includes(t.query) || r.title.toLowerCase().includes(t.query)),
    );
    this.#shown = [...starts, ...within].slice(0, 8);
    if (!this.#shown.length) {
      this.#hide();
      if (byKey) this.#missed();
      return;
    }
    this.#active = Math.min(this.#active, this.#shown.length - 1);
    this.#render();
  }

  #render() {
    this.suggestions.replaceChildren(
      ...this.#shown.map((r, i) =>
        h(
          "li",
          {
            role: "option",
            "aria-selected": String(i === this.#active),
            // mousedown, not click: the reply box keeps its focus and its cursor
            onmousedown: (e: Event) => {
              e.preventDefault();
              this.#insert(r, true);
            },
          },
          h("strong", {}, `/${r.shortcut}`),
          ` ${r.title}`,
        ),
      ),
    );
    this.suggestions.hidden = false;
  }

  #hide() {
    this.suggestions.hidden = true;
    this.#shown = [];
    this.#active = 0;
  }

  #key(e: KeyboardEvent) {
    if (this.suggestions.hidden || !this.#shown.length) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const n = this.#shown.length;
      this.#active = (this.#active + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      this.#render();
    } else if ((e.key === "Enter" && !e.ctrlKey && !e.metaKey) || e.key === "Tab") {
      e.preventDefault();
      e.stopImmediatePropagation();
      this.#insert(this.#shown[this.#active]!, true);
    } else if (e.key === "Escape") {
      e.preventDefault();
      this.#hide();
    }
  }

  /** Puts the reply's text in the box: in place of the typed `/shortcut`, else at the cursor. */
  #insert(r: CannedReply, replacingTyped: boolean) {
    const box = this.#box;
    const t = replacingTyped ? this.#typed() : undefined;
    const start = t ? t.start : box.selectionStart;
    box.setRangeText(r.body, start, box.selectionEnd, "end");
    box.focus();
    this.#hide();
    this.#cx.announce(`Inserted the canned response ${r.title}.`);
  }
}
