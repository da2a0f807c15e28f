// Renders an OpenAPI document for reading: operations with their parameters, bodies and responses, and
// schemas as nested property lists (local `$ref`s followed, cycles and depth cut), plus the raw JSON.
import { type Children, h } from "./dom.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"];
const MAX_DEPTH = 8;

/** Follows a local `#/...` JSON pointer; anything else (another document) is left as a named reference. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let cur: unknown = doc;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObj(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

const refName = (ref: string) => ref.split("/").pop() ?? ref;

export const methodBadge = (method: string) => h("span", { class: `method m-${method.toLowerCase()}` }, method.toUpperCase());

/** One line of facts about a schema: type, format, constraints, enum, default. */
function facts(s: Json): string[] {
  const out: string[] = [];
  const type = Array.isArray(s.type) ? s.type.join(" | ") : typeof s.type === "string" ? s.type : undefined;
  if (type) out.push(type === "array" && isObj(s.items) && typeof s.items.type === "string" ? `array of ${s.items.type}` : type);
  if (typeof s.format === "string") out.push(s.format);
  const range = (lo: string, hi: string, label: string) => {
    const a = s[lo];
    const b = s[hi];
    if (typeof a === "number" && typeof b === "number") out.push(`${label} ${a}..${b}`);
    else if (typeof a === "number") out.push(`${label} ≥ ${a}`);
    else if (typeof b === "number") out.push(`${label} ≤ ${b}`);
  };
  range("minLength", "maxLength", "length");
  range("minimum", "maximum", "value");
  range("minItems", "maxItems", "items");
  if (typeof s.pattern === "string") out.push(`pattern ${s.pattern}`);
  if (Array.isArray(s.enum)) out.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  if ("const" in s) out.push(`= ${JSON.stringify(s.const)}`);
  if ("default" in s) out.push(`default ${JSON.stringify(s.default)}`);
  if (s.uniqueItems === true) out.push("unique items");
  return out;
}

/** A schema as a nested list: each property with its facts, required marked, sub-objects indented. */
export function renderSchema(doc: unknown, schema: unknown, depth = 0, seen: ReadonlySet<string> = new Set()): HTMLElement {
  if (!isObj(schema)) return h("span", { class: "muted" }, schema === true ? "anything" : "no schema");
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const name = h("code", { class: "ref" }, refName(ref));
    const target = resolvePointer(doc, ref);
    if (seen.has(ref) || target === undefined || depth >= MAX_DEPTH)
      return h("span", {}, name, seen.has(ref) ? h("span", { class: "muted" }, " (recursive)") : null);
    return h("div", { class: "schema" }, name, renderSchema(doc, target, depth + 1, new Set([...seen, ref])));
  }
  const wrap = h("div", { class: "schema" });
  const line = facts(schema);
  if (line.length) wrap.append(h("span", { class: "facts" }, line.join(" · ")));
  if (typeof schema.description === "string") wrap.append(h("p", { class: "desc" }, schema.description));
  for (const k of ["allOf", "anyOf", "oneOf"] as const) {
    const list = schema[k];
    if (!Array.isArray(list)) continue;
    const label = { allOf: "all of", anyOf: "any of", oneOf: "one of" }[k];
    wrap.append(
      h(
        "div",
        { class: "combo" },
        h("span", { class: "muted" }, label),
        h(
          "ol",
          {},
          list.map((s) => h("li", {}, renderSchema(doc, s, depth + 1, seen))),
        ),
      ),
    );
  }
  if (isObj(schema.properties) && depth < MAX_DEPTH) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    wrap.append(
      h(
        "ul",
        { class: "props" },
        Object.entries(schema.properties).map(([name, sub]) =>
          h(
            "li",
            {},
            h("code", { class: "prop" }, name),
            required.has(name) ? h("span", { class: "req" }, " required") : null,
            renderSchema(doc, sub, depth + 1, seen),
          ),
        ),
      ),
    );
  }
  if (schema.type === "array" && isObj(schema.items) && (schema.items.$ref || schema.items.properties))
    wrap.append(
      h("div", { class: "items" }, h("span", { class: "muted" }, "each item: "), renderSchema(doc, schema.items, depth + 1, seen)),
    );
  if (isObj(schema.additionalProperties))
    wrap.append(
      h(
        "div",
        { class: "items" },
        h("span", { class: "muted" }, "other keys: "),
        renderSchema(doc, schema.additionalProperties, depth + 1, seen),
      ),
    );
  return wrap;
}

