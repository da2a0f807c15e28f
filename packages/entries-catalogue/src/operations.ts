// The operations table's model, free of the DOM: filter by text and method, sort by a column, both stable.
import type { Operation } from "./api.js";

export type SortKey = "method" | "path" | "operationId" | "summary";
export type SortDir = "asc" | "desc";

export interface TableState {
  /** Case-insensitive text matched against path, operationId and summary. */
  filter: string;
  /** Upper-case method, or "" for all. */
  method: string;
  sort: SortKey;
  dir: SortDir;
}

export const DEFAULT_STATE: TableState = { filter: "", method: "", sort: "path", dir: "asc" };
export const SORT_KEYS: readonly SortKey[] = ["method", "path", "operationId", "summary"];

// the order OpenAPI's path item lists its operations in; methods it does not name sort after, alphabetically
const METHOD_ORDER = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY"];
const methodRank = (m: string) => {
  const i = METHOD_ORDER.indexOf(m.toUpperCase());
  return i === -1 ? METHOD_ORDER.length : i;
};

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

function compareBy(key: SortKey, a: Operation, b: Operation): number {
  if (key === "method") return methodRank(a.method) - methodRank(b.method) || collator.compare(a.method, b.method);
  const x = a[key];
  const y = b[key];
  // operations without the field go last whichever the direction, so the filled ones stay together
  if (x === undefined || x === "") return y === undefined || y === "" ? 0 : 1;
  if (y === undefined || y === "") return -1;
  return collator.compare(x, y);
}

/** The methods present, in path-item order: the method filter's choices. */
export function methodsOf(operations: readonly Operation[]): string[] {
  return [...new Set(operations.map((o) => o.method.toUpperCase()))].sort((a, b) => methodRank(a) - methodRank(b) || a.localeCompare(b));
}

/** Filters then sorts; ties fall back to path then method, so the result never depends on the input order. */
export function applyTable(operations: readonly Operation[], state: TableState): Operation[] {
  const needle = state.filter.trim().toLowerCase();
  const words = needle ? needle.split(/\s+/) : [];
  const method = state.method.toUpperCase();
  const kept = operations.filter((o) => {
    if (method && o.method.toUpperCase() !== method) return false;
    if (!words.length) return true;
    const hay = `${o.path}\n${o.operationId ?? ""}\n${o.summary ?? ""}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const sign = state.dir === "desc" ? -1 : 1;
  return kept.sort((a, b) => {
    const primary = compareBy(state.sort, a, b);
    // a missing value stays last in both directions (compareBy already placed it)
    const missingA = state.sort !== "method" && state.sort !== "path" && !a[state.sort];
    const missingB = state.sort !== "method" && state.sort !== "path" && !b[state.sort];
    const ordered = missingA || missingB ? primary : sign * primary;
    return ordered || compareBy("path", a, b) || compareBy("method", a, b);
  });
}

/** The table state kept in the page's address (`?filter=&method=&sort=&dir=`), so a filtered view can be linked. */
export function stateFromQuery(q: URLSearchParams): TableState {
  const sort = q.get("sort");
  const dir = q.get("dir");
  return {
    filter: q.get("filter") ?? "",
    method: (q.get("method") ?? "").toUpperCase(),
    sort: SORT_KEYS.includes(sort as SortKey) ? (sort as SortKey) : DEFAULT_STATE.sort,
    dir: dir === "desc" ? "desc" : "asc",
  };
}

export function stateToQuery(s: TableState): Record<string, string | undefined> {
  return {
    filter: s.filter || undefined,
    method: s.method || undefined,
    sort: s.sort === DEFAULT_STATE.sort ? undefined : s.sort,
    dir: s.dir === DEFAULT_STATE.dir ? undefined : s.dir,
  };
}
