// <mountkit-catalogue>: the entries service's API catalogue in one element. A hash router (`#/types`,
// `#/types/<id>`, `#/entries/<type>`, `#/entries/<type>/<id>`, `#/validate`) over read-only views, inside a
// shadow root. Reading needs no token (the list, get, inventory and validation routes are public).
import { ApiError, apiBase, createApi } from "./api.js";
import { h } from "./dom.js";
import { STYLES } from "./styles.js";
import type { View, ViewContext } from "./views/context.js";
import { entriesView } from "./views/entries.js";
import { entryView } from "./views/entry.js";
import { typesView, typeView } from "./views/types.js";
import { validateView } from "./views/validate.js";

interface Route {
  view: View;
  section: "types" | "entries" | "validate";
  title: string;
}

/** Which view a hash opens; an unknown hash falls back to the types. */
export function routeOf(segments: string[]): Route {
  const [head, a, b] = segments;
  if (head === "types" && a) return { view: typeView, section: "types", title: `${a} OpenAPI` };
  if (head === "entries" && a && b) return { view: entryView, section: "entries", title: "Entry" };
  if (head === "entries") return { view: entriesView, section: "entries", title: "Entries" };
  if (head === "validate") return { view: validateView, section: "validate", title: "Validate" };
  return { view: typesView, section: "types", title: "Types" };
}

function parseHash(hash: string): { segments: string[]; query: URLSearchParams } {
  const raw = hash.replace(/^#\/?/, "");
  const [path = "", qs = ""] = raw.split("?", 2);
  const segments = path
    .split("/")
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(qs) };
}

export class MountkitCatalogueElement extends HTMLElement {
  static observedAttributes = ["api"];
  #root: ShadowRoot;
  #main!: HTMLElement;
  #announcer!: HTMLElement;
  #nav = new Map<string, HTMLAnchorElement>();
  #current: AbortController | undefined;
  #rendered = false;
  #onHash = () => void this.#render();

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
  }

  connectedCallback() {
    if (!this.#main) {
      const link = (section: string, label: string) => {
        const a = h("a", { href: `#/${section}` }, label);
        this.#nav.set(section, a);
        return h("li", {}, a);
      };
      this.#main = h("main", { id: "main" });
      this.#announcer = h("div", { class: "sr-only", role: "status", "aria-live": "polite" });
      this.#root.append(
        h("style", {}, STYLES),
        h(
          "header",
          {},
          h("h1", {}, this.getAttribute("heading") ?? "API catalogue"),
          h(
            "nav",
            { "aria-label": "Catalogue" },
            h("ul", {}, link("types", "Types"), link("entries", "Entries"), link("validate", "Validate")),
          ),
        ),
        this.#main,
        this.#announcer,
      );
    }
    window.addEventListener("hashchange", this.#onHash);
    void this.#render();
  }

  disconnectedCallback() {
    window.removeEventListener("hashchange", this.#onHash);
    this.#current?.abort();
  }

  /** The API base: the `api` attribute, else the page shell's `<meta name="mountkit-base">`. */
  get base(): string {
    return (this.getAttribute("api") ?? apiBase()).replace(/\/+$/, "");
  }

  #announce(text: string) {
    // cleared first so the same sentence twice is still read
    this.#announcer.textContent = "";
    setTimeout(() => (this.#announcer.textContent = text), 50);
  }

  async #render() {
    this.#current?.abort();
    const controller = new AbortController();
    this.#current = controller;
    const { segments, query } = parseHash(location.hash);
    const route = routeOf(segments);
    for (const [section, a] of this.#nav) {
      if (section === route.section) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    document.title = `${route.title} · API catalogue`;
    this.#main.setAttribute("aria-busy", "true");
    const ctx: ViewContext = {
      api: createApi(this.base),
      segments,
      query,
      signal: controller.signal,
      announce: (t) => this.#announce(t),
      replaceHash: (hash) => {
        if (!controller.signal.aborted && location.hash !== hash) history.replaceState(history.state, "", hash);
      },
    };
    let node: Node;
    try {
      node = await route.view(ctx);
    } catch (e) {
      if (controller.signal.aborted) return;
      const message =
        e instanceof ApiError
          ? `${e.message} (HTTP ${e.status}${e.requestId ? `, request ${e.requestId}` : ""})`
          : e instanceof Error
            ? e.message
            : String(e);
      node = h(
        "div",
        { class: "alert", role: "alert" },
        h("h2", { id: "view-title", tabindex: "-1" }, "Could not load this page"),
        h("p", {}, message),
      );
    }
    if (controller.signal.aborted) return;
    this.#main.replaceChildren(node);
    this.#main.removeAttribute("aria-busy");
    // after a navigation (not the first paint) move focus to the new view's heading, as a page load would
    if (this.#rendered) this.#root.querySelector<HTMLElement>("#view-title")?.focus();
    this.#rendered = true;
  }
}
