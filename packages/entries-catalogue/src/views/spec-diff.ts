// On an `apis` entry's page: pick two revisions and see the changes between their specs, breaking first, grouped by
// kind (docs/entries.md#spec-diffs). A plain form: two labelled selects and a button; the answer is announced.
import { ApiError, type EntryRevision, type RevisionDiff } from "../api.js";
import { fmtDate, h } from "../dom.js";
import type { ViewContext } from "./context.js";

const KINDS = [
  ["breaking", "Breaking"],
  ["deprecated", "Deprecated"],
  ["non-breaking", "Not breaking"],
  ["annotation", "Descriptions and metadata"],
  ["unclassified", "Unclassified"],
] as const;

const label = (r: EntryRevision) => `Revision ${r.revision}, ${fmtDate(r.date)}`;

function revisionSelect(id: string, text: string, revisions: EntryRevision[], selected: number): HTMLElement {
  return h(
    "p",
    {},
    h("label", { for: id }, text),
    " ",
    h(
      "select",
      { id, name: id },
      revisions.map((r) => h("option", { value: String(r.revision), selected: r.revision === selected ? "" : undefined }, label(r))),
    ),
  );
}

function result(d: RevisionDiff): HTMLElement {
  const groups = KINDS.map(([kind, title]) => {
    const changes = d.changes.filter((c) => c.kind === kind);
    if (!changes.length) return null;
    return h(
      "section",
      { class: `diff-group diff-${kind}`, "aria-label": `${title}: ${d.counts[kind]}` },
      h("h4", {}, `${title} (${d.counts[kind]})`),
      h(
        "ul",
        {},
        changes.map((c) => h("li", {}, c.message, " ", h("code", { class: "muted" }, c.path))),
      ),
    );
  });
  const summary =
    d.changeCount === 0
      ? "No changes between these specs."
      : `${d.changeCount} change${d.changeCount === 1 ? "" : "s"}, ${d.counts.breaking} breaking${d.changes.length < d.changeCount ? ` (the first ${d.changes.length} shown)` : ""}.`;
  return h("div", { class: "diff-result" }, h("p", { class: d.breaking ? "diff-summary breaking" : "diff-summary" }, summary), groups);
}

/** The "Spec changes" section; `null` while the entry has a single revision. */
export async function specDiffSection(ctx: ViewContext, typeId: string, id: string): Promise<HTMLElement | null> {
  const revisions = await ctx.api.revisions(typeId, id, ctx.signal);
  if (revisions.length < 2) return null;
  const out = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "diff-form" },
    revisionSelect("diff-base", "From", revisions, revisions[1]!.revision),
    revisionSelect("diff-head", "To", revisions, revisions[0]!.revision),
    h("button", { type: "submit" }, "Compare specs"),
  ) as HTMLFormElement;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const base = Number((form.elements.namedItem("diff-base") as HTMLSelectElement).value);
    const head = Number((form.elements.namedItem("diff-head") as HTMLSelectElement).value);
    out.replaceChildren(h("p", { class: "muted" }, "Comparing…"));
    try {
      const d = await ctx.api.revisionDiff(typeId, id, base, head, ctx.signal);
      out.replaceChildren(result(d));
      ctx.announce(`${d.changeCount} changes, ${d.counts.breaking} breaking`);
    } catch (e) {
      if (ctx.signal.aborted) return;
      const message = e instanceof ApiError ? e.message : String(e);
      out.replaceChildren(h("p", { role: "alert" }, `Could not compare: ${message}`));
    }
  });
  return h(
    "section",
    { "aria-labelledby": "diff-title" },
    h("h3", { id: "diff-title" }, "Spec changes"),
    h("p", { class: "muted" }, "Compares what each revision's spec address serves now."),
    form,
    out,
  );
}
