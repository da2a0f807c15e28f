// The conversation list: the filters, one row per conversation (subject, status, labels, assignee, last activity),
// "Load more" while pages follow. A change on the inbox stream or a new filter reads the list again, as many pages
// as the agent had loaded.
import { h } from "@mountkit/core/dom";
import { AgentApiError, type AgentSummary, type ListFilter } from "../api.js";
import { agentLabels, badge, TOKEN_REFUSED, when } from "../dom.js";
import { assigneeName } from "./assignee.js";
import type { InboxContext } from "./context.js";
import { filtersView } from "./filters.js";

export interface ListHooks {
  /** Opens a conversation's thread. */
  open(id: string): void;
  /** The conversation whose thread is shown. */
  currentId(): string | undefined;
  /** Keeps a new filter (for the next sign-in too). */
  filtered(filter: ListFilter): void;
}

export class ConversationList {
  /** The list's section: filters, then the rows. */
  readonly element: HTMLElement;
  readonly #cx: InboxContext;
  readonly #hooks: ListHooks;
  readonly #list: HTMLUListElement;
  #filter: ListFilter;
  #items: AgentSummary[] = [];
  /** Cursor of the page after the loaded ones (null: all loaded), and how many pages are loaded. */
  #next: string | null;
  #pages = 1;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #run = 0;
  #closed = false;

  /** The list of a new session, whose first page (read with `filter`) checked the token. */
  constructor(cx: InboxContext, filter: ListFilter, first: { items: AgentSummary[]; next: string | null }, hooks: ListHooks) {
    this.#cx = cx;
    this.#hooks = hooks;
    this.#filter = filter;
    this.#next = first.next;
    const filters = filtersView(filter, (f, delay) => {
      this.#filter = f;
      hooks.filtered(f);
      this.#pages = 1;
      this.schedule(delay);
    });
    this.#list = h("ul", { class: "items", "aria-label": "Conversations" });
    this.element = h("section", { class: "list", "aria-label": "Conversation list" }, filters, this.#list);
  }

  /** Reads the list again after `delay` ms; a burst of changes or keystrokes gives one read. */
  schedule(delay: number) {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#reload(), delay);
  }

  /** The session ended: no read starts or lands any more. */
  close() {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /** Marks the row of the conversation being opened. */
  markCurrent(id: string) {
    for (const b of this.#list.querySelectorAll<HTMLButtonElement>(".item")) b.setAttribute("aria-current", String(b.dataset.id === id));
  }

  focusRow(id: string) {
    this.#list.querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(id)}"]`)?.focus();
  }

  /** Keeps a row in step with the open conversation without waiting for the inbox stream. */
  update(c: Pick<AgentSummary, "id" | "status" | "labels" | "assignee">) {
    const row = this.#items.find((x) => x.id === c.id);
    if (row) Object.assign(row, { status: c.status, labels: c.labels, assignee: c.assignee });
  }

  async #reload() {
    const api = this.#cx.api;
    if (this.#closed) return;
    const run = ++this.#run;
    try {
      // as many pages as the agent had loaded, so a live change does not fold the list back to one page
      const items: AgentSummary[] = [];
      let cursor: string | undefined;
      let next: string | null = null;
      for (let i = 0; i < this.#pages; i++) {
        const page = await api.list(this.#cx.product, this.#filter, cursor);
        items.push(...page.items);
        next = page.next;
        if (!next || run !== this.#run) break;
        cursor = next;
      }
      if (run === this.#run && !this.#closed) {
        this.#next = next;
        this.show(items);
      }
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) this.#cx.signOut(TOKEN_REFUSED);
      else if (e instanceof AgentApiError && e.status === 400)
        this.#list.replaceChildren(h("li", { class: "empty error" }, "Invalid filter."));
    }
  }

  async #loadMore() {
    const cursor = this.#next;
    if (this.#closed || !cursor) return;
    const run = ++this.#run;
    try {
      const page = await this.#cx.api.list(this.#cx.product, this.#filter, cursor);
      if (run !== this.#run || this.#closed) return;
      this.#pages++;
      this.#next = page.next;
      const seen = new Set(this.#items.map((c) => c.id));
      this.show([...this.#items, ...page.items.filter((c) => !seen.has(c.id))]);
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) this.#cx.signOut(TOKEN_REFUSED);
    }
  }

  /** Shows `items` as the list; the row that had focus keeps it. */
  show(items: AgentSummary[]) {
    this.#items = items;
    const focused = (this.#cx.root.activeElement as HTMLElement | null)?.dataset?.id;
    if (!items.length) {
      this.#list.replaceChildren(h("li", { class: "empty muted" }, "No conversations match."));
      return;
    }
    const current = this.#hooks.currentId();
    this.#list.replaceChildren(...items.map((c) => h("li", {}, this.#row(c, c.id === current))));
    if (this.#next)
      this.#list.append(
        h("li", { class: "empty" }, h("button", { type: "button", "data-id": "more", onclick: () => void this.#loadMore() }, "Load more")),
      );
    if (focused) this.focusRow(focused);
  }

  #row(c: AgentSummary, current: boolean) {
    return h(
      "button",
      { class: "item", type: "button", "data-id": c.id, "aria-current": String(current), onclick: () => this.#hooks.open(c.id) },
      h("span", { class: "subject" }, c.subject),
      h(
        "span",
        { class: "meta" },
        badge(c.status),
        ...agentLabels(c.labels).map((l) => h("span", { class: "tag" }, l)),
        c.assignee ? h("span", { class: "muted" }, `→ ${assigneeName(this.#cx, c.assignee)}`) : null,
        h("span", { class: "muted" }, when(c.updatedAt)),
      ),
    );
  }
}
