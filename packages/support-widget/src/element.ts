// <mountkit-support>: a support chat any page can embed. Conversations list, new conversation, a live thread
// with optimistic sends (support-client's liveConversation), resolve and reopen, a rating once resolved (rating.ts),
// all inside a shadow root.

import { h } from "@mountkit/core/dom";
import {
  type Attachment,
  createSupportClient,
  type LiveConversation,
  type LiveState,
  liveConversation,
  type StreamEvent,
  type Summary,
  type SupportClient,
  newClientMessageId,
} from "@mountkit/support-client";
import { AttachPicker, FileNodes, filesOnlyText } from "./attachments.js";
import { RatingPrompt } from "./rating.js";
import { STYLES } from "./styles.js";

type View = { kind: "list" } | { kind: "new" } | { kind: "thread"; id: string };

/** What a person reads for each status of the status machine (docs/support.md#status-and-state). */
const STATUS: Record<string, { text: string; tone: "open" | "waiting" | "resolved" | "closed" }> = {
  new: { text: "Open", tone: "open" },
  "waiting-for-agent": { text: "Waiting for an agent", tone: "waiting" },
  "waiting-for-customer": { text: "Waiting for you", tone: "waiting" },
  resolved: { text: "Resolved", tone: "resolved" },
  closed: { text: "Closed", tone: "closed" },
};
const statusOf = (status: string | undefined, isOpen: boolean) =>
  STATUS[status ?? ""] ?? (isOpen ? STATUS.new! : { text: "Closed", tone: "closed" as const });

/** The scrolling part of the panel: focusable, so a keyboard can scroll it. */
const body = (label: string, ...children: Node[]) =>
  h("div", { class: "body", role: "region", "aria-label": label, tabindex: "0" }, ...children);

const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
};

