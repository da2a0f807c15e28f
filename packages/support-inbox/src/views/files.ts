// The files of a thread's messages. The agent's download needs the bearer token, which no `<img src>` or link can
// send: images are fetched with it and shown from object URLs (thumbnails that open full size in a dialog), other
// files are fetched when their link is clicked and saved under their name. Every object URL is revoked with the view.
import { formatSize, h } from "@mountkit/core/dom";
import { AgentApiError, type Attachment } from "../api.js";
import { TOKEN_REFUSED } from "../dom.js";
import type { InboxContext } from "./context.js";

const IMAGE = /^image\/(png|jpeg|gif|webp)$/;

/**
 * One open conversation's files, one element per attachment id (the thread is rendered again on every event, and
 * reusing the elements keeps each file from being fetched again).
 */
export class ThreadFiles {
  readonly #cx: InboxContext;
  readonly #nodes = new Map<string, HTMLElement>();
  readonly #urls = new Set<string>();
  #dialog: HTMLDialogElement | undefined;
  #disposed = false;

  constructor(cx: InboxContext) {
    this.#cx = cx;
  }

  /** The list of a message's files, or null when it carries none. */
  list(files: readonly Attachment[] | undefined): HTMLElement | null {
    if (!files?.length) return null;
    return h("ul", { class: "files", "aria-label": "Attached files" }, ...files.map((f) => this.#node(f)));
  }

  /** The view goes: object URLs revoked, the full-size dialog removed, fetches still running dropped. */
  dispose() {
    this.#disposed = true;
    for (const url of this.#urls) URL.revokeObjectURL(url);
    this.#urls.clear();
    this.#nodes.clear();
    this.#dialog?.remove();
  }

  #node(f: Attachment): HTMLElement {
    const known = this.#nodes.get(f.id);
    if (known) return known;
    const el = IMAGE.test(f.contentType) ? this.#image(f) : this.#file(f);
    this.#nodes.set(f.id, el);
    return el;
  }

  /** The file's bytes as an object URL, typed as the service sniffed them; undefined once the view has gone. */
  async #objectUrl(f: Attachment): Promise<string | undefined> {
    const blob = await this.#cx.api.download(f.id);
    if (this.#disposed) return undefined;
    // the service's sniffed type, never another: an image URL can only ever show an image
    const url = URL.createObjectURL(new Blob([blob], { type: IMAGE.test(f.contentType) ? f.contentType : "application/octet-stream" }));
    this.#urls.add(url);
    return url;
  }

  #failed(el: HTMLElement, f: Attachment, e: unknown) {
    if (e instanceof AgentApiError && e.status === 401) return this.#cx.signOut(TOKEN_REFUSED);
    el.append(h("span", { class: "error" }, ` ${f.name} could not be loaded${e instanceof AgentApiError ? `: ${e.message}` : ""}`));
  }

  #image(f: Attachment): HTMLElement {
    const img = h("img", { alt: f.name, decoding: "async" });
    const open = h("button", { class: "thumb", type: "button", title: `Open ${f.name} full size`, disabled: true }, img);
    const el = h("li", { class: "file image", "data-attachment-id": f.id }, open);
    this.#objectUrl(f).then(
      (url) => {
        if (!url) return;
        img.src = url;
        open.disabled = false;
        open.addEventListener("click", () => this.#full(f, url));
      },
      (e) => this.#failed(el, f, e),
    );
    return el;
  }

  #file(f: Attachment): HTMLElement {
    // the real address for its meaning; the click fetches with the token and saves the bytes under the file's name
    const link = h("a", { href: this.#cx.api.attachmentUrl(f.id), download: f.name }, f.name);
    const el = h("li", { class: "file", "data-attachment-id": f.id }, link, h("span", { class: "muted" }, ` · ${formatSize(f.size)}`));
    let saved = false;
    link.addEventListener("click", (e) => {
      if (saved) return;
      e.preventDefault();
      this.#objectUrl(f).then(
        (url) => {
          if (!url) return;
          saved = true;
          link.href = url;
          link.click();
        },
        (err) => this.#failed(el, f, err),
      );
    });
    return el;
  }

  /** The image at full size in a modal dialog (Escape or the button closes it), with a link that saves it. */
  #full(f: Attachment, url: string) {
    const close = h("button", { type: "button" }, "Close");
    const dialog: HTMLDialogElement = h(
      "dialog",
      { class: "lightbox", "aria-label": f.name },
      h("img", { src: url, alt: f.name }),
      h("div", { class: "row" }, h("a", { href: url, download: f.name }, `Save ${f.name} (${formatSize(f.size)})`), close),
    );
    close.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => dialog.remove());
    this.#dialog?.remove();
    this.#dialog = dialog;
    this.#cx.root.append(dialog);
    dialog.showModal();
  }
}
