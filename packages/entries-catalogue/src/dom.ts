// A tiny DOM builder for the catalogue's views: text always goes in as text nodes, never as markup.

export type Child = Node | string | number | null | undefined | false;
/** A child, or lists of them nested to any depth (flattened when appended). */
export type Children = Child | Children[];
export type Props = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

/** `h("a", { href: "#/types" }, "Types")`; `on*` props add listeners, `true` sets an empty attribute, `false`/undefined skips. */
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

export function append(parent: Node, children: Children[]): void {
  for (const c of (children as Child[]).flat(Number.POSITIVE_INFINITY) as Child[]) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Builds a `#/...` link target from segments and query values (empty values left out). */
export function hashOf(segments: string[], query: Record<string, string | undefined> = {}): string {
  const path = segments.map(encodeURIComponent).join("/");
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const qs = q.toString();
  return `#/${path}${qs ? `?${qs}` : ""}`;
}

export const fmtNumber = (n: number) => n.toLocaleString("en");

export const fmtDate = (ms: number) => {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
};
