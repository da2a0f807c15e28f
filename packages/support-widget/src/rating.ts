// The thread's satisfaction prompt (docs/support.md#ratings): on a resolved or closed conversation, "How did we do?"
// with five native radios styled as stars (arrow keys move, labelled "1 poor" … "5 great") and an optional comment;
// then "Thanks" with the rating and a Change button (rating again replaces). A backend without ratings (501) hides it.
import { h } from "@mountkit/core/dom";
import type { Rating, SupportApiError, SupportClient } from "@mountkit/support-client";

/** What a score reads as, for the radios' names and the thanks line. */
const WORDS = ["poor", "fair", "okay", "good", "great"] as const;
const COMMENT_MAX = 2000;
let serial = 0;

export class RatingPrompt {
  /** The section placed under the thread; hidden until the conversation is resolved or closed. */
  readonly el: HTMLElement;
  #form: HTMLFormElement;
  #thanks: HTMLElement;
  #radios: HTMLInputElement[];
  #comment: HTMLTextAreaElement;
  #error: HTMLElement;
  #send: HTMLButtonElement;
  /** The rating as last known: from the detail, then from this customer's own answers. */
  #rating: Rating | null | undefined;
  #rated = false;
  #editing = false;

  constructor(
    private readonly client: () => SupportClient,
    private readonly conversationId: string,
    /** Called on a 501: the product keeps no ratings, so no thread shows the prompt again. */
    private readonly unsupported: () => void,
  ) {
    const n = ++serial;
    const legendId = `mk-rate-legend-${n}`;
    this.#radios = WORDS.map((_, i) => h("input", { type: "radio", name: `mk-rate-${n}`, value: String(i + 1), class: "star-input" }));
    const stars = this.#radios.map((input, i) =>
      h(
        "label",
        { class: "star" },
        input,
        h("span", { "aria-hidden": "true" }, "★"),
        h("span", { class: "sr-only" }, `${i + 1} ${WORDS[i]}`),
      ),
    );
    for (const input of this.#radios) input.addEventListener("change", () => this.#paint());
    this.#comment = h("textarea", { id: `mk-rate-comment-${n}`, rows: "2", maxlength: String(COMMENT_MAX) });
    this.#error = h("p", { class: "error", role: "alert", hidden: true });
    this.#send = h("button", { class: "primary", type: "submit" }, "Send rating");
    this.#form = h(
      "form",
      { class: "rate", onsubmit: (e) => this.#submit(e) },
      h(
        "fieldset",
        { role: "radiogroup", "aria-labelledby": legendId },
        h("legend", { id: legendId }, "How did we do?"),
        h("div", { class: "stars" }, ...stars),
        h("p", { class: "meta", "aria-hidden": "true" }, "1 poor · 5 great"),
      ),
      h("label", { for: this.#comment.id }, "Comment (optional)"),
      this.#comment,
      this.#error,
      h("div", { class: "row" }, this.#send),
    );
    this.#thanks = h("div", { class: "rated", role: "status" });
    this.el = h("section", { class: "rating", "aria-label": "Your rating", hidden: true }, this.#form, this.#thanks);
  }

  /** Shows or hides the prompt for the thread's status; `rating` is the detail's (undefined until it arrives). */
  update(closed: boolean, rating: Rating | null | undefined) {
    if (!this.#rated && rating !== undefined) this.#rating = rating;
    this.el.hidden = !closed;
    if (closed) this.#show();
  }

  #show() {
    const r = this.#rating;
    const thanks = !!r && !this.#editing;
    this.#form.hidden = thanks;
    this.#thanks.hidden = !thanks;
    if (!thanks || !r) return;
    const change = h("button", { class: "secondary", type: "button", onclick: () => this.#change() }, "Change");
    this.#thanks.replaceChildren(
      h("p", {}, `Thanks! You rated this conversation ${r.score} of 5 (${WORDS[r.score - 1] ?? ""}).`),
      r.comment ? h("p", { class: "quote" }, r.comment) : "",
      h("div", { class: "row" }, change),
    );
  }

  #paint() {
    const score = this.#score();
    this.#radios.forEach((input, i) => {
      input.parentElement?.classList.toggle("on", i < score);
    });
  }

  #score() {
    return Number(this.#radios.find((r) => r.checked)?.value ?? 0);
  }

  #say(text: string) {
    this.#error.hidden = !text;
    this.#error.textContent = text;
  }

  #change() {
    this.#editing = true;
    const r = this.#rating;
    for (const input of this.#radios) input.checked = !!r && input.value === String(r.score);
    this.#comment.value = r?.comment ?? "";
    this.#paint();
    this.#show();
    (this.#radios.find((i) => i.checked) ?? this.#radios[0])?.focus();
  }

  #submit(e: Event) {
    e.preventDefault();
    this.#say("");
    const score = this.#score();
    if (!score) {
      this.#say("Choose a score from 1 (poor) to 5 (great).");
      this.#radios[0]?.focus();
      return;
    }
    const comment = this.#comment.value.trim();
    this.#send.disabled = true;
    this.client()
      .rate(this.conversationId, { score, comment: comment || null })
      .then(({ rating }) => {
        this.#rating = rating;
        this.#rated = true;
        this.#editing = false;
        this.#show();
        this.#thanks.querySelector("button")?.focus();
      })
      .catch((err: SupportApiError) => {
        if (err.status === 501) {
          this.el.hidden = true;
          this.unsupported();
        } else this.#say(err.status === 409 ? "This conversation is open again: rate it once it is resolved." : `Not sent: ${err.message}`);
      })
      .finally(() => {
        this.#send.disabled = false;
      });
  }
}
