// The conversation view: one live thread. Its stream opens first and each `connected` reads the detail, so nothing
// written between the read and the stream is lost; events are applied as they come (new, edited and deleted
// messages, status, labels, assignee, deletion). The customer's rating, when there is one, shows in the head.
import { h } from "@mountkit/core/dom";
import { displayBody } from "@mountkit/support-client";
import { AgentApiError, type AgentDetail, type AgentMessage, type AgentNote, type StreamEvent, type StreamHandle } from "../api.js";
import { isStatus, TOKEN_REFUSED, when } from "../dom.js";
import { Composer } from "./composer.js";
import type { InboxContext } from "./context.js";
import { ThreadFiles } from "./files.js";
import type { ConversationList } from "./list.js";
import { ratingBlock } from "./ratings.js";

const placeholder = (text: string, cls = "placeholder muted") =>
  h("p", cls.includes("error") ? { class: cls, role: "alert" } : { class: cls }, text);

const messageItem = (m: AgentMessage, files: ThreadFiles | undefined) =>
  h(
    "li",
    { class: m.isCustomer ? "msg" : "msg agent" },
    h("span", { class: "who" }, `${m.isCustomer ? "Customer" : m.author} · ${when(m.createdAt)}`),
    m.body === null ? h("em", {}, "(no text)") : displayBody(m.body),
    files?.list(m.attachments),
  );

/** A private note in the thread: marked as such, since the customer never sees it. */
const noteItem = (n: AgentNote) =>
  h("li", { class: "msg note" }, h("span", { class: "who" }, `Private note · ${n.author} · ${when(n.createdAt)}`), n.body);

/** Messages and private notes in the order they were written (a stable merge: each list is already in order). */
function timeline(c: AgentDetail): Array<AgentMessage | AgentNote> {
  const out: Array<AgentMessage | AgentNote> = [];
  const notes = c.notes ?? [];
  let j = 0;
  for (const m of c.messages) {
    while (j < notes.length && notes[j]!.createdAt < m.createdAt) out.push(notes[j++]!);
    out.push(m);
  }
  return out.concat(notes.slice(j));
}

export class ConversationView {
  /** The thread's pane. */
  readonly element = h("section", { class: "thread", "aria-label": "Conversation" }, placeholder("Select a conversation."));
  readonly #cx: InboxContext;
  readonly #list: ConversationList;
  /** Shows the list or the thread (a narrow layout shows one at a time). */
  readonly #show: (pane: "list" | "thread") => void;
  #current: AgentDetail | undefined;
  /** The conversation whose thread is shown (or loading). */
  #openId: string | undefined;
  #stream: StreamHandle | undefined;
  /** Events received while detail reads are in flight, one buffer per read. */
  #buffers = new Set<StreamEvent[]>();
  #messages: HTMLOListElement | undefined;
  #composer: Composer | undefined;
  /** The shown thread's files (their object URLs go with it). */
  #files: ThreadFiles | undefined;

  constructor(cx: InboxContext, list: ConversationList, show: (pane: "list" | "thread") => void) {
    this.#cx = cx;
    this.#list = list;
    this.#show = show;
  }

  /** The conversation whose detail is shown. */
  get currentId(): string | undefined {
    return this.#current?.id;
  }

