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

export function operationsTable(o: {
  title: string;
  total: number;
  query: URLSearchParams;
  announce(text: string): void;
  onState(query: Record<string, string | undefined>): void;
}): OperationsTable {
  const all: Operation[] = [];
  let state: TableState = stateFromQuery(o.query);
  let limit = SLICE;
  let loading = true;

  const filter = h("input", {
    type: "search",
    name: "filter",
    value: state.filter,
    autocomplete: "off",
    placeholder: "path, operation id or summary",
  });
  const method = h("select", { name: "method" });
  const count = h("p", { class: "count", id: "ops-count" });
  const caption = h("caption", { class: "sr-only" });
  const body = h("tbody");
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Show more rows");
  const headers = COLUMNS.map((c) => {
    const button = h("button", { type: "button" }, c.label);
    const th = h("th", { scope: "col" }, button);
    button.addEventListener("click", () => {
      state = { ...state, sort: c.key, dir: state.sort === c.key && state.dir === "asc" ? "desc" : "asc" };
      render(true);
    });
    return { key: c.key, th };
  });

  const fillMethods = () => {
    const present = methodsOf(all);
    if (state.method && !present.includes(state.method)) present.push(state.method);
    const current = [...method.options].map((x) => x.value).join(",");
    if (current === ["", ...present].join(",")) return;
    method.replaceChildren(
      h("option", { value: "" }, "All methods"),
      ...present.map((m) => h("option", { value: m, selected: m === state.method }, m)),
    );
  };

  const render = (announce: boolean) => {
    const rows = applyTable(all, state);
    body.replaceChildren(
      ...rows
        .slice(0, limit)
        .map((op) =>
          h(
            "tr",
            {},
            h("td", {}, methodBadge(op.method)),
            h("td", { class: "path" }, breakable(op.path)),
            h("td", { class: "opid" }, op.operationId ?? ""),
            h("td", { class: "summary" }, op.summary ?? ""),
          ),
        ),
    );
    more.hidden = rows.length <= limit;
    for (const { key, th } of headers) {
      if (key === state.sort) th.setAttribute("aria-sort", state.dir === "asc" ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    }
    const sortLabel = COLUMNS.find((c) => c.key === state.sort)!.label.toLowerCase();
    caption.textContent = `Operations of ${o.title || "this API"}, sorted by ${sortLabel}, ${state.dir === "asc" ? "ascending" : "descending"}`;
    const progress = loading ? ` (loading: ${fmtNumber(all.length)} of ${fmtNumber(o.total)})` : "";
    const text = `Showing ${fmtNumber(Math.min(rows.length, limit))} of ${fmtNumber(rows.length)} matching operations, ${fmtNumber(all.length)} in all${progress}.`;
    count.textContent = text;
    if (announce) o.announce(`${fmtNumber(rows.length)} matching operations, sorted by ${sortLabel}`);
    o.onState(stateToQuery(state));
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  filter.addEventListener("input", () => {
    clearTimeout(timer);
    // typing re-filters after a short pause, so a long table does not redraw on every key
    timer = setTimeout(() => {
      state = { ...state, filter: filter.value };
      limit = SLICE;
      render(true);
    }, 150);
  });
  method.addEventListener("change", () => {
    state = { ...state, method: method.value };
    limit = SLICE;
    render(true);
  });
  more.addEventListener("click", () => {
    limit += SLICE;
    render(false);
  });

  const element = h(
    "div",
    { class: "ops-table" },
    h("h4", { id: "ops-title" }, "Operations"),
    h("div", { class: "controls" }, h("label", {}, "Filter operations", filter), h("label", {}, "Method", method)),
    count,
    h(
      "div",
      { class: "scroll", role: "region", "aria-labelledby": "ops-count", tabindex: "0" },
      h(
        "table",
        { class: "ops" },
        caption,
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            headers.map((x) => x.th),
          ),
        ),
        body,
      ),
    ),
    more,
  );
  fillMethods();

  return {
    element,
    add(operations) {
      all.push(...operations);
      fillMethods();
      render(false);
    },
    done() {
      loading = false;
      render(true);
    },
    failed(message) {
      loading = false;
      render(false);
      element.append(h("p", { class: "alert", role: "alert" }, `Could not load every operation: ${message}`));
    },
  };
}
