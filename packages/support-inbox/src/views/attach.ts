// The reply form's files: an attach button, paste into the reply and drag and drop onto the form. Each file is uploaded
// as soon as it is added, shown as a chip with its progress and a remove button; a refusal (413, 415) is said inline
// with the service's reason. The uploaded ones go with the next reply.
import { h } from "@mountkit/core/dom";
import { AgentApiError, type Attachment } from "../api.js";
import { TOKEN_REFUSED } from "../dom.js";
import type { InboxContext } from "./context.js";
import { formatSize } from "./files.js";

/** What the file picker offers: the types the service stores (it sniffs the bytes whatever the picker says). */
const ACCEPT = "image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,.png,.jpg,.jpeg,.gif,.webp,.pdf,.txt,.log";

interface Pending {
  chip: HTMLElement;
  abort: AbortController;
  ref?: Attachment;
}

export class ReplyFiles {
  readonly input = h("input", { type: "file", accept: ACCEPT, multiple: true, hidden: true, tabindex: "-1", "aria-hidden": "true" });
  readonly button = h("button", { type: "button", class: "attach", title: "Attach a screenshot, PDF or text file" }, "Attach file");
  readonly chips = h("ul", { class: "chips", "aria-label": "Files to send", hidden: true });
  readonly error = h("p", { class: "error", role: "alert" });
  readonly #cx: InboxContext;
  readonly #pending = new Set<Pending>();

  constructor(cx: InboxContext) {
    this.#cx = cx;
    this.button.addEventListener("click", () => this.input.click());
    this.input.addEventListener("change", () => {
      this.add(this.input.files ? [...this.input.files] : []);
      this.input.value = "";
    });
  }

  /** Paste of files into `text`, and files dropped on `zone`. */
  listen(text: HTMLTextAreaElement, zone: HTMLElement) {
    text.addEventListener("paste", (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (!files.length || this.button.disabled) return;
      e.preventDefault();
      this.add(files);
    });
    zone.addEventListener("dragover", (e) => {
      if (this.button.disabled || !e.dataTransfer?.types.includes("Files")) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
      zone.classList.add("drop");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("drop"));
    zone.addEventListener("drop", (e) => {
      zone.classList.remove("drop");
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length || this.button.disabled) return;
      e.preventDefault();
      this.add(files);
    });
  }

  /** Files still uploading: the reply waits for them. */
  get busy(): boolean {
    return [...this.#pending].some((p) => !p.ref);
  }

  /** The uploaded files, in the order they were added. */
  get files(): Attachment[] {
    return [...this.#pending].flatMap((p) => (p.ref ? [p.ref] : []));
  }

  set disabled(off: boolean) {
    this.button.disabled = off;
  }

  add(files: File[]) {
    this.error.textContent = "";
    for (const file of files) void this.#upload(file);
  }

  /** The reply took the files. */
  clear() {
    this.#pending.clear();
    this.#render();
  }

  /** The thread goes: uploads in flight stop. */
  dispose() {
    for (const p of this.#pending) p.abort.abort();
    this.#pending.clear();
  }

  async #upload(file: File) {
    const name = file.name || `pasted-${new Date().toISOString().replace(/[:.]/g, "-")}.${file.type.split("/")[1] ?? "bin"}`;
    const progress = h("progress", { max: "100", value: "0", "aria-label": `Uploading ${name}` });
    const p: Pending = { abort: new AbortController(), chip: h("li", { class: "chip", "data-state": "uploading" }) };
    const remove = h("button", { class: "icon", type: "button", "aria-label": `Remove ${name}`, onclick: () => this.#remove(p) }, "✕");
    p.chip.append(h("span", { class: "name" }, name), h("span", { class: "muted" }, formatSize(file.size)), progress, remove);
    this.#pending.add(p);
    this.#render();
    try {
      p.ref = await this.#cx.api.upload(this.#cx.product, file, {
        name,
        signal: p.abort.signal,
        onProgress: (loaded, total) => {
          progress.value = total ? Math.round((loaded / total) * 100) : 0;
        },
      });
      p.chip.dataset.state = "ready";
      progress.remove();
    } catch (e) {
      if (!this.#pending.has(p)) return;
      this.#pending.delete(p);
      if (e instanceof AgentApiError && e.status === 401) return this.#cx.signOut(TOKEN_REFUSED);
      this.error.textContent = `${name} was not attached: ${(e as Error).message}`;
    }
    this.#render();
  }

  #remove(p: Pending) {
    p.abort.abort();
    this.#pending.delete(p);
    this.#render();
  }

  #render() {
    this.chips.replaceChildren(...[...this.#pending].map((p) => p.chip));
    this.chips.hidden = this.#pending.size === 0;
  }
}

/** The text a reply with files but no words is sent with (the service needs some text). */
export const filesOnlyText = (files: readonly Attachment[]) => `Attached: ${files.map((f) => f.name).join(", ")}`;
