// <mountkit-memory-explorer>: one brain of the memory service, seen through its API with the brain's key
// (kept in sessionStorage only): the fact graph at any (asOf, knownAt) point, episodes with their
// extraction status, entities and their facts, a recall playground, invalidation, playbooks as markdown.
import {
  ApiError,
  apiBase,
  type Edge,
  type Entity,
  type Episode,
  LIST_CAP,
  MemoryClient,
  type Playbook,
  type PlaybookSummary,
  type Recall,
} from "./client.js";
import { clear, h } from "./dom.js";
import { FactGraph, type GraphEdgeView } from "./graph.js";
import { renderMarkdown } from "./markdown.js";
import { STYLES } from "./styles.js";
import { formatInstant, stopIndex, stops } from "./timeline.js";

const KEY_STORAGE = "mountkit.memory.key";
/** While an episode is still queued or processing, its status is read again this often. */
const POLL_MS = 1500;
/** A dragged slider asks the API once it rests this long: every call counts against the brain's quota. */
const SLIDER_REST_MS = 120;

const iso = (t: number) => new Date(t).toISOString();
const when = (s: string | null) => (s === null ? "open" : formatInstant(Date.parse(s)));

export class MemoryExplorerElement extends HTMLElement {
  private readonly root: ShadowRoot;
  private client: MemoryClient | null = null;
  private graph: FactGraph | null = null;
  private entities = new Map<string, Entity>();
  private history: Edge[] = [];
  private visible: Edge[] = [];
  private asOfStops: number[] = [];
  private knownStops: number[] = [];
  private selectedEntity: string | null = null;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private pointRequest = 0;
  private sliderTimer: ReturnType<typeof setTimeout> | undefined;
  private resizer: ResizeObserver | null = null;

