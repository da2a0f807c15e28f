// The filters over the conversation list: search text, status, label and assignee. Typing applies after a pause,
// a status choice or a submit at once.
import { h } from "@mountkit/core/dom";
import type { ListFilter } from "../api.js";
import { field, onSubmit, STATUS_FILTERS } from "../dom.js";

/** The filter form, its status set to `current`'s; `apply` gets the new filter and how long to wait before reading. */
export function filtersView(current: ListFilter, apply: (filter: ListFilter, delay: number) => void): HTMLFormElement {
  const search = h("input", { type: "search", name: "q", maxlength: "200" });
  const status = h("select", { name: "status" });
  for (const [value, text] of STATUS_FILTERS) status.append(h("option", { value }, text));
  status.value = current.status ?? "";
  const label = h("input", { type: "text", name: "label", maxlength: "64" });
  const assignee = h("input", { type: "text", name: "assignee", maxlength: "200" });
  const changed = (delay: number) =>
    apply({ status: status.value, label: label.value.trim(), assignee: assignee.value.trim(), q: search.value.trim() }, delay);
  for (const input of [search, label, assignee]) input.addEventListener("input", () => changed(250));
  status.addEventListener("change", () => changed(0));
  return h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter conversations", onsubmit: onSubmit(() => changed(0)) },
    field("Search", search, "field wide"),
    field("Status", status),
    field("With label", label),
    field("Assigned to", assignee, "field wide"),
  );
}
