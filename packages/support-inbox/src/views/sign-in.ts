// The sign-in view: the agent token (the shared one, or one of the host's identity), the agent's name (for the shared
// token) and the product; who a token signs in (`GET /agent/me`) and what a refused sign-in says.
import { h } from "@mountkit/core/dom";
import { type AgentIdentity, AgentApiError } from "../api.js";
import { controlId, field } from "../dom.js";

export interface SignIn {
  token: string;
  author: string;
  product: string;
}

/**
 * The sign-in page, filled with the name and product last used and `message` (why the agent is here again).
 * `submit` gets the trimmed fields and the form's error line.
 */
export function signInView(
  last: { author: string; product: string; message?: string },
  submit: (input: SignIn, error: HTMLElement) => void,
): { node: HTMLElement; focus(): void } {
  const token = h("input", { type: "password", name: "token", autocomplete: "current-password", required: true });
  // not required: a token of the host's identity names the agent itself
  const author = h("input", { type: "text", name: "author", autocomplete: "name", maxlength: "200" });
  const authorHint = h("p", { class: "muted", id: controlId() }, "Needed with the shared token; a personal token carries your name.");
  author.setAttribute("aria-describedby", authorHint.id);
  author.value = last.author;
  const product = h("input", { type: "text", name: "product", required: true, maxlength: "100" });
  product.value = last.product;
  const error = h("p", { class: "error", role: "alert" }, last.message ?? "");
  const form = h(
    "form",
    {
      onsubmit: (e: Event) => {
        e.preventDefault();
        submit({ token: token.value.trim(), author: author.value.trim(), product: product.value.trim() }, error);
      },
    },
    field("Agent token", token),
    field("Your name (shown to customers)", author),
    authorHint,
    field("Product", product),
    h("button", { class: "primary", type: "submit" }, "Sign in"),
    error,
  );
  const node = h(
    "main",
    { class: "signin" },
    h("h1", {}, "Support inbox"),
    h("p", { class: "muted" }, "Sign in with the agent token or your personal token."),
    form,
  );
  return { node, focus: () => (token.value ? author : token).focus() };
}

/** Why a sign-in failed, as the form says it. */
export function signInError(e: unknown, product: string): string {
  if (e instanceof AgentApiError && e.status === 401) return "That token was refused.";
  if (e instanceof AgentApiError && e.status === 404) return `No product "${product}".`;
  if (e instanceof AgentApiError && e.status === 501) return `Product "${product}" is worked on in its own backend.`;
  return "The service could not be reached.";
}

/** What the form says when the shared token comes without a name. */
export const NAME_NEEDED = "Enter your name: the shared token does not say who you are.";

/** Who is signed in: the verified agent `me` names, else (shared token) the typed `author`; undefined without a name. */
export function signedInAgent(me: AgentIdentity, author: string): { id: string | null; name: string } | undefined {
  if (me.via === "identity" && me.id !== null) return { id: me.id, name: me.name ?? me.id };
  return author ? { id: null, name: author } : undefined;
}
