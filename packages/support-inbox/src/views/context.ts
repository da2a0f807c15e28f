// What every view of a signed-in inbox receives: the API with the agent's token, who (and their id) and which product, the
// shadow root (to see what has focus), and ways to announce to screen readers and to sign out.
import type { AgentApi } from "../api.js";

export interface InboxContext {
  api: AgentApi;
  product: string;
  /** The agent's name, shown to customers on replies. */
  author: string;
  /**
   * Who is signed in: a verified agent's id (the host's identity, from `GET /agent/me`) and name, or, with the shared
   * token, no id and the name typed at sign-in.
   */
  agent: { id: string | null; name: string };
  root: ShadowRoot;
  /** Says `text` through the page's polite live region. */
  announce(text: string): void;
  /** Ends the session and shows the sign-in form with `message`. */
  signOut(message?: string): void;
}