function parametersTable(doc: unknown, params: unknown[]): HTMLElement | null {
  const rows = params.map((p) => (isObj(p) && typeof p.$ref === "string" ? resolvePointer(doc, p.$ref) : p)).filter(isObj);
  if (!rows.length) return null;
  return h(
    "div",
    { class: "scroll", role: "region", "aria-label": "Parameters", tabindex: "0" },
    h(
      "table",
      { class: "params" },
      h("caption", {}, "Parameters"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Name", "In", "Required", "Schema"].map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((p) =>
          h(
            "tr",
            {},
            h("td", {}, h("code", {}, String(p.name ?? ""))),
            h("td", {}, String(p.in ?? "")),
            h("td", {}, p.required ? "yes" : "no"),
            h("td", {}, typeof p.description === "string" ? h("p", { class: "desc" }, p.description) : null, renderSchema(doc, p.schema)),
          ),
        ),
      ),
    ),
  );
}

function contentBlock(doc: unknown, content: unknown): Children[] {
  if (!isObj(content)) return [];
  return Object.entries(content).map(([type, media]) =>
    h("div", { class: "media" }, h("code", { class: "muted" }, type), isObj(media) ? renderSchema(doc, media.schema) : null),
  );
}

function operationSection(doc: Json, path: string, method: string, op: Json, shared: unknown[]): HTMLElement {
  const id = typeof op.operationId === "string" ? op.operationId : undefined;
  const secured = Array.isArray(op.security) ? op.security.length > 0 : Array.isArray(doc.security) && doc.security.length > 0;
  const params = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])];
  const body = isObj(op.requestBody) ? op.requestBody : undefined;
  const responses = isObj(op.responses) ? op.responses : {};
  return h(
    "details",
    { class: "op" },
    h(
      "summary",
      {},
      methodBadge(method),
      " ",
      h("code", { class: "path" }, path),
      typeof op.summary === "string" ? h("span", { class: "op-summary" }, ` ${op.summary}`) : null,
      secured ? h("span", { class: "lock" }, " needs a bearer token") : null,
    ),
    h(
      "div",
      { class: "op-body" },
      id ? h("p", {}, "Operation id: ", h("code", {}, id)) : null,
      typeof op.description === "string" ? h("p", { class: "desc" }, op.description) : null,
      parametersTable(doc, params),
      body ? h("section", {}, h("h5", {}, "Request body", body.required ? " (required)" : ""), contentBlock(doc, body.content)) : null,
      h(
        "section",
        {},
        h("h5", {}, "Responses"),
        h(
          "ul",
          { class: "responses" },
          Object.entries(responses).map(([status, r]) => {
            const res = isObj(r) && typeof r.$ref === "string" ? resolvePointer(doc, r.$ref) : r;
            return h(
              "li",
              {},
              h("code", { class: `status s${status[0]}` }, status),
              " ",
              isObj(res) && typeof res.description === "string" ? res.description : "",
              isObj(res) ? contentBlock(doc, res.content) : null,
            );
          }),
        ),
      ),
    ),
  );
}

/** The whole document: title, version, servers, then every operation (collapsed) and every named schema. */
export function renderOpenApi(doc: Json, rawUrl: string): HTMLElement {
  const info = isObj(doc.info) ? doc.info : {};
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObj).map((s) => String(s.url ?? "")) : [];
  const paths = isObj(doc.paths) ? doc.paths : {};
  const ops: HTMLElement[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const m of METHODS) if (isObj(item[m])) ops.push(operationSection(doc, path, m, item[m] as Json, shared));
  }
  const schemas = isObj(doc.components) && isObj(doc.components.schemas) ? doc.components.schemas : {};
  return h(
    "div",
    { class: "openapi" },
    h(
      "p",
      { class: "meta" },
      h("span", { class: "badge" }, `OpenAPI ${String(doc.openapi ?? doc.swagger ?? "?")}`),
      " ",
      h("span", { class: "badge" }, `version ${String(info.version ?? "?")}`),
      servers.length ? [" Server: ", h("code", {}, servers.join(", "))] : null,
    ),
    typeof info.description === "string" ? h("p", { class: "desc" }, info.description) : null,
    h("h3", {}, `Operations (${ops.length})`),
    ops.length ? h("div", { class: "ops" }, ops) : h("p", { class: "muted" }, "No operations."),
    Object.keys(schemas).length
      ? [
          h("h3", {}, "Schemas"),
          Object.entries(schemas).map(([name, s]) =>
            h("details", { class: "op" }, h("summary", {}, h("code", {}, name)), h("div", { class: "op-body" }, renderSchema(doc, s))),
          ),
        ]
      : null,
    h(
      "details",
      { class: "raw" },
      h("summary", {}, "Raw document"),
      h("p", {}, h("a", { href: rawUrl }, "openapi.json")),
      h("pre", { tabindex: "0", role: "region", "aria-label": "Raw OpenAPI document" }, JSON.stringify(doc, null, 2)),
    ),
  );
}
