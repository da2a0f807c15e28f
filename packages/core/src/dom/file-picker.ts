// A form's file picker: an attach button, paste into a textarea and drag and drop onto zones. Each file is uploaded as
// soon as it is added, shown as a chip with its progress and a remove button; a refused upload is reported with its
// reason and dropped. The support widget's composer and the inbox's reply form are two of these, each with its upload.
import { h } from "./h.js";

/** Uploads one file; `signal` aborts it (the chip was removed, the form went away). */
export type FileUpload<T> = (
  file: File,
  options: { name: string; signal: AbortSignal; onProgress: (loaded: number, total: number) => void },
) => Promise<T>;

export interface FilePickerOptions<T> {
  upload: FileUpload<T>;
  /** What the picker offers (the server still decides by the bytes). */
  accept: string;
  /** A refused upload: its file's name and the error. */
  refused: (name: string, error: unknown) => void;
  /** Files were added (a form clears its last refusal here). */
  added?: () => void;
  /** The chips changed. */
  changed?: () => void;
  /** The attach button's class. */
  buttonClass?: string;
  /** The class of a chip's size. */
  sizeClass?: string;
}

export const formatSize = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${Math.round(n / 1024)} KB` : `${(n / (1024 * 1024)).toFixed(1)} MB`;

interface Pending<T> {
  chip: HTMLElement;
  abort: AbortController;
  ref?: T;
}

/** A pasted image has no name: one from the time and its type. */
const pastedName = (file: File) =>
  file.name || `pasted-${new Date().toISOString().replace(/[:.]/g, "-")}.${file.type.split("/")[1] ?? "bin"}`;

export class FilePicker<T> {
  readonly input: HTMLInputElement;
  readonly button: HTMLButtonElement;
  readonly chips = h("ul", { class: "chips", "aria-label": "Files to send", hidden: true });
  readonly #pending = new Set<Pending<T>>();
  readonly #o: FilePickerOptions<T>;

  constructor(options: FilePickerOptions<T>) {
    this.#o = options;
    this.input = h("input", { type: "file", accept: options.accept, multiple: true, hidden: true, tabindex: "-1", "aria-hidden": "true" });
    this.button = h(
      "button",
      { class: options.buttonClass ?? "attach", type: "button", title: "Attach a screenshot, PDF or text file" },
      "Attach file",
    );
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

  /** Files still uploading: the form waits for them. */
  get busy(): boolean {
    return [...this.#pending].some((p) => p.ref === undefined);
  }

  /** The uploaded files, in the order they were added. */
  get files(): T[] {
    return [...this.#pending].flatMap((p) => (p.ref === undefined ? [] : [p.ref]));
  }

  set disabled(off: boolean) {
    this.button.disabled = off;
  }

  add(files: File[]) {
    this.#o.added?.();
    for (const file of files) void this.#upload(file);
  }

  /** The form sent the files: the chips go (the uploads stay, named by what was sent). */
  clear() {
    this.#pending.clear();
    this.#render();
  }

  /** The form goes away: uploads in flight stop. */
  dispose() {
    for (const p of this.#pending) p.abort.abort();
    this.#pending.clear();
  }

  async #upload(file: File) {
    const name = pastedName(file);
    const progress = h("progress", { max: "100", value: "0", "aria-label": `Uploading ${name}` });
    const p: Pending<T> = { abort: new AbortController(), chip: h("li", { class: "chip", "data-state": "uploading" }) };
    const remove = h("button", { class: "icon", type: "button", "aria-label": `Remove ${name}`, onclick: () => this.#remove(p) }, "✕");
    p.chip.append(
      h("span", { class: "name" }, name),
      h("span", { class: this.#o.sizeClass ?? "meta" }, formatSize(file.size)),
      progress,
      remove,
    );
    this.#pending.add(p);
    this.#render();
    try {
      p.ref = await this.#o.upload(file, {
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
      this.#o.refused(name, e);
    }
    this.#render();
  }

  #remove(p: Pending<T>) {
    p.abort.abort();
    this.#pending.delete(p);
    this.#render();
  }

  #render() {
    this.chips.replaceChildren(...[...this.#pending].map((p) => p.chip));
    this.chips.hidden = this.#pending.size === 0;
    this.#o.changed?.();
  }
}
