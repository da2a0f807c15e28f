// <mountkit-inbox>: the agent inbox page. Sign in with the agent token (sessionStorage only), conversations
// filtered by status / label / assignee / search, a live thread, reply, labels, assignee, resolve and close.

import { h } from "@mountkit/core/dom";
import { displayBody } from "@mountkit/support-client";
import {
  type AgentApi,
  AgentApiError,
  type AgentDetail,
  type AgentMessage,
  type AgentSummary,
  agentApi,
  type ListFilter,
  STATUSES,
  type Status,
  type StreamEvent,
  type StreamHandle,
} from "./api.js";
import { STYLES } from "./styles.js";

const TOKEN_KEY = "mountkit.inbox.token";
const AUTHOR_KEY = "mountkit.inbox.author";
const PRODUCT_KEY = "mountkit.inbox.product";

const STATUS_TEXT: Record<Status, string> = {
  new: "New",
  "waiting-for-agent": "Waiting for agent",
  "waiting-for-customer": "Waiting for customer",
  resolved: "Resolved",
  closed: "Closed",
};
/** The status filter's choices: value is the API's comma-separated `status`. */
const STATUS_FILTERS: Array<[string, string]> = [
  ["new,waiting-for-agent,waiting-for-customer", "All open"],
  ["new,waiting-for-agent", "Needs a reply"],
  ...STATUSES.map((s): [string, string] => [s, STATUS_TEXT[s]]),
  ["", "Any status"],
];
const isStatus = (s: string): s is Status => (STATUSES as readonly string[]).includes(s);
/** The agent's own labels: the wire list without the status label. */
const agentLabels = (labels: string[]) => labels.filter((l) => !isStatus(l));

/** A form's submit handler: no navigation, just `run`. */
const onSubmit = (run: () => unknown) => (e: Event) => {
  e.preventDefault();
  run();
};

let uid = 0;
/** A labelled form control: the label's `for` points at the control. */
function field(labelText: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, cls = "field") {
  control.id ||= `mk-f${++uid}`;
  return h("div", { class: cls }, h("label", { for: control.id }, labelText), control);
}

const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
};
const badge = (status: Status) => h("span", { class: `badge ${status}` }, STATUS_TEXT[status] ?? status);

/** Conversations per page: `?pageSize=` (1..200) on the page's URL, default 50. */
function pageSize(): number {
  const n = Number(new URLSearchParams(location.search).get("pageSize"));
  return Number.isInteger(n) && n >= 1 && n <= 200 ? n : 50;
}

/** The API base the page was served with (`<meta name="mountkit-base">`), else the page's origin. */
function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="mountkit-base"]')?.content;
  return new URL(meta || "/", location.href).href.replace(/\/+$/, "");
}

