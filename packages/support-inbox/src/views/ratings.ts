// The customers' ratings (docs/support.md#ratings): the stars of one rating (the conversation view shows them in its
// head), and the "Ratings" dialog that lists a product's ratings newest first with their summary (count, average,
// count per score), a score filter and "Load more"; a rating's row opens its conversation.
import { h } from "@mountkit/core/dom";
import { AgentApiError, type RatedConversation, type Rating, type RatingSummary } from "../api.js";
import { field, TOKEN_REFUSED, when } from "../dom.js";
import type { InboxContext } from "./context.js";

const SCORES = ["5", "4", "3", "2", "1"] as const;

/** A score as five stars, with a text equivalent for screen readers. */
export const stars = (score: number) =>
  h(
    "span",
    { class: "stars", role: "img", "aria-label": `${score} out of 5` },
    "★".repeat(Math.max(0, Math.min(5, score))) + "☆".repeat(Math.max(0, 5 - score)),
  );

/** The rating in the conversation's head: stars, score and the comment when there is one. */
export function ratingBlock(r: Rating) {
  return h(
    "div",
    { class: "rating", "data-score": String(r.score) },
    h("span", { class: "muted" }, "Customer rating "),
    stars(r.score),
    h("span", { class: "score" }, ` ${r.score}/5`),
    h("span", { class: "muted" }, ` · ${when(r.ratedAt)}`),
    r.comment ? h("q", { class: "comment" }, r.comment) : null,
  );
}

function summaryView(s: RatingSummary) {
  const bars = SCORES.map((k) =>
    h(
      "li",
      { "data-score": k },
      h("span", {}, `${k} ★`),
      h("progress", { max: String(Math.max(1, s.count)), value: String(s.byScore[k] ?? 0), "aria-label": `${k} stars` }),
      h("span", { class: "n" }, String(s.byScore[k] ?? 0)),
    ),
  );
  return h(
    "div",
    { class: "summary" },
    h(
      "p",
      { class: "totals" },
      `${s.count} ${s.count === 1 ? "rating" : "ratings"}`,
      s.average === null ? "" : ` · average ${s.average.toFixed(2)} / 5`,
    ),
    h("ul", { class: "bars", "aria-label": "Ratings per score" }, ...bars),
  );
}

/** The "Ratings" dialog of a session: read each time it opens, the score filter re-reads it from the first page. */
export class RatingsDialog {
  readonly element: HTMLDialogElement;
  readonly #cx: InboxContext;
  readonly #open: (id: string) => void;
  readonly #score: HTMLSelectElement;
  readonly #summary = h("div", { class: "summary-slot", "aria-live": "polite" });
  readonly #list = h("ul", { class: "rated", "aria-label": "Ratings" });
  #items: RatedConversation[] = [];
  #next: string | null = null;
  #run = 0;

  constructor(cx: InboxContext, open: (conversationId: string) => void) {
    this.#cx = cx;
    this.#open = open;
    this.#score = h(
      "select",
      { onchange: () => void this.#load() },
      h("option", { value: "" }, "Any score"),
      ...SCORES.map((k) => h("option", { value: k }, `${k} ★`)),
    );
    const close = h("button", { type: "button", onclick: () => this.element.close() }, "Close");
    this.element = h(
      "dialog",
      { class: "ratings", "aria-label": "Ratings" },
      h("div", { class: "row" }, h("h2", {}, "Ratings"), h("span", { class: "grow" }), close),
      field("Score", this.#score),
      this.#summary,
      this.#list,
    );
  }

  show() {
    if (!this.element.open) this.element.showModal();
    void this.#load();
  }

  async #load(cursor?: string) {
    const run = ++this.#run;
    const score = Number(this.#score.value) || undefined;
    try {
      const page = await this.#cx.api.ratings(this.#cx.product, score ? { score } : {}, cursor);
      if (run !== this.#run) return;
      this.#items = cursor ? [...this.#items, ...page.items] : page.items;
      this.#next = page.next;
      this.#summary.replaceChildren(summaryView(page.summary));
      this.#render();
    } catch (e) {
      if (e instanceof AgentApiError && e.status === 401) return this.#cx.signOut(TOKEN_REFUSED);
      const text = e instanceof AgentApiError && e.status === 501 ? "This product's backend keeps no ratings." : "The ratings could not be read.";
      this.#list.replaceChildren(h("li", { class: "empty error", role: "alert" }, text));
    }
  }

  #render() {
    if (!this.#items.length) {
      this.#list.replaceChildren(h("li", { class: "empty muted" }, "No ratings match."));
      return;
    }
    this.#list.replaceChildren(...this.#items.map((r) => h("li", {}, this.#row(r))));
    const next = this.#next;
    if (next)
      this.#list.append(h("li", { class: "empty" }, h("button", { type: "button", onclick: () => void this.#load(next) }, "Load more")));
  }

  #row(r: RatedConversation) {
    const openIt = () => {
      this.element.close();
      this.#open(r.conversationId);
    };
    return h(
      "button",
      { class: "item", type: "button", "data-id": r.conversationId, "data-score": String(r.score), onclick: openIt },
      h("span", { class: "subject" }, stars(r.score), ` ${r.subject}`),
      r.comment ? h("q", { class: "comment" }, r.comment) : null,
      h("span", { class: "meta muted" }, `${r.customerId} · ${when(r.ratedAt)}`),
    );
  }
}
