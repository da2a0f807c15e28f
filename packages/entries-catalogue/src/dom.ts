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