  // parts of the page
  private readonly status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  private readonly alert = h("p", { class: "alert", role: "alert" });
  private readonly signin = h("form", { class: "signin" });
  private readonly keyInput = h("input", { id: "key", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
  private readonly signout = h("button", { type: "button", class: "secondary", hidden: true }, "Sign out");
  private readonly main = h("main", { hidden: true });
  private readonly asOf = h("input", { id: "asof", type: "range", min: "0", max: "0", step: "1", value: "0" });
  private readonly knownAt = h("input", { id: "knownat", type: "range", min: "0", max: "0", step: "1", value: "0" });
  private readonly asOfOut = h("output", { for: "asof", id: "asof-value" });
  private readonly knownAtOut = h("output", { for: "knownat", id: "knownat-value" });
  private readonly graphBox = h("div", { class: "graph", role: "img", "aria-label": "Fact graph" });
  private readonly graphSummary = h("p", { class: "meta", id: "graph-summary" });
  private readonly validList = h("ul", { class: "facts", "aria-label": "Facts valid at this point" });
  private readonly otherList = h("ul", { class: "facts", "aria-label": "Other facts" });
  // scrollable, so reachable by keyboard
  private readonly episodeList = h("ul", { class: "rows", "aria-label": "Episodes", tabindex: "0" });
  private readonly entityList = h("ul", { class: "chips", "aria-label": "Entities" });
  private readonly entityFacts = h("div", { class: "entity-facts" });
  private readonly recallForm = h("form", { class: "recall" });
  private readonly recallOut = h("div", { class: "recall-out", "aria-live": "polite" });
  private readonly playbookList = h("ul", { class: "chips", "aria-label": "Playbooks" });
  private readonly playbookView = h("article", { class: "markdown", "aria-label": "Playbook" });

  constructor() {
    super();
    this.root = this.attachShadow({ mode: "open" });
  }

  /** The graph as cytoscape draws it now: each edge with its fact and state at the sliders' point. */
  get graphEdges(): GraphEdgeView[] {
    return this.graph?.edges() ?? [];
  }

  connectedCallback(): void {
    if (this.root.childElementCount) return;
    this.build();
    const saved = sessionStorage.getItem(KEY_STORAGE);
    if (saved) void this.open(saved);
  }

  disconnectedCallback(): void {
    clearTimeout(this.pollTimer);
    clearTimeout(this.sliderTimer);
    this.resizer?.disconnect();
  }

  private build(): void {
    const style = h("style");
    style.textContent = STYLES;
    this.signin.append(
      h("label", { for: "key" }, "API key of a brain"),
      h("div", { class: "row" }, this.keyInput, h("button", { type: "submit" }, "Open")),
      h("p", { class: "meta" }, "The key stays in this tab (sessionStorage) and is sent only to this memory service."),
    );
    this.signin.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.open(this.keyInput.value.trim());
    });
    this.signout.addEventListener("click", () => this.close());

    for (const [input, axis] of [
      [this.asOf, "asOf"],
      [this.knownAt, "knownAt"],
    ] as const) {
      input.addEventListener("input", () => {
        this.showStops();
        clearTimeout(this.sliderTimer);
        this.sliderTimer = setTimeout(() => void this.loadPoint(), SLIDER_REST_MS);
      });
      input.setAttribute("aria-describedby", axis === "asOf" ? "asof-value" : "knownat-value");
    }

    const recallInput = h("input", { id: "recall-q", type: "search", required: true, maxlength: "2000" });
    const atPoint = h("input", { id: "recall-at", type: "checkbox" });
    this.recallForm.append(
      h("label", { for: "recall-q" }, "Question"),
      h("div", { class: "row" }, recallInput, h("button", { type: "submit" }, "Recall")),
      h("div", { class: "check" }, atPoint, h("label", { for: "recall-at" }, "As of the sliders' point (otherwise now)")),
    );
    this.recallForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.recall(recallInput.value, atPoint.checked);
    });

    const refresh = h("button", { type: "button", class: "secondary" }, "Refresh");
    refresh.addEventListener("click", () => void this.reload());

    this.main.append(
      h(
        "section",
        { class: "graph-panel", "aria-labelledby": "graph-h" },
        h("h2", { id: "graph-h" }, "Facts over time"),
        h(
          "div",
          { class: "sliders" },
          h("label", { for: "asof" }, "Valid at (asOf)"),
          this.asOf,
          this.asOfOut,
          h("label", { for: "knownat" }, "Known at (knownAt)"),
          this.knownAt,
          this.knownAtOut,
        ),
        this.graphBox,
        this.graphSummary,
        h("h3", {}, "Valid at this point"),
        this.validList,
        h("details", {}, h("summary", {}, "Other facts: ended, not yet valid, or not yet known"), this.otherList),
      ),
      h(
        "div",
        { class: "side" },
        h(
          "section",
          { "aria-labelledby": "episodes-h" },
          h("div", { class: "row spread" }, h("h2", { id: "episodes-h" }, "Episodes"), refresh),
          this.episodeList,
        ),
        h("section", { "aria-labelledby": "entities-h" }, h("h2", { id: "entities-h" }, "Entities"), this.entityList, this.entityFacts),
        h("section", { "aria-labelledby": "recall-h" }, h("h2", { id: "recall-h" }, "Recall"), this.recallForm, this.recallOut),
        h(
          "section",
          { "aria-labelledby": "playbooks-h" },
          h("h2", { id: "playbooks-h" }, "Playbooks"),
          this.playbookList,
          this.playbookView,
        ),
      ),
    );

    this.root.append(
      style,
      h(
        "div",
        { class: "app" },
        h("header", {}, h("h1", {}, "Memory explorer"), this.signout),
        this.alert,
        this.status,
        this.signin,
        this.main,
      ),
    );
  }

  private async open(key: string): Promise<void> {
    if (!key) return;
    const client = new MemoryClient(apiBase(document), key);
    this.say("Opening the brain…");
    try {
      await client.request("/v1/episodes?limit=1");
    } catch (err) {
      this.fail(err);
      sessionStorage.removeItem(KEY_STORAGE);
      return;
    }
    sessionStorage.setItem(KEY_STORAGE, key);
    this.client = client;
    this.keyInput.value = "";
    this.signin.hidden = true;
    this.signout.hidden = false;
    this.main.hidden = false;
    if (!this.graph) {
      this.graph = new FactGraph(this.graphBox);
      this.graph.onSelect((id) => void this.selectEntity(id));
      this.resizer = new ResizeObserver(() => this.graph?.resize());
      this.resizer.observe(this.graphBox);
    }
    await this.reload();
  }

  private close(): void {
    sessionStorage.removeItem(KEY_STORAGE);
    clearTimeout(this.pollTimer);
    this.client = null;
    this.main.hidden = true;
    this.signin.hidden = false;
    this.signout.hidden = true;
    this.say("Signed out.");
    this.keyInput.focus();
  }

  /** Reads the whole brain again: episodes, entities, the edge history, playbooks; then the sliders' point. */
  private async reload(): Promise<void> {
    const client = this.client;
    if (!client) return;
    clearTimeout(this.pollTimer);
    try {
      const [episodes, entities, history, playbooks] = await Promise.all([
        client.all<Episode>("/v1/episodes"),
        client.all<Entity>("/v1/entities"),
        client.all<Edge>("/v1/edges"),
        client.all<PlaybookSummary>("/v1/playbooks"),
      ]);
      this.entities = new Map(entities.map((e) => [e.id, e]));
      this.history = history;
      this.renderEpisodes(episodes);
      this.renderEntities();
      this.renderPlaybooks(playbooks);
      this.setStops(Date.now());
      this.graph?.setHistory(this.entities, history);
      await this.loadPoint();
      const pending = episodes.filter((e) => e.status === "queued" || e.status === "processing").length;
      const capped = [episodes, entities, history].some((list) => list.length >= LIST_CAP);
      this.say(
        `${episodes.length} episodes, ${entities.length} entities, ${history.length} facts` +
          (capped ? ` (lists stop at the newest ${LIST_CAP})` : "") +
          (pending ? `; ${pending} episode${pending === 1 ? "" : "s"} still being extracted` : "."),
      );
      if (pending) this.pollTimer = setTimeout(() => void this.reload(), POLL_MS);
    } catch (err) {
      this.fail(err);
    }
  }

  /** New stops for both sliders; a slider at "now" stays at now, one moved keeps its instant. */
  private setStops(now: number): void {
    const keep = (input: HTMLInputElement, list: number[]) => {
      const at = Number(input.value);
      return list.length === 0 || at >= list.length - 1 ? null : list[at]!;
    };
    const asOfWas = keep(this.asOf, this.asOfStops);
    const knownWas = keep(this.knownAt, this.knownStops);
    this.asOfStops = stops(this.history, "valid", now);
    this.knownStops = stops(this.history, "known", now);
    for (const [input, list, was] of [
      [this.asOf, this.asOfStops, asOfWas],
      [this.knownAt, this.knownStops, knownWas],
    ] as const) {
      input.max = String(list.length - 1);
      input.value = String(was === null ? list.length - 1 : stopIndex(list, was));
    }
    this.showStops();
  }

  private point(): { asOf: number; knownAt: number } {
    return {
      asOf: this.asOfStops[Number(this.asOf.value)] ?? Date.now(),
      knownAt: this.knownStops[Number(this.knownAt.value)] ?? Date.now(),
    };
  }

  private showStops(): void {
    const { asOf, knownAt } = this.point();
    const label = (input: HTMLInputElement, t: number) => {
      const isNow = Number(input.value) === Number(input.max);
      const text = isNow ? `now (${formatInstant(t)})` : formatInstant(t);
      input.setAttribute("aria-valuetext", text);
      return text;
    };
    this.asOfOut.textContent = label(this.asOf, asOf);
    this.knownAtOut.textContent = label(this.knownAt, knownAt);
  }

  /** The edges visible at the sliders' point, asked of the API (GET /v1/edges?asOf=&knownAt=). */
  private async loadPoint(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const ticket = ++this.pointRequest;
    const { asOf, knownAt } = this.point();
    try {
      const visible = await client.all<Edge>("/v1/edges", { asOf: iso(asOf), knownAt: iso(knownAt) });
      if (ticket !== this.pointRequest) return; // a later move of a slider won
      this.visible = visible;
      this.renderPoint();
    } catch (err) {
      this.fail(err);
    }
  }

  private renderPoint(): void {
    const ids = new Set(this.visible.map((e) => e.id));
    this.graph?.setVisible(ids);
    this.graph?.select(this.selectedEntity);
    const ended = this.history.length - ids.size;
    const summary = `${ids.size} fact${ids.size === 1 ? "" : "s"} valid and known at this point; ${ended} other${ended === 1 ? "" : "s"} drawn dashed.`;
    this.graphSummary.textContent = summary;
    this.graphBox.setAttribute("aria-label", `Fact graph: ${summary}`);
    clear(this.validList, ...this.visible.map((e) => this.factItem(e, true)));
    if (!this.visible.length) this.validList.append(h("li", { class: "meta" }, "No fact was valid and known at this point."));
    clear(this.otherList, ...this.history.filter((e) => !ids.has(e.id)).map((e) => this.factItem(e, false)));
  }

  private name(id: string): string {
    return this.entities.get(id)?.name ?? id;
  }

  private factItem(e: Edge, valid: boolean): HTMLLIElement {
    const li = h(
      "li",
      { class: valid ? "fact valid" : "fact ended", "data-edge": e.id },
      h("span", { class: "fact-text" }, e.fact),
      h(
        "span",
        { class: "meta" },
        `${this.name(e.source)} · ${e.relation} · ${this.name(e.target)} — valid ${when(e.tValid)} → ${when(e.tInvalid)}; known ${when(e.tIngested)} → ${when(e.tExpired)}`,
      ),
      e.invalidationReason ? h("span", { class: "meta reason" }, `Ended: ${e.invalidationReason}`) : null,
    );
    // only an edge whose validity has no end yet, or an end in the future, can be invalidated (409 otherwise)
    const open = e.tExpired === null && (e.tInvalid === null || Date.parse(e.tInvalid) > Date.now());
    if (open) {
      const button = h("button", { type: "button", class: "secondary small", "aria-label": `Invalidate: ${e.fact}` }, "Invalidate…");
      button.addEventListener("click", () => this.invalidateForm(li, button, e));
      li.append(button);
    }
    return li;
  }

  private invalidateForm(li: HTMLLIElement, button: HTMLButtonElement, e: Edge): void {
    const id = `reason-${e.id}`;
    const reason = h("input", { id, type: "text", maxlength: "500" });
    const cancel = h("button", { type: "button", class: "secondary small" }, "Cancel");
    const form = h(
      "form",
      { class: "invalidate" },
      h("label", { for: id }, "Reason"),
      h("div", { class: "row" }, reason, h("button", { type: "submit", class: "small danger" }, "Invalidate"), cancel),
    );
    cancel.addEventListener("click", () => {
      form.remove();
      button.hidden = false;
      button.focus();
    });
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        await this.client?.request(`/v1/edges/${encodeURIComponent(e.id)}/invalidate`, {
          method: "POST",
          body: reason.value.trim() ? { reason: reason.value.trim() } : {},
        });
        this.say(`Invalidated: ${e.fact}`);
        await this.reload();
      } catch (err) {
        this.fail(err);
      }
    });
    button.hidden = true;
    li.append(form);
    reason.focus();
  }

  private renderEpisodes(episodes: Episode[]): void {
    clear(
      this.episodeList,
      ...episodes.map((ep) =>
        h(
          "li",
          { class: "episode", "data-episode": ep.id },
          h("span", { class: `badge ${ep.status ?? "done"}` }, ep.status ?? "done"),
          h("span", { class: "episode-text" }, ep.content),
          h(
            "span",
            { class: "meta" },
            `occurred ${formatInstant(Date.parse(ep.occurredAt))}` +
              (typeof ep.metadata.playbook === "string" ? ` · playbook ${ep.metadata.playbook}` : "") +
              (ep.error ? ` · ${ep.error}` : ""),
          ),
        ),
      ),
    );
    if (!episodes.length) this.episodeList.append(h("li", { class: "meta" }, "No episode yet."));
  }

  private renderEntities(): void {
    const list = [...this.entities.values()].sort((a, b) => a.name.localeCompare(b.name));
    clear(
      this.entityList,
      ...list.map((e) => {
        const b = h("button", { type: "button", class: "chip", "aria-pressed": String(e.id === this.selectedEntity) }, e.name);
        b.addEventListener("click", () => void this.selectEntity(e.id));
        return h("li", {}, b);
      }),
    );
    if (!list.length) this.entityList.append(h("li", { class: "meta" }, "No entity yet."));
  }

  /** An entity's facts, its whole history (GET /v1/edges?entityId=), each marked at the sliders' point. */
  private async selectEntity(id: string): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.selectedEntity = id;
    this.graph?.select(id);
    this.renderEntities();
    try {
      const edges = await client.all<Edge>("/v1/edges", { entityId: id });
      const visible = new Set(this.visible.map((e) => e.id));
      clear(
        this.entityFacts,
        h("h3", {}, `Facts about ${this.name(id)}`),
        h("ul", { class: "facts", "aria-label": `Facts about ${this.name(id)}` }, ...edges.map((e) => this.factItem(e, visible.has(e.id)))),
      );
    } catch (err) {
      this.fail(err);
    }
  }

  private async recall(query: string, atPoint: boolean): Promise<void> {
    const client = this.client;
    if (!client || !query.trim()) return;
    const { asOf, knownAt } = this.point();
    try {
      const r = await client.request<Recall>("/v1/recall", {
        method: "POST",
        body: { query, ...(atPoint ? { asOf: iso(asOf), knownAt: iso(knownAt) } : {}) },
      });
      const context = h("pre", { class: "context", tabindex: "0", "aria-label": "Context" });
      context.textContent = r.context || "(empty)";
      clear(
        this.recallOut,
        h("p", { class: "meta" }, `As of ${formatInstant(Date.parse(r.asOf))}, known at ${formatInstant(Date.parse(r.knownAt))}`),
        h("h3", {}, "Context"),
        context,
        h("h3", {}, "Facts"),
        h(
          "ol",
          { class: "facts", "aria-label": "Recalled facts" },
          ...r.edges.map((e) =>
            h(
              "li",
              { class: "fact" },
              h("span", { class: "fact-text" }, e.fact),
              h("span", { class: "meta" }, `score ${(e.score ?? 0).toFixed(3)} · ${e.id}`),
            ),
          ),
        ),
        h("h3", {}, "Cited episodes"),
        h(
          "ul",
          { class: "rows", "aria-label": "Cited episodes", tabindex: "0" },
          ...r.episodes.map((ep) =>
            h(
              "li",
              { class: "episode" },
              h("span", { class: "episode-text" }, ep.content),
              h("span", { class: "meta" }, `occurred ${formatInstant(Date.parse(ep.occurredAt))} · ${ep.id}`),
            ),
          ),
        ),
      );
    } catch (err) {
      this.fail(err);
    }
  }

  private renderPlaybooks(playbooks: PlaybookSummary[]): void {
    clear(
      this.playbookList,
      ...playbooks.map((p) => {
        const b = h("button", { type: "button", class: "chip" }, p.title || p.slug);
        b.addEventListener("click", () => void this.openPlaybook(p.slug));
        return h("li", {}, b);
      }),
    );
    if (!playbooks.length) this.playbookList.append(h("li", { class: "meta" }, "No playbook yet."));
  }

  private async openPlaybook(slug: string): Promise<void> {
    try {
      const p = await this.client!.request<Playbook>(`/v1/playbooks/${encodeURIComponent(slug)}`);
      // markdown-it with html disabled: stored text can never become markup of its own
      this.playbookView.innerHTML = renderMarkdown(p.content);
      this.playbookView.setAttribute("aria-label", `Playbook ${p.title}`);
    } catch (err) {
      this.fail(err);
    }
  }

  private say(message: string): void {
    this.alert.textContent = "";
    this.status.textContent = message;
  }

  private fail(err: unknown): void {
    if (err instanceof ApiError && err.status === 401 && this.client) this.close();
    this.alert.textContent = err instanceof ApiError ? err.message : "The memory service could not be reached.";
  }
}