  open(id: string) {
    this.#stream?.close();
    this.#dropThread();
    this.#current = undefined;
    this.#openId = id;
    this.#buffers.clear();
    this.#show("thread");
    this.#list.markCurrent(id);
    this.element.replaceChildren(placeholder("Loading…"));
    // the stream first: its `connected` reads the detail, so nothing between the read and the stream is lost
    this.#stream = this.#cx.api.follow(`/${encodeURIComponent(id)}/stream`, {
      onConnected: () => void this.#loadDetail(id),
      onUnauthorized: () => this.#cx.signOut(TOKEN_REFUSED),
      onEvent: (e) => this.#onEvent(id, e),
    });
  }

  /** The inbox stream says a conversation's private notes changed: the open one's are read again. */
  async notesChanged(id: string) {
    if (this.#current?.id !== id) return;
    try {
      const notes = await this.#cx.api.notes(id);
      if (this.#current?.id !== id) return;
      this.#current.notes = notes;
      this.#renderMessages();
    } catch {
      // the next change or the next open reads them again
    }
  }

  /** The session ended: the stream closes and nothing lands any more. */
  close() {
    this.#stream?.close();
    this.#dropThread();
    this.#current = this.#openId = undefined;
  }

  /**
   * Reads the open conversation's detail. Events that arrive while the read is in flight are kept and
   * replayed onto it in order: the read may have started before some of them were written.
   */
  async #loadDetail(id: string) {
    const buffer: StreamEvent[] = [];
    this.#buffers.add(buffer);
    try {
      const d = await this.#cx.api.detail(id);
      if (this.#openId !== id) return;
      const fresh = this.#current?.id !== id;
      this.#current = d;
      if (fresh) this.#render();
      for (const e of buffer) this.#apply(id, e);
      if (!fresh) {
        this.#composer?.meta();
        this.#renderMessages();
      }
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 404 && this.#openId === id) {
        this.#stream?.close();
        this.element.replaceChildren(placeholder("This conversation no longer exists.", "placeholder error"));
      }
    } finally {
      this.#buffers.delete(buffer);
    }
  }

  #onEvent(id: string, e: StreamEvent) {
    if (this.#openId !== id) return;
    if (e.type === "resync") return void this.#loadDetail(id);
    for (const b of this.#buffers) b.push(e);
    this.#apply(id, e);
  }

  #apply(id: string, e: StreamEvent) {
    const c = this.#current;
    if (!c || c.id !== id) return;
    const data = (e.data ?? {}) as Record<string, unknown>;
    switch (e.type) {
      case "new_comment": {
        const m = e.data as AgentMessage;
        if (c.messages.some((x) => x.id === m.id)) return;
        c.messages.push(m);
        this.#renderMessages();
        if (m.isCustomer) this.#cx.announce(`New message from the customer: ${displayBody(m.body)}`);
        return;
      }
      case "comment_edited": {
        const m = e.data as AgentMessage;
        c.messages = c.messages.map((x) => (x.id === m.id ? { ...x, body: m.body } : x));
        return this.#renderMessages();
      }
      case "comment_deleted":
        c.messages = c.messages.filter((x) => x.id !== data.id);
        return this.#renderMessages();
      case "state_update":
      case "labels_changed":
        if (typeof data.status === "string" && isStatus(data.status)) c.status = data.status;
        if (Array.isArray(data.labels)) c.labels = data.labels as string[];
        c.isOpen = c.status !== "closed" && c.status !== "resolved";
        return this.#composer?.meta();
      case "assignee_changed":
        c.assignee = (data.assignee as string | null) ?? null;
        return this.#composer?.meta();
      case "issue_deleted":
        this.#stream?.close();
        this.#dropThread();
        this.#current = undefined;
        this.element.replaceChildren(placeholder("This conversation was deleted.", "placeholder error"));
        return;
    }
  }

  #render() {
    const c = this.#current!;
    const composer = new Composer(this.#cx, {
      current: () => this.#current,
      changed: (d) => this.#list.update(d),
      refresh: (force) => this.#composer?.meta(force),
      noted: (note) => {
        const cur = this.#current;
        if (!cur) return;
        cur.notes = [...(cur.notes ?? []).filter((n) => n.id !== note.id), note];
        this.#renderMessages();
      },
    });
    this.#dropThread();
    this.#composer = composer;
    this.#files = new ThreadFiles(this.#cx);
    this.#messages = h("ol", { class: "messages", "aria-label": "Messages", tabindex: "0" });
    this.element.replaceChildren(
      h(
        "div",
        { class: "thread-head" },
        h(
          "div",
          { class: "row" },
          h("button", { class: "back", type: "button", onclick: () => this.#back() }, "← Conversations"),
          h("h2", { tabindex: "-1" }, c.subject),
        ),
        composer.head,
        // the customer's rating: no stream event carries one, so it is as the detail read it
        c.rating ? ratingBlock(c.rating) : null,
        composer.controls,
        composer.status,
        composer.error,
      ),
      this.#messages,
      composer.replyForm,
    );
    composer.meta(true);
    this.#renderMessages();
    this.element.querySelector<HTMLElement>("h2")?.focus();
  }

  #renderMessages() {
    const c = this.#current;
    const list = this.#messages;
    if (!c || !list) return;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.replaceChildren(...timeline(c).map((x) => ("isCustomer" in x ? messageItem(x, this.#files) : noteItem(x))));
    if (atBottom || list.scrollTop === 0) list.scrollTop = list.scrollHeight;
  }

  /** The thread's parts that hold resources: uploads in flight stop, object URLs are revoked. */
  #dropThread() {
    this.#composer?.dispose();
    this.#files?.dispose();
    this.#composer = this.#files = undefined;
  }

  #back() {
    this.#show("list");
    this.#list.focusRow(this.#current?.id ?? "");
  }
}
