// The widget's files: the composer's picker (attach button, paste, drag and drop; each file uploaded at once, shown as
// a chip with its progress and a remove button; a refusal said inline with the server's message) and the files a
// message carries (image thumbnails that open full size, other files as a download link with name and size).
import { h } from "@mountkit/core/dom";
import type { Attachment, SupportClient } from "@mountkit/support-client";

/** What the file picker offers: the types the server stores (it sniffs the bytes whatever the picker says). */
export const ACCEPT = "image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,.png,.jpg,.jpeg,.gif,.webp,.pdf,.txt,.log";

const IMAGE = /^image\/(png|jpeg|gif|webp)$/;

export const formatSize = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${Math.round(n / 1024)} KB` : `${(n / (1024 * 1024)).toFixed(1)} MB`;

/**
 * The files of the rendered messages, one element per attachment id: the thread is rendered again on every change,
 * and reusing the elements keeps a thumbnail from being downloaded again (its answer is `no-store`).
 */
export class FileNodes {
  readonly #nodes = new Map<string, HTMLElement>();
  readonly #url: (id: string) => string;

  constructor(url: (id: string) => string) {
    this.#url = url;
  }

  /** The list of a message's files, or null when it carries none. */
  list(files: readonly Attachment[] | undefined): HTMLElement | null {
    if (!files?.length) return null;
    return h("ul", { class: "files", "aria-label": "Attached files" }, ...files.map((f) => this.#node(f)));
  }

  #node(f: Attachment): HTMLElement {
    const known = this.#nodes.get(f.id);
    if (known) return known;
    const url = this.#url(f.id);
    const label = `${f.name} (${formatSize(f.size)})`;
    const el = IMAGE.test(f.contentType)
      ? h(
          "li",
          { class: "file image", "data-attachment-id": f.id },
          // the download route serves images inline (and nothing else): a new tab shows it full size
          h(
            "a",
            { href: url, target: "_blank", rel: "noopener noreferrer", title: `Open ${label} full size` },
            h("img", { src: url, alt: f.name, loading: "lazy", decoding: "async" }),
          ),
        )
      : h(
          "li",
          { class: "file", "data-attachment-id": f.id },
          h("a", { href: url, download: f.name, rel: "noopener noreferrer" }, f.name),
          h("span", { class: "size" }, ` · ${formatSize(f.size)}`),
        );
    this.#nodes.set(f.id, el);
    return el;
  }
}

interface Pending {
  file: File;
  chip: HTMLElement;
  abort: AbortController;
  ref?: Attachment;
}

/**
 * A composer's pending files: each is uploaded as soon as it is picked, pasted or dropped. A refused file (413, 415,
 * 429) is dropped with the server's reason in `error`; the ones uploaded go with the message.
 */
export class AttachPicker {
  readonly input = h("input", { type: "file", accept: ACCEPT, multiple: true, hidden: true, tabindex: "-1", "aria-hidden": "true" });
  readonly button = h(
    "button",
    { class: "secondary attach", type: "button", title: "Attach a screenshot, PDF or text file" },
    "Attach file",
  );
  readonly chips = h("ul", { class: "chips", "aria-label": "Files to send", hidden: true });
  readonly #pending = new Set<Pending>();
  readonly #client: () => SupportClient;
  readonly #error: (text: string) => void;
  readonly #changed: () => void;

  constructor(client: () => SupportClient, error: (text: string) => void, changed: () => void = () => {}) {
    this.#client = client;
    this.#error = error;
    this.#changed = changed;
    this.button.addEventListener("click", () => this.input.click());
    this.input.addEventListener("change", () => {
      this.add(this.input.files ? [...this.input.files] : []);
      this.input.value = "";
    });
  }

  /** Paste of files into `text`, and files dropped anywhere on `zones`. */
  listen(text: HTMLTextAreaElement, ...zones: HTMLElement[]) {
    text.addEventListener("paste", (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (!files.length || this.button.disabled) return;
      e.preventDefault();
      this.add(files);
    });
    for (const zone of zones) {
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
  }

  /** Files still uploading: the message waits for them. */
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
    for (const file of files) void this.#upload(file);
  }

  /** The message took the files: the chips go (the uploads stay, named by it). */
  clear() {
    this.#pending.clear();
    this.#render();
  }

  /** The composer goes away: uploads in flight stop. */
  dispose() {
    for (const p of this.#pending) p.abort.abort();
    this.#pending.clear();
  }

  async #upload(file: File) {
    const name = file.name || `pasted-${new Date().toISOString().replace(/[:.]/g, "-")}.${file.type.split("/")[1] ?? "bin"}`;
    const progress = h("progress", { max: "100", value: "0", "aria-label": `Uploading ${name}` });
    const p: Pending = { file, abort: new AbortController(), chip: h("li", { class: "chip", "data-state": "uploading" }) };
    const remove = h("button", { class: "icon", type: "button", "aria-label": `Remove ${name}`, onclick: () => this.#remove(p) }, "✕");
    p.chip.append(h("span", { class: "name" }, name), h("span", { class: "meta" }, formatSize(file.size)), progress, remove);
    this.#pending.add(p);
    this.#render();
    try {
      p.ref = await this.#client().upload(file, {
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
      this.#error(`${name} was not attached: ${(e as Error).message}`);
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
    this.#changed();
  }
}

/** The text a message with files but no words is sent with (the service needs some text). */
export const filesOnlyText = (files: readonly Attachment[]) => `Attached: ${files.map((f) => f.name).join(", ")}`;