export class MountkitInboxElement extends HTMLElement {
  #root: ShadowRoot;
  #api: AgentApi | undefined;
  #author = "";
  #product = "";
  #filter: ListFilter = { status: STATUS_FILTERS[0]![0] };
  #items: AgentSummary[] = [];
  /** Cursor of the page after the loaded ones (null: all loaded), and how many pages are loaded. */
  #next: string | null = null;
  #pages = 1;
  #current: AgentDetail | undefined;
  #inbox: StreamHandle | undefined;
  #thread: StreamHandle | undefined;
  /** The conversation whose thread is shown (or loading). */
  #openId: string | undefined;
  /** Events received while detail reads are in flight, one buffer per read. */
  #buffers = new Set<StreamEvent[]>();
  #listTimer: ReturnType<typeof setTimeout> | undefined;
  #listRun = 0;
  #app!: HTMLElement;
  #announcer!: HTMLElement;
  #live!: HTMLElement;
  #layout!: HTMLElement;
  #list!: HTMLUListElement;
  #threadPane!: HTMLElement;
  #refs: {
    messages?: HTMLOListElement;
    head?: HTMLElement;
    labels?: HTMLInputElement;
    assignee?: HTMLInputElement;
    status?: HTMLElement;
    reply?: HTMLTextAreaElement;
    send?: HTMLButtonElement;
    error?: HTMLElement;
  } = {};

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
  }

  connectedCallback() {
    if (this.#app) return;
    this.#root.append(h("style", {}, STYLES));
    this.#announcer = h("div", { class: "sr-only", "aria-live": "polite", role: "status" });
    this.#app = h("div");
    this.#root.append(this.#app, this.#announcer);
    const token = sessionStorage.getItem(TOKEN_KEY);
    this.#author = localStorage.getItem(AUTHOR_KEY) ?? "";
    this.#product = new URLSearchParams(location.search).get("product") ?? localStorage.getItem(PRODUCT_KEY) ?? "";
    if (token && this.#author && this.#product) void this.#signIn(token, false);
    else this.#renderSignIn();
  }

  disconnectedCallback() {
    this.#inbox?.close();
    this.#thread?.close();
  }

  #announce(text: string) {
    // cleared first so the same text twice is read twice
    this.#announcer.textContent = "";
    setTimeout(() => {
      this.#announcer.textContent = text;
    }, 50);
  }

  // ---- sign in / out ----

  #renderSignIn(message?: string) {
    const token = h("input", { type: "password", name: "token", autocomplete: "current-password", required: true });
    const author = h("input", { type: "text", name: "author", autocomplete: "name", required: true, maxlength: "200" });
    author.value = this.#author;
    const product = h("input", { type: "text", name: "product", required: true, maxlength: "100" });
    product.value = this.#product;
    const error = h("p", { class: "error", role: "alert" }, message ?? "");
    const form = h(
      "form",
      {
        onsubmit: (e: Event) => {
          e.preventDefault();
          this.#author = author.value.trim();
          this.#product = product.value.trim();
          void this.#signIn(token.value.trim(), true, error);
        },
      },
      field("Agent token", token),
      field("Your name (shown to customers)", author),
      field("Product", product),
      h("button", { class: "primary", type: "submit" }, "Sign in"),
      error,
    );
    this.#app.replaceChildren(
      h("main", { class: "signin" }, h("h1", {}, "Support inbox"), h("p", { class: "muted" }, "Sign in with the agent token."), form),
    );
    (token.value ? author : token).focus();
  }

  async #signIn(token: string, fresh: boolean, error?: HTMLElement) {
    if (!token || !this.#author || !this.#product) return;
    const api = agentApi(apiBase(), token, pageSize());
    try {
      // the first list doubles as the token check: nothing is kept until it passes
      const first = await api.list(this.#product, this.#filter);
      this.#next = first.next;
      this.#pages = 1;
      this.#api = api;
      sessionStorage.setItem(TOKEN_KEY, token);
      localStorage.setItem(AUTHOR_KEY, this.#author);
      localStorage.setItem(PRODUCT_KEY, this.#product);
      this.#renderApp();
      this.#setItems(first.items);
      this.#followInbox();
      if (fresh) this.#announce(`Signed in. ${first.items.length} conversations.`);
    } catch (e) {
      const msg =
        e instanceof AgentApiError && e.status === 401
          ? "That token was refused."
          : e instanceof AgentApiError && e.status === 404
            ? `No product "${this.#product}".`
            : e instanceof AgentApiError && e.status === 501
              ? `Product "${this.#product}" is worked on in its own backend.`
              : "The service could not be reached.";
      if (!fresh) sessionStorage.removeItem(TOKEN_KEY);
      if (error) error.textContent = msg;
      else this.#renderSignIn(msg);
    }
  }

  #signOut(message?: string) {
    sessionStorage.removeItem(TOKEN_KEY);
    this.#inbox?.close();
    this.#thread?.close();
    this.#inbox = this.#thread = this.#api = this.#current = this.#openId = undefined;
    this.#items = [];
    this.#renderSignIn(message);
  }

  // ---- the signed-in layout ----

  #renderApp() {
    this.#live = h("span", { class: "live", role: "status", "data-up": "false" }, "Connecting…");
    const top = h(
      "header",
      { class: "top" },
      h("h1", {}, "Support inbox"),
      h("span", { class: "muted" }, `${this.#product} · ${this.#author}`),
      h("span", { class: "grow" }),
      this.#live,
      h("button", { type: "button", onclick: () => this.#signOut() }, "Sign out"),
    );
    const search = h("input", { type: "search", name: "q", maxlength: "200" });
    const status = h("select", { name: "status" });
    for (const [value, text] of STATUS_FILTERS) status.append(h("option", { value }, text));
    status.value = this.#filter.status ?? "";
    const label = h("input", { type: "text", name: "label", maxlength: "64" });
    const assignee = h("input", { type: "text", name: "assignee", maxlength: "200" });
    const apply = (delay: number) => {
      this.#filter = { status: status.value, label: label.value.trim(), assignee: assignee.value.trim(), q: search.value.trim() };
      this.#pages = 1;
      this.#scheduleList(delay);
    };
    for (const input of [search, label, assignee]) input.addEventListener("input", () => apply(250));
    status.addEventListener("change", () => apply(0));
    const filters = h(
      "form",
      { class: "filters", role: "search", "aria-label": "Filter conversations", onsubmit: onSubmit(() => apply(0)) },
      field("Search", search, "field wide"),
      field("Status", status),
      field("With label", label),
      field("Assigned to", assignee, "field wide"),
    );
    this.#list = h("ul", { class: "items", "aria-label": "Conversations" });
    this.#threadPane = h(
      "section",
      { class: "thread", "aria-label": "Conversation" },
      h("p", { class: "placeholder muted" }, "Select a conversation."),
    );
    this.#layout = h(
      "div",
      { class: "layout", "data-view": "list" },
      h("section", { class: "list", "aria-label": "Conversation list" }, filters, this.#list),
      this.#threadPane,
    );
    this.#app.replaceChildren(top, h("main", {}, this.#layout));
  }

  #setLive(up: boolean) {
    this.#live.dataset.up = String(up);
    this.#live.textContent = up ? "Live" : "Reconnecting…";
  }

  #followInbox() {
    this.#inbox?.close();
    this.#inbox = this.#api!.follow(`/stream?productSlug=${encodeURIComponent(this.#product)}`, {
      onConnected: () => {
        this.#setLive(true);
        // anything missed while the stream was down: the list is the state, read it again
        this.#scheduleList(0);
      },
      onDown: () => this.#setLive(false),
      onUnauthorized: () => this.#signOut("The token is no longer accepted. Sign in again."),
      onEvent: (e) => {
        if (e.type === "conversation_changed") this.#scheduleList(150);
      },
    });
  }

  /** Reads the list again after `delay` ms; a burst of changes or keystrokes gives one read. */
  #scheduleList(delay: number) {
    clearTimeout(this.#listTimer);
    this.#listTimer = setTimeout(() => void this.#reloadList(), delay);
  }

  async #reloadList() {
    const api = this.#api;
    if (!api) return;
    const run = ++this.#listRun;
    try {
      // as many pages as the agent had loaded, so a live change does not fold the list back to one page
      const items: AgentSummary[] = [];
      let cursor: string | undefined;
      let next: string | null = null;
      for (let i = 0; i < this.#pages; i++) {
        const page = await api.list(this.#product, this.#filter, cursor);
        items.push(...page.items);
        next = page.next;
        if (!next || run !== this.#listRun) break;
        cursor = next;
      }
      if (run === this.#listRun && api === this.#api) {
        this.#next = next;
        this.#setItems(items);
      }
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) this.#signOut("The token is no longer accepted. Sign in again.");
      else if (e instanceof AgentApiError && e.status === 400)
        this.#list.replaceChildren(h("li", { class: "empty error" }, "Invalid filter."));
    }
  }

  async #loadMore() {
    const api = this.#api;
    const cursor = this.#next;
    if (!api || !cursor) return;
    const run = ++this.#listRun;
    try {
      const page = await api.list(this.#product, this.#filter, cursor);
      if (run !== this.#listRun || api !== this.#api) return;
      this.#pages++;
      this.#next = page.next;
      const seen = new Set(this.#items.map((c) => c.id));
      this.#setItems([...this.#items, ...page.items.filter((c) => !seen.has(c.id))]);
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) this.#signOut("The token is no longer accepted. Sign in again.");
    }
  }

  #setItems(items: AgentSummary[]) {
    this.#items = items;
    const focused = (this.#root.activeElement as HTMLElement | null)?.dataset?.id;
    if (!items.length) {
      this.#list.replaceChildren(h("li", { class: "empty muted" }, "No conversations match."));
      return;
    }
    this.#list.replaceChildren(
      ...items.map((c) => {
        const labels = agentLabels(c.labels);
        const b = h(
          "button",
          {
            class: "item",
            type: "button",
            "data-id": c.id,
            "aria-current": String(c.id === this.#current?.id),
            onclick: () => void this.#open(c.id),
          },
          h("span", { class: "subject" }, c.subject),
          h(
            "span",
            { class: "meta" },
            badge(c.status),
            ...labels.map((l) => h("span", { class: "tag" }, l)),
            c.assignee ? h("span", { class: "muted" }, `→ ${c.assignee}`) : null,
            h("span", { class: "muted" }, when(c.updatedAt)),
          ),
        );
        return h("li", {}, b);
      }),
    );
    if (this.#next)
      this.#list.append(
        h("li", { class: "empty" }, h("button", { type: "button", "data-id": "more", onclick: () => void this.#loadMore() }, "Load more")),
      );
    if (focused) this.#list.querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(focused)}"]`)?.focus();
  }

  // ---- the thread ----

  async #open(id: string) {
    const api = this.#api;
    if (!api) return;
    this.#thread?.close();
    this.#current = undefined;
    this.#openId = id;
    this.#buffers.clear();
    this.#layout.dataset.view = "thread";
    for (const b of this.#list.querySelectorAll<HTMLButtonElement>(".item")) b.setAttribute("aria-current", String(b.dataset.id === id));
    this.#threadPane.replaceChildren(h("p", { class: "placeholder muted" }, "Loading…"));
    // the stream first: its `connected` reads the detail, so nothing between the read and the stream is lost
    this.#thread = api.follow(`/${encodeURIComponent(id)}/stream`, {
      onConnected: () => void this.#loadDetail(id),
      onUnauthorized: () => this.#signOut("The token is no longer accepted. Sign in again."),
      onEvent: (e) => this.#onThreadEvent(id, e),
    });
  }

  /**
   * Reads the open conversation's detail. Events that arrive while the read is in flight are kept and
   * replayed onto it in order: the read may have started before some of them were written.
   */
  async #loadDetail(id: string) {
    const buffer: StreamEvent[] = [];
    this.#buffers.add(buffer);
    try {
      const d = await this.#api!.detail(id);
      if (this.#openId !== id) return;
      const fresh = this.#current?.id !== id;
      this.#current = d;
      if (fresh) this.#renderThread();
      for (const e of buffer) this.#applyEvent(id, e);
      if (!fresh) {
        this.#renderMeta();
        this.#renderMessages();
      }
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 404 && this.#openId === id) {
        this.#thread?.close();
        this.#threadPane.replaceChildren(h("p", { class: "placeholder error", role: "alert" }, "This conversation no longer exists."));
      }
    } finally {
      this.#buffers.delete(buffer);
    }
  }

  #onThreadEvent(id: string, e: StreamEvent) {
    if (this.#openId !== id) return;
    if (e.type === "resync") return void this.#loadDetail(id);
    for (const b of this.#buffers) b.push(e);
    this.#applyEvent(id, e);
  }

  #applyEvent(id: string, e: StreamEvent) {
    const c = this.#current;
    if (!c || c.id !== id) return;
    const data = (e.data ?? {}) as Record<string, unknown>;
    switch (e.type) {
      case "new_comment": {
        const m = e.data as AgentMessage;
        if (c.messages.some((x) => x.id === m.id)) return;
        c.messages.push(m);
        this.#renderMessages();
        if (m.isCustomer) this.#announce(`New message from the customer: ${displayBody(m.body)}`);
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
        return this.#renderMeta();
      case "assignee_changed":
        c.assignee = (data.assignee as string | null) ?? null;
        return this.#renderMeta();
      case "issue_deleted":
        this.#thread?.close();
        this.#current = undefined;
        this.#threadPane.replaceChildren(h("p", { class: "placeholder error", role: "alert" }, "This conversation was deleted."));
        return;
    }
  }

  #renderThread() {
    const c = this.#current!;
    const labels = h("input", { type: "text", name: "labels", maxlength: "2000" });
    const assignee = h("input", { type: "text", name: "assignee", maxlength: "200" });
    const reply = h("textarea", { name: "reply", rows: "3", maxlength: "20000" });
    const send = h("button", { class: "primary", type: "submit" }, "Send reply");
    const error = h("p", { class: "error", role: "alert" });
    const status = h("div", { class: "row", role: "group", "aria-label": "Change status" });
    const head = h("div", { class: "row" });
    this.#refs = { labels, assignee, reply, send, error, status, head };
    reply.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        (reply.form as HTMLFormElement | null)?.requestSubmit();
      }
    });
    const messages = h("ol", { class: "messages", "aria-label": "Messages", tabindex: "0" });
    this.#refs.messages = messages;
    this.#threadPane.replaceChildren(
      h(
        "div",
        { class: "thread-head" },
        h(
          "div",
          { class: "row" },
          h("button", { class: "back", type: "button", onclick: () => this.#back() }, "← Conversations"),
          h("h2", { tabindex: "-1" }, c.subject),
        ),
        head,
        h(
          "div",
          { class: "controls" },
          h(
            "form",
            { class: "field", onsubmit: onSubmit(() => void this.#saveLabels()) },
            h("label", { for: (labels.id = `mk-f${++uid}`) }, "Labels (comma-separated)"),
            h("div", { class: "inline" }, labels, h("button", { type: "submit" }, "Save labels")),
          ),
          h(
            "form",
            { class: "field", onsubmit: onSubmit(() => void this.#saveAssignee(assignee.value.trim() || null)) },
            h("label", { for: (assignee.id = `mk-f${++uid}`) }, "Assignee"),
            h(
              "div",
              { class: "inline" },
              assignee,
              h("button", { type: "submit" }, "Assign"),
              h("button", { type: "button", onclick: () => void this.#saveAssignee(this.#author) }, "Assign to me"),
            ),
          ),
        ),
        status,
        error,
      ),
      messages,
      h("form", { class: "reply", onsubmit: onSubmit(() => void this.#sendReply()) }, field("Reply", reply), send),
    );
    this.#renderMeta(true);
    this.#renderMessages();
    this.#threadPane.querySelector<HTMLElement>("h2")?.focus();
  }

  /** Status, labels and assignee of the open conversation; inputs being edited keep what is typed. */
  #renderMeta(force = false) {
    const c = this.#current;
    const r = this.#refs;
    if (!c || !r.head || !r.status) return;
    r.head.replaceChildren(
      badge(c.status),
      h("span", { class: "muted" }, `Customer ${c.customerId}`),
      h("span", { class: "muted" }, c.assignee ? `Assigned to ${c.assignee}` : "Unassigned"),
    );
    const active = this.#root.activeElement;
    if (r.labels && (force || active !== r.labels)) r.labels.value = agentLabels(c.labels).join(", ");
    if (r.assignee && (force || active !== r.assignee)) r.assignee.value = c.assignee ?? "";
    const action = (text: string, to: Status) => h("button", { type: "button", onclick: () => void this.#saveStatus(to, text) }, text);
    const closed = c.status === "closed" || c.status === "resolved";
    r.status.replaceChildren(
      ...(closed ? [action("Reopen", "waiting-for-agent")] : [action("Resolve", "resolved")]),
      ...(c.status === "closed" ? [] : [action("Close", "closed")]),
    );
    if (r.reply && r.send) {
      r.reply.disabled = r.send.disabled = c.status === "closed";
      r.reply.placeholder = c.status === "closed" ? "Closed: reopen it to reply." : "";
    }
    // keep the list's row in step without waiting for the inbox stream
    const row = this.#items.find((x) => x.id === c.id);
    if (row) Object.assign(row, { status: c.status, labels: c.labels, assignee: c.assignee });
  }

  #renderMessages() {
    const c = this.#current;
    const list = this.#refs.messages;
    if (!c || !list) return;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.replaceChildren(
      ...c.messages.map((m) =>
        h(
          "li",
          { class: m.isCustomer ? "msg" : "msg agent" },
          h("span", { class: "who" }, `${m.isCustomer ? "Customer" : m.author} · ${when(m.createdAt)}`),
          m.body === null ? h("em", {}, "(no text)") : displayBody(m.body),
        ),
      ),
    );
    if (atBottom || list.scrollTop === 0) list.scrollTop = list.scrollHeight;
  }

  #back() {
    this.#layout.dataset.view = "list";
    this.#list.querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(this.#current?.id ?? "")}"]`)?.focus();
  }

  /** Runs a write on the open conversation and shows its failure next to the controls. */
  async #write(run: (api: AgentApi, id: string) => Promise<void>, done: string) {
    const api = this.#api;
    const c = this.#current;
    const r = this.#refs;
    if (!api || !c) return;
    if (r.error) r.error.textContent = "";
    try {
      await run(api, c.id);
      this.#announce(done);
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) return this.#signOut("The token is no longer accepted. Sign in again.");
      if (r.error)
        r.error.textContent = e instanceof AgentApiError ? `Not saved: ${e.message}` : "Not saved: the service could not be reached.";
    }
  }

  #sendReply() {
    const r = this.#refs;
    const text = r.reply?.value.trim();
    if (!text || !r.reply || !r.send) return;
    r.send.disabled = true;
    return this.#write(async (api, id) => {
      try {
        await api.reply(id, text, this.#author);
        r.reply!.value = "";
      } finally {
        r.send!.disabled = this.#current?.status === "closed";
      }
    }, "Reply sent.");
  }

  #saveLabels() {
    const labels = [
      ...new Set(
        (this.#refs.labels?.value ?? "")
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    return this.#write(async (api, id) => {
      const saved = await api.setLabels(id, labels);
      if (this.#current?.id === id) {
        this.#current.labels = saved;
        this.#renderMeta(true);
      }
    }, "Labels saved.");
  }

  #saveAssignee(assignee: string | null) {
    return this.#write(
      async (api, id) => {
        await api.setAssignee(id, assignee);
        if (this.#current?.id === id) {
          this.#current.assignee = assignee;
          this.#renderMeta(true);
        }
      },
      assignee ? `Assigned to ${assignee}.` : "Unassigned.",
    );
  }

  #saveStatus(status: Status, verb: string) {
    return this.#write(async (api, id) => {
      await api.setStatus(id, status);
      if (this.#current?.id === id) {
        this.#current.status = status;
        this.#renderMeta();
      }
    }, `${verb}: ${STATUS_TEXT[status]}.`);
  }
}
