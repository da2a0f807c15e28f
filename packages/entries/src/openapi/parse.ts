// Turns fetched or posted bytes into an OpenAPI/Swagger document and checks what cataloguing needs (the only hard errors).

import { load as loadYaml } from "js-yaml";
import { parse as parseYamlStrictly } from "yaml";
import { platform } from "#runtime/platform";
import { checkLimits, DEFAULT_SPEC_LIMITS, limitMessages, mayHaveAnchors, type SpecLimits } from "./limits.js";
import { jsonErrorPosition, withPositions } from "./positions.js";
import type { ParsedSpec, ParseOutcome, SpecFormat, SpecIssue } from "./spec-types.js";

const stripBom = (s: string) => (s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);

/** UTF-8 bytes to text, or undefined when they are not UTF-8. A BOM is dropped. */
export function decodeText(bytes: Uint8Array | string): string | undefined {
  if (typeof bytes === "string") return stripBom(bytes);
  const text = platform.decodeUtf8(bytes);
  return text === undefined ? undefined : stripBom(text);
}

export type ParsedText =
  | {
      ok: true;
      value: unknown;
      format: SpecFormat;
      /** The parser itself refused nesting past the depth limit (js-yaml counts at least as deep as the tree is). */
      depthChecked?: boolean;
    }
  | { ok: false; message: string; path?: string; line?: number; column?: number };

const fail = (message: string, path = "", at?: { line: number; column: number }): ParsedText => ({ ok: false, message, path, ...at });

/**
 * YAML through js-yaml (fast: about 8x faster than `yaml` on multi-MB specs), and through `yaml` 2 when js-yaml
 * refuses: some published specs are YAML that js-yaml 5 rejects and `yaml` 2, js-yaml 4 and PyYAML accept (a flow
 * mapping whose closing brace sits at its parent's indentation). Both parsers share alias targets, never copy them.
 */
function parseYaml(text: string, limits: SpecLimits): ParsedText {
  let first: string;
  let at: { line: number; column: number } | undefined;
  try {
    const value = loadYaml(text, { maxDepth: limits.maxDepth, maxAliases: limits.maxAliases });
    return { ok: true, value, format: "yaml", depthChecked: true };
  } catch (e) {
    first = (e as Error).message.split("\n")[0] ?? "parse error";
    // js-yaml's mark is 0-based
    const mark = (e as { mark?: { line?: unknown; column?: unknown } }).mark;
    if (typeof mark?.line === "number" && typeof mark.column === "number") at = { line: mark.line + 1, column: mark.column + 1 };
    if (first.startsWith("nesting exceeded maxDepth")) return fail(limitMessages.depth(limits.maxDepth));
    if (first.startsWith("aliases exceeded maxAliases")) return fail(limitMessages.aliases(limits.maxAliases));
  }
  try {
    return {
      ok: true,
      value: parseYamlStrictly(text, { maxAliasCount: limits.maxAliases, uniqueKeys: false, logLevel: "error" }),
      format: "yaml",
    };
  } catch (e) {
    const msg = (e as Error).message;
    if (e instanceof RangeError || msg.includes("Maximum call stack")) return fail(limitMessages.depth(limits.maxDepth));
    if (msg.includes("Excessive alias count")) return fail(limitMessages.aliases(limits.maxAliases));
    return fail(`not valid JSON or YAML: ${first}`, "", at);
  }
}

