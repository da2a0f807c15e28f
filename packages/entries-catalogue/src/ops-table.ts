// The operations table of an inventory: filter by text and method, sort by any column (aria-sort on the
// headers), rows rendered in slices so a spec with thousands of operations stays quick to use.
import type { Operation } from "./api.js";
import { fmtNumber, h } from "./dom.js";
import { methodBadge } from "./openapi-view.js";
import { applyTable, methodsOf, type SortKey, stateFromQuery, stateToQuery, type TableState } from "./operations.js";

const SLICE = 500;
const COLUMNS: Array<{ key: SortKey; label: string }> = [
  { key: "method", label: "Method" },
  { key: "path", label: "Path" },
  { key: "operationId", label: "Operation id" },
  { key: "summary", label: "Summary" },
];

/** A path that may wrap after each "/" (a `<wbr>` there), so long paths break between segments, not inside them. */
function breakable(path: string): Array<string | HTMLElement> {
  const out: Array<string | HTMLElement> = [];
  for (const part of path.split(/(?<=\/)/)) out.push(part, h("wbr"));
  out.pop();
  return out;
}

export interface OperationsTable {
  element: HTMLElement;
  add(operations: Operation[]): void;
  done(): void;
  failed(message: string): void;
}

interface TableOptions {
  title: string;
  total: number;
  query: URLSearchParams;
  announce(text: string): void;
  onState(query: Record<string, string | undefined>): void;
}

/** One table's state and elements, shared by the functions below. */
interface Table {
  o: TableOptions;
  all: Operation[];
  state: TableState;
  /** Rows shown: grows by SLICE with "Show more rows". */
  limit: number;
  loading: boolean;
  filter: HTMLInputElement;
  method: HTMLSelectElement;
  count: HTMLElement;
  caption: HTMLElement;
  body: HTMLElement;
  more: HTMLButtonElement;
  headers: Array<{ key: SortKey; th: HTMLElement }>;
}

/** The column headers: a click sorts by that column, ascending first, again to reverse. */
function sortHeaders(t: Table) {
  return COLUMNS.map((c) => {
    const button = h("button", { type: "button" }, c.label);
    const th = h("th", { scope: "col" }, button);
    button.addEventListener("click", () => {
      t.state = { ...t.state, sort: c.key, dir: t.state.sort === c.key && t.state.dir === "asc" ? "desc" : "asc" };
      render(t, true);
    });
    return { key: c.key, th };
  });
}

/** The method choices: those present, plus the one asked for in the query even before it arrives. */
function fillMethods(t: Table) {
  const present = methodsOf(t.all);
  if (t.state.method && !present.includes(t.state.method)) present.push(t.state.method);
  const current = [...t.method.options].map((x) => x.value).join(",");
  if (current === ["", ...present].join(",")) return;
  t.method.replaceChildren(
    h("option", { value: "" }, "All methods"),
    ...present.map((m) => h("option", { value: m, selected: m === t.state.method }, m)),
  );
}

const row = (op: Operation) =>
  h(
    "tr",
    {},
    h("td", {}, methodBadge(op.method)),
    h("td", { class: "path" }, breakable(op.path)),
    h("td", { class: "opid" }, op.operationId ?? ""),
    h("td", { class: "summary" }, op.summary ?? ""),
  );

function render(t: Table, announce: boolean) {
  const { state, limit, all, o } = t;
  const rows = applyTable(all, state);
  t.body.replaceChildren(...rows.slice(0, limit).map(row));
  t.more.hidden = rows.length <= limit;
  for (const { key, th } of t.headers) {
    if (key === state.sort) th.setAttribute("aria-sort", state.dir === "asc" ? "ascending" : "descending");
    else th.removeAttribute("aria-sort");
  }
  const sortLabel = COLUMNS.find((c) => c.key === state.sort)!.label.toLowerCase();
  t.caption.textContent = `Operations of ${o.title || "this API"}, sorted by ${sortLabel}, ${state.dir === "asc" ? "ascending" : "descending"}`;
  const progress = t.loading ? ` (loading: ${fmtNumber(all.length)} of ${fmtNumber(o.total)})` : "";
  const text = `Showing ${fmtNumber(Math.min(rows.length, limit))} of ${fmtNumber(rows.length)} matching operations, ${fmtNumber(all.length)} in all${progress}.`;
  t.count.textContent = text;
  if (announce) o.announce(`${fmtNumber(rows.length)} matching operations, sorted by ${sortLabel}`);
  o.onState(stateToQuery(state));
}

/** The filter box, the method choice and "Show more rows". */
function wireControls(t: Table) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  t.filter.addEventListener("input", () => {
    clearTimeout(timer);
    // typing re-filters after a short pause, so a long table does not redraw on every key
    timer = setTimeout(() => {
      t.state = { ...t.state, filter: t.filter.value };
      t.limit = SLICE;
      render(t, true);
    }, 150);
  });
  t.method.addEventListener("change", () => {
    t.state = { ...t.state, method: t.method.value };
    t.limit = SLICE;
    render(t, true);
  });
  t.more.addEventListener("click", () => {
    t.limit += SLICE;
    render(t, false);
  });
}

function layout(t: Table): HTMLElement {
  return h(
    "div",
    { class: "ops-table" },
    h("h4", { id: "ops-title" }, "Operations"),
    h("div", { class: "controls" }, h("label", {}, "Filter operations", t.filter), h("label", {}, "Method", t.method)),
    t.count,
    h(
      "div",
      { class: "scroll", role: "region", "aria-labelledby": "ops-count", tabindex: "0" },
      h(
        "table",
        { class: "ops" },
        t.caption,
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            t.headers.map((x) => x.th),
          ),
        ),
        t.body,
      ),
    ),
    t.more,
  );
}

export function operationsTable(o: TableOptions): OperationsTable {
  const state = stateFromQuery(o.query);
  const t: Table = {
    o,
    all: [],
    state,
    limit: SLICE,
    loading: true,
    filter: h("input", {
      type: "search",
      name: "filter",
      value: state.filter,
      autocomplete: "off",
      placeholder: "path, operation id or summary",
    }),
    method: h("select", { name: "method" }),
    count: h("p", { class: "count", id: "ops-count" }),
    caption: h("caption", { class: "sr-only" }),
    body: h("tbody"),
    more: h("button", { type: "button", class: "secondary", hidden: true }, "Show more rows"),
    headers: [],
  };
  t.headers = sortHeaders(t);
  wireControls(t);
  const element = layout(t);
  fillMethods(t);

  return {
    element,
    add(operations) {
      t.all.push(...operations);
      fillMethods(t);
      render(t, false);
    },
    done() {
      t.loading = false;
      render(t, true);
    },
    failed(message) {
      t.loading = false;
      render(t, false);
      element.append(h("p", { class: "alert", role: "alert" }, `Could not load every operation: ${message}`));
    },
  };
}
