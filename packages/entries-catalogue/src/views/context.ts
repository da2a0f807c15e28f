// What every view receives: the API, the route's parameters, an abort signal for when the reader leaves,
// and ways to announce to screen readers and to update the address without a new navigation.
import type { Api } from "../api.js";

export interface ViewContext {
  api: Api;
  /** Path segments after `#/`, decoded. */
  segments: string[];
  query: URLSearchParams;
  signal: AbortSignal;
  /** Says `text` through the page's polite live region. */
  announce(text: string): void;
  /** Replaces the address's hash without a navigation (filters and sorting kept in the link). */
  replaceHash(hash: string): void;
}

export type View = (ctx: ViewContext) => Promise<Node>;
