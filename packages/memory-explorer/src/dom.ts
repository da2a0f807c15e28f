// The explorer's DOM helpers: the pages' element builder (@mountkit/core/dom) and a clear-and-fill.
import { append, type Child } from "@mountkit/core/dom";

export { h } from "@mountkit/core/dom";

/** Replaces an element's children with `children` (text as text, never markup). */
export const clear = (el: Element, ...children: Child[]): void => {
  el.replaceChildren();
  append(el, children);
};