/** JSON first when it looks like JSON (fast, and the common case for large specs), else YAML; then the resource limits. */
export function parseText(text: string, limits: SpecLimits = DEFAULT_SPEC_LIMITS): ParsedText {
  const first = text.match(/^\s*(.)/s)?.[1];
  if (first === undefined) return fail("the document is empty");
  let parsed: ParsedText;
  if (first === "{" || first === "[") {
    try {
      parsed = { ok: true, value: JSON.parse(text), format: "json" };
    } catch (e) {
      return fail(`not valid JSON: ${(e as Error).message}`, "", jsonErrorPosition(text));
    }
  } else parsed = parseYaml(text, limits);
  if (!parsed.ok) return parsed;
  const shared = parsed.format === "yaml" && mayHaveAnchors(text);
  // Without anchors no node is shared, so js-yaml's own depth limit (it counts every collection it opens, so never
  // less than the tree's depth) already holds: the walk over the whole tree would find nothing.
  if (!shared && parsed.depthChecked) return parsed;
  const hit = checkLimits(parsed.value, shared, limits);
  return hit ? fail(hit.message, hit.path) : parsed;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * YAML reads `version: 2.0` as the number 2. The literal is what the API's authors meant, so it is
 * recovered from the text when, and only when, it denotes the number the parser produced.
 */
function yamlVersionLiteral(text: string, parsed: number): string | undefined {
  const lines = text.split(/\r?\n/, 20000);
  const start = lines.findIndex((l) => /^info\s*:\s*(#.*)?$/.test(l));
  if (start < 0) return undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line)) break;
    const m = line.match(/^\s+version\s*:\s*([^\s#'"]+)\s*(#.*)?$/);
    if (m && Number(m[1]) === parsed) return m[1];
  }
  return undefined;
}

/** A top-level `openapi: 3.0` or `swagger: 2.0` in YAML is a number: its literal, read from the text as written. */
function yamlTopLevelLiteral(text: string, key: string, parsed: number): string | undefined {
  const m = text.match(new RegExp(`^${key}\\s*:\\s*([0-9][0-9.]*)\\s*(#.*)?$`, "m"));
  return m && Number(m[1]) === parsed ? m[1] : undefined;
}

/** The version field as written: a string, or a YAML number read back to its literal (with a note saying so). */
function versionField(
  value: Record<string, unknown>,
  key: "openapi" | "swagger",
  format: SpecFormat,
  text: string | undefined,
  notes: SpecIssue[],
): string | undefined {
  const v = value[key];
  if (typeof v === "string") return v;
  if (typeof v !== "number" || !Number.isFinite(v)) return v === undefined ? undefined : JSON.stringify(v);
  const literal = (format === "yaml" && text && yamlTopLevelLiteral(text, key, v)) || (Number.isInteger(v) ? v.toFixed(1) : String(v));
  notes.push({
    path: `/${key}`,
    message: `\`${key}\` should be a string (quote it: "${literal}"); the number ${literal} is read as version ${literal}`,
  });
  return literal;
}

export interface CheckOptions {
  limits?: SpecLimits;
}

/** Parses and checks the structure cataloguing needs. Anything else is left to the schema validator's warnings. */
export function parseSpec(input: Uint8Array | string, options: CheckOptions = {}): ParseOutcome {
  const text = decodeText(input);
  if (text === undefined) return { ok: false, errors: [{ path: "", message: "the document is not valid UTF-8" }] };
  const limits = options.limits ?? DEFAULT_SPEC_LIMITS;
  const parsed = parseText(text, limits);
  if (!parsed.ok) {
    const { path = "", message, line, column } = parsed;
    const error: SpecIssue = line === undefined ? { path, message } : { path, message, line, column };
    // a limit hit names a place in a document that did parse
    return { ok: false, errors: path ? withPositions([error], text, detectFormat(text), limits.maxDepth) : [error] };
  }
  const checked = checkDocument(parsed.value, parsed.format, text);
  if (!checked.ok) return { ok: false, errors: withPositions(checked.errors, text, parsed.format, limits.maxDepth) };
  return checked;
}

/** JSON when the text opens an object or array, else YAML: the choice parseText makes. */
const detectFormat = (text: string): SpecFormat => (/^\s*[{[]/.test(text) ? "json" : "yaml");

const SUPPORTED_OPENAPI = /^3\.[01](\.\d+)?$/;
const CONTAINERS_31 = ["paths", "webhooks", "components"] as const;

export function checkDocument(value: unknown, format: SpecFormat, text?: string): ParseOutcome {
  if (!isObject(value)) return { ok: false, errors: [{ path: "", message: "the document must be an object" }] };
  const errors: SpecIssue[] = [];
  const notes: SpecIssue[] = [];
  let kind: ParsedSpec["kind"] = "openapi";
  let specVersion = "";
  const openapi = versionField(value, "openapi", format, text, notes);
  const swagger = openapi === undefined ? versionField(value, "swagger", format, text, notes) : undefined;
  if (openapi !== undefined) {
    specVersion = openapi;
    if (!SUPPORTED_OPENAPI.test(openapi))
      errors.push({ path: "/openapi", message: `unsupported OpenAPI version ${JSON.stringify(openapi)}: 3.0.x and 3.1.x are supported` });
    else if (!/^3\.[01]\.\d+$/.test(openapi) && !notes.some((n) => n.path === "/openapi"))
      notes.push({ path: "/openapi", message: `\`openapi\` should name a patch release such as ${openapi}.0; read as ${openapi}` });
  } else if (swagger !== undefined) {
    kind = "swagger";
    specVersion = swagger;
    if (swagger !== "2.0")
      errors.push({ path: "/swagger", message: `unsupported Swagger version ${JSON.stringify(swagger)}: only 2.0 is supported` });
  } else {
    errors.push({ path: "", message: "no `openapi` or `swagger` version field: not an OpenAPI/Swagger document" });
  }
  const info = value.info;
  let title = "";
  let version = "";
  if (!isObject(info)) errors.push({ path: "/info", message: "`info` is required and must be an object" });
  else {
    if (typeof info.title === "string") {
      title = info.title;
      if (!title.trim()) notes.push({ path: "/info/title", message: "`info.title` is empty: name the API" });
    } else errors.push({ path: "/info/title", message: "`info.title` is required and must be a string" });
    if (typeof info.version === "string" && info.version.trim()) version = info.version;
    else if (typeof info.version === "number" && Number.isFinite(info.version)) {
      version = (format === "yaml" && text && yamlVersionLiteral(text, info.version)) || String(info.version);
      notes.push({ path: "/info/version", message: `\`info.version\` should be a string; read as ${JSON.stringify(version)}` });
    } else errors.push({ path: "/info/version", message: "`info.version` is required and must be a non-empty string" });
  }
  if (kind === "openapi" && specVersion.startsWith("3.1")) {
    // 3.1 lets a document describe only webhooks or only reusable components
    if (value.paths !== undefined && !isObject(value.paths)) errors.push({ path: "/paths", message: "`paths` must be an object" });
    else if (!CONTAINERS_31.some((k) => isObject(value[k])))
      errors.push({
        path: "/paths",
        message: "OpenAPI 3.1 needs at least one of `paths`, `webhooks` or `components` (none is present as an object)",
      });
  } else if (!isObject(value.paths)) errors.push({ path: "/paths", message: "`paths` is required and must be an object" });
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    spec: { document: value, format, kind, specVersion, title, version, notes, ...(text === undefined ? {} : { source: text }) },
  };
}