/** The script's own folder: a widget served at `<base>/api/conversations/widget.js` calls `<base>`. */
const scriptBase = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? src.replace(/\/api\/conversations\/widget\.js(?:[?#].*)?$/, "") : undefined;
})();

export class MountkitSupportElement extends HTMLElement {
  static observedAttributes = ["product", "api", "heading", "customer-id", "customer-signature"];
  #root: ShadowRoot;
  #client: SupportClient | undefined;
  #live: LiveConversation | undefined;
  #view: View = { kind: "list" };
  #open = false;
  #panel!: HTMLElement;
  #launcher!: HTMLButtonElement;
  #announcer!: HTMLElement;
  #titleId = `mk-title-${Math.random().toString(36).slice(2, 8)}`;
  /** The shown composer's pending files (uploads in flight stop when it goes). */
  #picker: AttachPicker | undefined;
  /** Set by the first 501 on a rating: this product's backend keeps none, so no thread asks again. */
  #noRatings = false;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
  }

  connectedCallback() {
    if (this.#launcher) return;
    this.#root.append(h("style", {}, STYLES));
    this.#launcher = h(
      "button",
      { class: "launcher", type: "button", "aria-expanded": "false", "aria-haspopup": "dialog", onclick: () => this.toggle() },
      this.getAttribute("launcher") ?? "Support",
    );
    this.#panel = h("section", { class: "panel", role: "dialog", "aria-labelledby": this.#titleId, hidden: true });
    this.#panel.addEventListener("keydown", (e) => {
      if ((e as KeyboardEvent).key === "Escape") this.toggle(false);
    });
    this.#announcer = h("div", { class: "sr-only", role: "status", "aria-live": "polite" });
    this.#root.append(this.#launcher, this.#panel, this.#announcer);
    if (this.hasAttribute("open")) this.toggle(true);
  }

  disconnectedCallback() {
    this.#live?.close();
    this.#live = undefined;
    this.#picker?.dispose();
    this.#picker = undefined;
  }

  attributeChangedCallback() {
    this.#client = undefined;
  }

  /**
   * The support-client for this element's product and API base. The customer id persists in localStorage, unless the
   * host page names its signed-in customer: `customer-id` (`cust_<UUID>`) and, for a product that verifies customers,
   * `customer-signature` (docs/support.md#verified-customers).
   */
  get client(): SupportClient {
    const product = this.getAttribute("product");
    if (!product) throw new Error('<mountkit-support> needs a product attribute, e.g. product="demo"');
    const baseUrl = this.getAttribute("api") ?? scriptBase ?? location.origin;
    const customerId = this.getAttribute("customer-id") || undefined;
    const customerSignature = this.getAttribute("customer-signature") || undefined;
    this.#client ??= createSupportClient({ baseUrl, productSlug: product, customerId, customerSignature });
    return this.#client;
  }

  toggle(open = !this.#open) {
    this.#open = open;
    this.#panel.hidden = !open;
    this.#launcher.setAttribute("aria-expanded", String(open));
    if (open) void this.show(this.#view);
    else {
      this.#live?.close();
      this.#live = undefined;
      this.#launcher.focus();
    }
  }

  async show(view: View) {
    if (this.#view.kind === "thread" && (view.kind !== "thread" || view.id !== this.#view.id)) {
      this.#live?.close();
      this.#live = undefined;
    }
    this.#view = view;
    this.#picker?.dispose();
    this.#picker = undefined;
    if (view.kind === "list") await this.#renderList();
    else if (view.kind === "new") this.#renderNew();
    else this.#renderThread(view.id);
  }

  #frame(title: string, body: Node, footer?: Node, back = false) {
    const close = h("button", { class: "icon", type: "button", "aria-label": "Close support", onclick: () => this.toggle(false) }, "✕");
    const backButton = back
      ? h(
          "button",
          { class: "icon", type: "button", "aria-label": "Back to conversations", onclick: () => void this.show({ kind: "list" }) },
          "←",
        )
      : null;
    this.#panel.replaceChildren(h("header", {}, backButton, h("h2", { id: this.#titleId }, title), close), body, footer ?? "");
  }

  async #renderList() {
    const heading = this.getAttribute("heading") ?? "Support";
    const main = body("Conversations", h("p", { class: "notice" }, "Loading…"));
    const start = h("button", { class: "primary", type: "button", onclick: () => void this.show({ kind: "new" }) }, "New conversation");
    this.#frame(heading, main, h("div", { class: "row", style: "padding:10px 12px" }, start));
    let page: { conversations: Summary[]; next?: string };
    try {
      page = await this.client.listPage();
    } catch (e) {
      main.replaceChildren(h("p", { class: "error", role: "alert" }, `Could not load your conversations: ${(e as Error).message}`));
      return;
    }
    if (this.#view.kind !== "list") return;
    if (!page.conversations.length) {
      main.replaceChildren(h("p", { class: "empty" }, "No conversations yet. Start one and we will answer here."));
      return;
    }
    const list = h("ul", { class: "list", "aria-label": "Your conversations" }, ...page.conversations.map((c) => this.#listItem(c)));
    main.replaceChildren(list);
    // interface A answers a page at a time, most recent first: the next one follows its `Link: rel="next"`
    let next = page.next;
    const more: HTMLButtonElement = h(
      "button",
      {
        class: "more",
        type: "button",
        onclick: () => {
          if (!next) return;
          more.disabled = true;
          this.client
            .listPage({ next })
            .then((p) => {
              list.append(...p.conversations.map((c) => this.#listItem(c)));
              next = p.next;
              more.disabled = false;
              more.hidden = !next;
            })
            .catch((err: Error) => {
              more.disabled = false;
              more.textContent = `Could not load more (${err.message}): try again`;
            });
        },
      },
      "Older conversations",
    );
    more.hidden = !next;
    main.append(more);
  }

  #listItem(c: Summary) {
    const s = statusOf(c.status, c.isOpen);
    return h(
      "li",
      {},
      h(
        "button",
        { type: "button", onclick: () => void this.show({ kind: "thread", id: c.id }) },
        h("span", { class: "subject" }, c.subject),
        h("span", { class: "meta" }, h("span", { class: `badge ${s.tone}` }, s.text), ` · ${when(c.updatedAt)}`),
      ),
    );
  }

  /** The composer's alert: the reason a send or an upload failed (hidden when there is none). */
  #errorLine() {
    const error = h("p", { class: "error", role: "alert", hidden: true });
    const say = (text: string) => {
      error.hidden = !text;
      error.textContent = text;
    };
    return { error, say };
  }

  /** The message's words, or the files' names when it has none; undefined when there is nothing to send yet. */
  #outgoing(text: HTMLTextAreaElement, picker: AttachPicker, say: (text: string) => void) {
    if (picker.busy) {
      say("Wait for the files to finish uploading.");
      return undefined;
    }
    const files = picker.files;
    const message = text.value.trim() || (files.length ? filesOnlyText(files) : "");
    return message ? { message, files } : undefined;
  }

  #renderNew() {
    const text = h("textarea", { id: "mk-new", rows: "4", maxlength: "20000" });
    const { error, say } = this.#errorLine();
    const picker = new AttachPicker(() => this.client, say);
    this.#picker = picker;
    // one id for this draft: a send repeated after a lost answer finds the conversation the first one created
    const clientMessageId = newClientMessageId();
    const send = h("button", { class: "primary", type: "submit" }, "Send");
    const form = h(
      "form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          say("");
          const out = this.#outgoing(text, picker, say);
          if (!out) return;
          send.disabled = true;
          this.client
            .create({ message: out.message, clientMessageId, attachments: out.files.map((f) => f.id) })
            .then((r) => this.show({ kind: "thread", id: r.conversationId }))
            .catch((err: Error) => {
              say(`Not sent: ${err.message}`);
              send.disabled = false;
            });
        },
      },
      h("label", { for: "mk-new" }, "How can we help?"),
      text,
      picker.chips,
      error,
      h("div", { class: "row" }, picker.button, picker.input, send),
    );
    picker.listen(text, form);
    this.#frame(
      "New conversation",
      body("New conversation", h("p", { class: "notice" }, "Our team replies here, usually within a day.")),
      form,
      true,
    );
    text.focus();
  }

  #renderThread(id: string) {
    const thread = h("ol", { class: "thread", "aria-label": "Messages" });
    const rating = new RatingPrompt(
      () => this.client,
      id,
      () => {
        this.#noRatings = true;
      },
    );
    const main = body("Conversation", thread, rating.el);
    const status = h("span", { class: "badge" });
    const actions = h("div", { class: "row" });
    const text = h("textarea", { id: "mk-reply", rows: "2", maxlength: "20000" });
    const label = h("label", { for: "mk-reply" }, "Your message");
    const { error, say } = this.#errorLine();
    const picker = new AttachPicker(() => this.client, say);
    this.#picker = picker;
    const files = new FileNodes((fileId) => this.client.attachmentUrl(fileId));
    const send = h("button", { class: "primary", type: "submit" }, "Send");
    const form = h(
      "form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          say("");
          const out = this.#outgoing(text, picker, say);
          if (!out || !this.#live) return;
          text.value = "";
          picker.clear();
          this.#live.send(out.message, out.files).catch((err: Error) => {
            say(`Not sent: ${err.message}. Retry from the message.`);
          });
        },
      },
      h("div", { class: "meta" }, "Status: ", status),
      label,
      text,
      picker.chips,
      error,
      h("div", { class: "row" }, actions, picker.button, picker.input, send),
    );
    picker.listen(text, form, main);
    text.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
    });
    this.#frame("Conversation", main, form, true);

    const render = (s: LiveState) => {
      if (this.#view.kind !== "thread" || this.#view.id !== id) return;
      const issue = s.issue;
      const nearBottom = main.scrollHeight - main.scrollTop - main.clientHeight < 40;
      const items: Node[] = [];
      if (issue)
        items.push(
          this.#message(
            {
              text: issue.text,
              author: "You",
              createdAt: issue.createdAt,
              isCustomer: true,
              status: "sent",
              attachments: issue.attachments,
            },
            files,
          ),
        );
      for (const c of s.comments) items.push(this.#message(c, files, c.clientMessageId));
      thread.replaceChildren(...items);
      if (nearBottom) main.scrollTop = main.scrollHeight;
      if (s.deleted) {
        form.replaceChildren(h("p", { class: "notice" }, "This conversation is no longer available."));
        rating.update(false, undefined);
        return;
      }
      if (!issue) return;
      const st = statusOf(issue.status, issue.state === "open");
      status.className = `badge ${st.tone}`;
      status.textContent = st.text;
      const closed = st.tone === "closed";
      rating.update(!this.#noRatings && (closed || st.tone === "resolved"), s.rating);
      text.disabled = closed;
      send.disabled = closed;
      picker.disabled = closed;
      // a disabled composer drops focus: keep it in the panel, so Escape and Tab still work
      if (closed && (this.#root.activeElement === null || this.#root.activeElement === text)) main.focus();
      label.textContent = closed
        ? "This conversation is closed. Start a new one to write again."
        : st.tone === "resolved"
          ? "Resolved. Write a message to reopen it."
          : "Your message";
      actions.replaceChildren(
        ...(st.tone === "open" || st.tone === "waiting"
          ? [h("button", { class: "secondary", type: "button", onclick: () => void this.#close(id, "resolve") }, "Mark resolved")]
          : st.tone === "resolved"
            ? [h("button", { class: "secondary", type: "button", onclick: () => text.focus() }, "Reopen")]
            : []),
      );
    };
    this.#live = liveConversation(this.client, id, {
      onChange: render,
      onEvent: (e: StreamEvent) => {
        if (e.type === "new_comment" && e.data && e.data.isCustomer === false)
          this.#announcer.textContent = `New reply from ${e.data.author}`;
      },
    });
    text.focus();
  }

  #message(
    m: { text: string; author: string; createdAt: string; isCustomer: boolean; status: string; attachments?: Attachment[] },
    files: FileNodes,
    retryId?: string,
  ) {
    const meta = h(
      "span",
      { class: "meta" },
      `${m.isCustomer ? "You" : m.author} · ${m.status === "pending" ? "sending…" : when(m.createdAt)}`,
    );
    const retry =
      m.status === "failed" && retryId
        ? h("button", { class: "secondary", type: "button", onclick: () => void this.#live?.retry(retryId).catch(() => {}) }, "Retry")
        : null;
    return h(
      "li",
      { class: `msg${m.isCustomer ? " customer" : ""}${m.status === "failed" ? " failed" : ""}` },
      m.text || "(empty message)",
      files.list(m.attachments),
      meta,
      retry,
    );
  }

  async #close(id: string, action: "resolve" | "close") {
    try {
      await this.client.close(id, action);
      await this.#live?.refresh();
    } catch (e) {
      this.#announcer.textContent = `Could not update the conversation: ${(e as Error).message}`;
    }
  }
}
