// `#/entries/<type>/<id>`: one entry, and for a catalogued API its inventory as an operations table.
import { ApiError, type Inventory } from "../api.js";
import { fmtDate, h, hashOf, tagBadges } from "../dom.js";
import { operationsTable } from "../ops-table.js";
import type { ViewContext } from "./context.js";
import { specDiffSection } from "./spec-diff.js";

export async function entryView(ctx: ViewContext): Promise<Node> {
  const typeId = ctx.segments[1]!;
  const id = ctx.segments[2]!;
  const [entry, first] = await Promise.all([
    ctx.api.entry(typeId, id, ctx.signal),
    ctx.api.inventoryPage(typeId, id, undefined, ctx.signal).catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }),
  ]);
  const specUrl = typeof entry.customData.specUrl === "string" ? entry.customData.specUrl : undefined;
  const section = h(
    "section",
    { "aria-labelledby": "view-title" },
    h("p", { class: "crumbs" }, h("a", { href: hashOf(["entries", typeId]) }, `${typeId} entries`), " / ", entry.name),
    h("h2", { id: "view-title", tabindex: "-1" }, entry.name),
    h("p", { class: "desc" }, entry.description),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Type"),
      h("dd", {}, h("a", { href: hashOf(["types", typeId]) }, typeId)),
      h("dt", {}, "Owner"),
      h("dd", {}, entry.ownerId),
      h("dt", {}, "Created"),
      h("dd", {}, fmtDate(entry.dateCreated)),
      h("dt", {}, "Modified"),
      h("dd", {}, fmtDate(entry.dateModified)),
      h("dt", {}, "Tags"),
      h(
        "dd",
        {},
        entry.tags.length || entry.derivedTags.length
          ? h(
              "ul",
              { class: "tags" },
              tagBadges(entry).map(({ tag, attrs }) =>
                h("li", {}, h("a", { ...attrs, href: hashOf(["entries", typeId], { tag }), "aria-label": `Entries tagged ${tag}` }, tag)),
              ),
            )
          : "none",
      ),
      specUrl ? [h("dt", {}, "Spec"), h("dd", {}, h("code", {}, specUrl))] : null,
    ),
    h(
      "details",
      {},
      h("summary", {}, "Custom data"),
      h("pre", { tabindex: "0", role: "region", "aria-label": "Custom data" }, JSON.stringify(entry.customData, null, 2)),
    ),
  );
  if (first) section.append(inventorySection(ctx, typeId, id, first));
  else if (specUrl) section.append(h("p", { class: "muted" }, "This entry has no inventory."));
  const diff = specUrl ? await specDiffSection(ctx, typeId, id).catch(() => null) : null;
  if (diff) section.append(diff);
  ctx.announce(`${entry.name}${first ? `, ${first.endpoints} operations` : ""}`);
  return section;
}

function inventorySection(ctx: ViewContext, typeId: string, id: string, first: Inventory): HTMLElement {
  const table = operationsTable({
    title: first.title,
    total: first.endpoints,
    query: ctx.query,
    announce: ctx.announce,
    onState: (q) => ctx.replaceHash(hashOf(["entries", typeId, id], q)),
  });
  // the rest of the operations, page by page (the route pages over them); the table grows as they arrive
  void (async () => {
    table.add(first.operations);
    let cursor = first.next;
    try {
      while (cursor && !ctx.signal.aborted) {
        const page = await ctx.api.inventoryPage(typeId, id, cursor, ctx.signal);
        table.add(page.operations);
        cursor = page.next;
      }
      table.done();
    } catch (e) {
      if (!ctx.signal.aborted) table.failed(e instanceof Error ? e.message : String(e));
    }
  })();
  return h(
    "section",
    { "aria-labelledby": "inventory-title" },
    h("h3", { id: "inventory-title" }, "Inventory"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "API"),
      h("dd", {}, first.title || "(untitled)"),
      h("dt", {}, "API version"),
      h("dd", {}, first.version),
      h("dt", {}, "Specification"),
      h("dd", {}, first.specVersion.startsWith("2") ? `Swagger ${first.specVersion}` : `OpenAPI ${first.specVersion}`),
      h("dt", {}, "Endpoints"),
      h("dd", {}, first.endpoints.toLocaleString("en")),
      h("dt", {}, "Paths"),
      h("dd", {}, first.paths.toLocaleString("en")),
    ),
    table.element,
  );
}
