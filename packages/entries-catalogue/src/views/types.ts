// `#/types`: the registered types, and `#/types/<id>`: one type's OpenAPI document rendered for reading.
import { h, hashOf } from "../dom.js";
import { renderOpenApi } from "../openapi-view.js";
import type { ViewContext } from "./context.js";

export async function typesView(ctx: ViewContext): Promise<Node> {
  const types = await ctx.api.types(ctx.signal);
  ctx.announce(`${types.length} types`);
  return h(
    "section",
    { "aria-labelledby": "view-title" },
    h("h2", { id: "view-title", tabindex: "-1" }, "Types"),
    h("p", { class: "muted" }, "Each type has its own OpenAPI document and its own entries."),
    h(
      "ul",
      { class: "cards" },
      types.map((t) =>
        h(
          "li",
          { class: "card" },
          h("h3", {}, t.title),
          h("p", { class: "muted" }, "id ", h("code", {}, t.id)),
          t.description ? h("p", { class: "desc" }, t.description) : null,
          h(
            "ul",
            { class: "links" },
            h("li", {}, h("a", { href: hashOf(["types", t.id]), "aria-label": `OpenAPI of ${t.title}` }, "OpenAPI")),
            h("li", {}, h("a", { href: hashOf(["entries", t.id]), "aria-label": `Entries of ${t.title}` }, "Entries")),
          ),
        ),
      ),
    ),
  );
}

export async function typeView(ctx: ViewContext): Promise<Node> {
  const typeId = ctx.segments[1]!;
  const doc = await ctx.api.typeDocument(typeId, ctx.signal);
  const info = (doc.info ?? {}) as { title?: string };
  ctx.announce(`OpenAPI of ${info.title ?? typeId}`);
  return h(
    "section",
    { "aria-labelledby": "view-title" },
    h("p", { class: "crumbs" }, h("a", { href: "#/types" }, "Types"), " / ", h("code", {}, typeId)),
    h("h2", { id: "view-title", tabindex: "-1" }, info.title ?? typeId),
    h("p", {}, h("a", { href: hashOf(["entries", typeId]) }, `Browse ${typeId} entries`)),
    renderOpenApi(doc, ctx.api.typeDocumentUrl(typeId)),
  );
}
