// The catalogue's view helpers: the pages' DOM builder (@mountkit/core/dom), hash links and formatting.

export { append, type Child, type Children, h, type Props } from "@mountkit/core/dom";

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

/** An entry's tags as badges: the submitted ones, then those the catalogue derived (marked and titled as such). */
export function tagBadges(e: { tags: readonly string[]; derivedTags?: readonly string[] }) {
  return [
    ...e.tags.map((tag) => ({ tag, attrs: { class: "badge" } as Record<string, string> })),
    ...(e.derivedTags ?? []).map((tag) => ({
      tag,
      attrs: { class: "badge derived", title: "derived by the catalogue" } as Record<string, string>,
    })),
  ];
}
