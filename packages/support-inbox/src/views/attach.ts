// The reply form's files: an attach button, paste into the reply and drag and drop onto the form. Each file is uploaded
// as soon as it is added, shown as a chip with its progress and a remove button; a refusal (413, 415) is said inline
// with the service's reason. The uploaded ones go with the next reply.
import { FilePicker, h } from "@mountkit/core/dom";
import { AgentApiError, type Attachment } from "../api.js";
import { TOKEN_REFUSED } from "../dom.js";
import type { InboxContext } from "./context.js";

/** What the file picker offers: the types the service stores (it sniffs the bytes whatever the picker says). */
const ACCEPT = "image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,.png,.jpg,.jpeg,.gif,.webp,.pdf,.txt,.log";

/** The reply form's files; a refusal is said in `error`, and a refused token signs the agent out. */
export class ReplyFiles extends FilePicker<Attachment> {
  readonly error: HTMLParagraphElement;

  constructor(cx: InboxContext) {
    const error = h("p", { class: "error", role: "alert" });
    super({
      upload: (file, options) => cx.api.upload(cx.product, file, options),
      accept: ACCEPT,
      refused: (name, e) => {
        if (e instanceof AgentApiError && e.status === 401) return cx.signOut(TOKEN_REFUSED);
        error.textContent = `${name} was not attached: ${(e as Error).message}`;
      },
      added: () => {
        error.textContent = "";
      },
      sizeClass: "muted",
    });
    this.error = error;
  }
}

/** The text a reply with files but no words is sent with (the service needs some text). */
export const filesOnlyText = (files: readonly Attachment[]) => `Attached: ${files.map((f) => f.name).join(", ")}`;
