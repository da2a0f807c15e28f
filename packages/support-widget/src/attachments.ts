// The widget's files: the composer's picker (attach button, paste, drag and drop; each file uploaded at once, shown as
// a chip with its progress and a remove button; a refusal said inline with the server's message) and the files a
// message carries (image thumbnails that open full size, other files as a download link with name and size).
import { FilePicker, formatSize, h } from "@mountkit/core/dom";
import type { Attachment, SupportClient } from "@mountkit/support-client";

/** What the file picker offers: the types the server stores (it sniffs the bytes whatever the picker says). */
export const ACCEPT = "image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,.png,.jpg,.jpeg,.gif,.webp,.pdf,.txt,.log";

const IMAGE = /^image\/(png|jpeg|gif|webp)$/;

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

/**
 * A composer's pending files: each is uploaded as soon as it is picked, pasted or dropped. A refused file (413, 415,
 * 429) is dropped with the server's reason in `error`; the ones uploaded go with the message.
 */
export class AttachPicker extends FilePicker<Attachment> {
  constructor(client: () => SupportClient, error: (text: string) => void, changed: () => void = () => {}) {
    super({
      upload: (file, options) => client().upload(file, options),
      accept: ACCEPT,
      refused: (name, e) => error(`${name} was not attached: ${(e as Error).message}`),
      changed,
      buttonClass: "secondary attach",
      sizeClass: "meta",
    });
  }
}

/** The text a message with files but no words is sent with (the service needs some text). */
export const filesOnlyText = (files: readonly Attachment[]) => `Attached: ${files.map((f) => f.name).join(", ")}`;
