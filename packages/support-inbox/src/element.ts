// <mountkit-inbox>: the agent inbox page. Sign in with the shared agent token or a token of the host's own identity
// (sessionStorage only; `GET /agent/me` says who it is), conversations filtered by status / label / assignee / search,
// a live thread, reply, labels, assignee, resolve and close, and the customers' ratings (a dialog from the top bar).
// This element keeps the session and the layout; the views are in `views/` (sign-in, list and filters,
// conversation and composer).
import { h } from "@mountkit/core/dom";
import { type AgentSummary, agentApi, type ListFilter, type StreamHandle } from "./api.js";
import { apiBase, pageSize, STATUS_FILTERS, TOKEN_REFUSED } from "./dom.js";
import { STYLES } from "./styles.js";
import type { InboxContext } from "./views/context.js";
import { ConversationView } from "./views/conversation.js";
import { ConversationList } from "./views/list.js";
import { RatingsDialog } from "./views/ratings.js";
import { NAME_NEEDED, signedInAgent, signInError, signInView } from "./views/sign-in.js";

const TOKEN_KEY = "mountkit.inbox.token";
const AUTHOR_KEY = "mountkit.inbox.author";
const PRODUCT_KEY = "mountkit.inbox.product";

/** A signed-in session: its views and the inbox stream. */
interface Session {
  list: ConversationList;
  conversation: ConversationView;
  inbox: StreamHandle;
}

export class MountkitInboxElement extends HTMLElement {
  #root: ShadowRoot;
  #author = "";
  #product = "";
  #filter: ListFilter = { status: STATUS_FILTERS[0]![0] };
  #session: Session | undefined;
  #app!: HTMLElement;
  #announcer!: HTMLElement;

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
    // a verified agent's name comes from their token, so only the shared token needs the stored name
    if (token && this.#product) void this.#signIn(token, false);
    else this.#renderSignIn();
  }

  disconnectedCallback() {
    this.#session?.inbox.close();
    this.#session?.conversation.close();
  }

  #announce(text: string) {
    // cleared first so the same text twice is read twice
    this.#announcer.textContent = "";
    setTimeout(() => {
      this.#announcer.textContent = text;
    }, 50);
  }

  #renderSignIn(message?: string) {
    const view = signInView({ author: this.#author, product: this.#product, message }, (input, error) => {
      this.#author = input.author;
      this.#product = input.product;
      void this.#signIn(input.token, true, error);
    });
    this.#app.replaceChildren(view.node);
    view.focus();
  }

  async #signIn(token: string, fresh: boolean, error?: HTMLElement) {
    if (!token || !this.#product) return;
    const api = agentApi(apiBase(), token, pageSize());
    try {
      // who the token is and the first list double as the token check: nothing is kept until both pass
      const [me, first] = await Promise.all([api.me(), api.list(this.#product, this.#filter)]);
      const agent = signedInAgent(me, this.#author);
      if (!agent) {
        if (!fresh) sessionStorage.removeItem(TOKEN_KEY);
        return this.#signInFailed(NAME_NEEDED, error);
      }
      sessionStorage.setItem(TOKEN_KEY, token);
      if (me.via === "token") localStorage.setItem(AUTHOR_KEY, this.#author);
      localStorage.setItem(PRODUCT_KEY, this.#product);
      const cx: InboxContext = {
        api,
        product: this.#product,
        author: agent.name,
        agent,
        root: this.#root,
        announce: (text) => this.#announce(text),
        signOut: (message) => this.#signOut(message),
      };
      this.#start(cx, first);
      if (fresh) this.#announce(`Signed in. ${first.items.length} conversations.`);
    } catch (e) {
      if (!fresh) sessionStorage.removeItem(TOKEN_KEY);
      this.#signInFailed(signInError(e, this.#product), error);
    }
  }

  #signInFailed(message: string, error?: HTMLElement) {
    if (error) error.textContent = message;
    else this.#renderSignIn(message);
  }

  #signOut(message?: string) {
    sessionStorage.removeItem(TOKEN_KEY);
    const s = this.#session;
    this.#session = undefined;
    s?.inbox.close();
    s?.conversation.close();
    s?.list.close();
    this.#renderSignIn(message);
  }

  /** The signed-in layout: the top bar, the list beside the thread, and the inbox stream that keeps the list live. */
  #start(cx: InboxContext, first: { items: AgentSummary[]; next: string | null }) {
    const live = h("span", { class: "live", role: "status", "data-up": "false" }, "Connecting…");
    const top = h(
      "header",
      { class: "top" },
      h("h1", {}, "Support inbox"),
      h("span", { class: "muted" }, cx.product),
      h("span", { class: "grow" }),
      live,
      h(
        "span",
        { class: "who", "data-via": cx.agent.id === null ? "token" : "identity" },
        "Signed in as ",
        h("strong", {}, cx.agent.name),
        cx.agent.id === null ? h("span", { class: "muted" }, " (shared token)") : null,
      ),
      h("button", { type: "button", onclick: () => ratings.show() }, "Ratings"),
      h("button", { type: "button", onclick: () => this.#signOut() }, "Sign out"),
    );
    let conversation: ConversationView | undefined;
    const ratings = new RatingsDialog(cx, (id) => conversation?.open(id));
    const list = new ConversationList(cx, this.#filter, first, {
      open: (id) => conversation?.open(id),
      currentId: () => conversation?.currentId,
      filtered: (f) => {
        this.#filter = f;
      },
    });
    const layout = h("div", { class: "layout", "data-view": "list" });
    conversation = new ConversationView(cx, list, (pane) => {
      layout.dataset.view = pane;
    });
    layout.append(list.element, conversation.element);
    this.#app.replaceChildren(top, h("main", {}, layout), ratings.element);
    list.show(first.items);
    const setLive = (up: boolean) => {
      live.dataset.up = String(up);
      live.textContent = up ? "Live" : "Reconnecting…";
    };
    const inbox = cx.api.follow(`/stream?productSlug=${encodeURIComponent(cx.product)}`, {
      onConnected: () => {
        setLive(true);
        // anything missed while the stream was down: the list is the state, read it again
        list.schedule(0);
      },
      onDown: () => setLive(false),
      onUnauthorized: () => this.#signOut(TOKEN_REFUSED),
      onEvent: (e) => {
        if (e.type === "conversation_changed") list.schedule(150);
        if (e.type === "notes_changed") void conversation?.notesChanged(String((e.data as { conversationId?: unknown })?.conversationId));
      },
    });
    this.#session = { list, conversation, inbox };
  }
}
