// `#/entries/<type>?q=&tag=&ownerId=`: entries of one type, newest first, with free-text search, tag and
// owner filters (the list route's own `q`, `tag`, `ownerId`) and cursor paging ("Show more").
import type { Entry } from "../api.js";
import { fmtDate, fmtNumber, h, hashOf, tagBadges } from "../dom.js";
import type { ViewContext } from "./context.js";

const PAGE = 20;

function entryItem(e: Entry, filterHash: (tag: string) => string): HTMLElement {
  const specUrl = typeof e.customData.specUrl === "string" ? e.customData.specUrl : undefined;
  return h(
    "li",
    {},
    h("h3", {}, h("a", { href: hashOf(["entries", e.typeId, e.id]) }, e.name)),
    h("p", { class: "desc clamp" }, e.description),
    e.tags.length || e.derivedTags.length
      ? h(
          "ul",
          { class: "tags", "aria-label": "Tags" },
          tagBadges(e).map(({ tag, attrs }) =>
            h("li", {}, h("a", { ...attrs, href: filterHash(tag), "aria-label": `Only entries tagged ${tag}` }, tag)),
          ),
        )
      : null,
    h("p", { class: "muted" }, `by ${e.ownerId} · ${fmtDate(e.dateCreated)}`, specUrl ? [" · ", h("code", {}, specUrl)] : null),
  );
}

export async function entriesView(ctx: ViewContext): Promise<Node> {
  const types = await ctx.api.types(ctx.signal);
  const typeId = ctx.segments[1] ?? (types.find((t) => t.id === "apis") ?? types[0])?.id;
  if (!typeId) return h("p", {}, "No types are registered.");
  const q = ctx.query.get("q") ?? "";
  const tag = ctx.query.get("tag") ?? "";
  const ownerId = ctx.query.get("ownerId") ?? "";
  const filterHash = (t: string) => hashOf(["entries", typeId], { q, tag: t, ownerId });

  const field = (label: string, name: string, value: string, type = "text") =>
    h("label", {}, label, h("input", { name, type, value, autocomplete: "off", maxlength: name === "tag" ? 64 : 200 }));
  const form = h(
    "form",
    { class: "search", role: "search", "aria-label": "Search entries" },
    h(
      "label",
      {},
      "Type",
      h(
        "select",
        { name: "type" },
        types.map((t) => h("option", { value: t.id, selected: t.id === typeId }, t.title)),
      ),
    ),
    field("Search name and description", "q", q, "search"),
    field("Tag", "tag", tag),
    field("Owner id", "ownerId", ownerId),
    h("button", { type: "submit" }, "Search"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const v = (k: string) => String(data.get(k) ?? "").trim() || undefined;
    location.hash = hashOf(["entries", v("type") ?? typeId], { q: v("q"), tag: v("tag"), ownerId: v("ownerId") });
  });

  const list = h("ol", { class: "entries", "aria-label": "Entries" });
  const status = h("p", { class: "count" });
  const more = h("button", { type: "button", class: "secondary" }, "Show more");
  let next: string | null = null;
  let shown = 0;
  const load = async (cursor?: string) => {
    const page = await ctx.api.entries(typeId, { q, tag, ownerId, cursor, limit: PAGE }, ctx.signal);
    for (const e of page.items) list.append(entryItem(e, filterHash));
    shown += page.items.length;
    next = page.next;
    more.hidden = !next;
    const text =
      shown === 0
        ? "No entries match."
        : `${fmtNumber(shown)} ${shown === 1 ? "entry" : "entries"} shown${next ? ", more available" : ""}.`;
    status.textContent = text;
    ctx.announce(text);
  };
  more.addEventListener("click", async () => {
    if (!next) return;
    more.disabled = true;
    const before = list.children.length;
    try {
      await load(next);
      // keyboard users continue from the first new entry
      list.children[before]?.querySelector("a")?.focus();
    } finally {
      more.disabled = false;
    }
  });
  await load();

  const active = [q && `text “${q}”`, tag && `tag “${tag}”`, ownerId && `owner “${ownerId}”`].filter(Boolean);
  return h(
    "section",
    { "aria-labelledby": "view-title" },
    h("h2", { id: "view-title", tabindex: "-1" }, "Entries"),
    form,
    active.length
      ? h("p", { class: "filters" }, `Filtered by ${active.join(", ")}.`, h("a", { href: hashOf(["entries", typeId]) }, "Clear filters"))
      : null,
    status,
    list,
    more,
  );
}
