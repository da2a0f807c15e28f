// The pages' DOM builder: the widget, the inbox, the memory explorer and the catalogue build their views with it.
// Text always goes in as text nodes, never as markup.

export type Child = Node | string | number | null | undefined | false;
/** A child, or lists of them nested to any depth (flattened when appended). */
export type Children = Child | Children[];
export type Props = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

/**
 * `h("a", { href: "#/types" }, "Types")`: `on*` props add listeners (`onclick` listens to `click`), `true`
 * sets an empty attribute, `false` and `undefined` leave it out; null, undefined and false children are skipped.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Children[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else if (v !== false && v !== undefined) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/** Appends children (nested lists flattened, strings and numbers as text nodes) in order. */
export function append(parent: Node, children: Children[]): void {
  for (const c of (children as Child[]).flat(Number.POSITIVE_INFINITY) as Child[]) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}
