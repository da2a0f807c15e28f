// Turns fetched or posted bytes into an OpenAPI/Swagger document and checks what cataloguing needs (the only hard errors).
import { load as loadYaml } from "js-yaml";

export interface SpecIssue {
  /** JSON Pointer into the document (`/info/title`), empty for the whole document. */
  path: string;
  message: string;
}

export type SpecFormat = "json" | "yaml";

export interface ParsedSpec {
  document: Record<string, unknown>;
  format: SpecFormat;
  kind: "swagger" | "openapi";
  /** The `swagger`/`openapi` field: `2.0`, `3.0.3`, `3.1.0`. */
  specVersion: string;
  title: string;
  /** `info.version`, as written. */
  version: string;
  /** Problems that do not prevent cataloguing (a numeric `info.version`, ...). */
  notes: SpecIssue[];
}

export type ParseOutcome = { ok: true; spec: ParsedSpec } | { ok: false; errors: SpecIssue[] };

const decoder = new TextDecoder("utf-8", { fatal: true });

export function decodeText(bytes: Uint8Array | string): string | undefined {
  if (typeof bytes === "string") return bytes.replace(/^\uFEFF/, "");
  try {
    return decoder.decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    return undefined;
  }
}

/** JSON first when it looks like JSON (fast, and the common case for large specs), else YAML. */
export function parseText(text: string): { ok: true; value: unknown; format: SpecFormat } | { ok: false; message: string } {
  const first = text.match(/^\s*(.)/s)?.[1];
  if (first === undefined) return { ok: false, message: "the document is empty" };
  if (first === "{" || first === "[") {
    try {
      return { ok: true, value: JSON.parse(text), format: "json" };
    } catch (e) {
      return { ok: false, message: `not valid JSON: ${(e as Error).message}` };
    }
  }
  try {
    return { ok: true, value: loadYaml(text), format: "yaml" };
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0] ?? "parse error";
    return { ok: false, message: `not valid JSON or YAML: ${msg}` };
  }
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

const SUPPORTED = /^(2\.0|3\.0\.\d+|3\.1\.\d+)$/;

/** Parses and checks the structure cataloguing needs. Anything else is left to the schema validator's warnings. */
export function parseSpec(input: Uint8Array | string): ParseOutcome {
  const text = decodeText(input);
  if (text === undefined) return { ok: false, errors: [{ path: "", message: "the document is not valid UTF-8" }] };
  const parsed = parseText(text);
  if (!parsed.ok) return { ok: false, errors: [{ path: "", message: parsed.message }] };
  return checkDocument(parsed.value, parsed.format, text);
}

export function checkDocument(value: unknown, format: SpecFormat, text?: string): ParseOutcome {
  if (!isObject(value)) return { ok: false, errors: [{ path: "", message: "the document must be an object" }] };
  const errors: SpecIssue[] = [];
  const notes: SpecIssue[] = [];
  let kind: ParsedSpec["kind"] = "openapi";
  let specVersion = "";
  if (typeof value.openapi === "string") {
    specVersion = value.openapi;
    if (!SUPPORTED.test(specVersion) || specVersion === "2.0")
      errors.push({
        path: "/openapi",
        message: `unsupported OpenAPI version ${JSON.stringify(specVersion)}: 3.0.x and 3.1.x are supported`,
      });
  } else if (value.swagger !== undefined) {
    kind = "swagger";
    specVersion = String(value.swagger);
    if (specVersion !== "2.0")
      errors.push({ path: "/swagger", message: `unsupported Swagger version ${JSON.stringify(specVersion)}: only 2.0 is supported` });
  } else {
    errors.push({ path: "", message: "no `openapi` or `swagger` version field: not an OpenAPI/Swagger document" });
  }
  const info = value.info;
  let title = "";
  let version = "";
  if (!isObject(info)) errors.push({ path: "/info", message: "`info` is required and must be an object" });
  else {
    if (typeof info.title === "string" && info.title.trim()) title = info.title;
    else errors.push({ path: "/info/title", message: "`info.title` is required and must be a non-empty string" });
    if (typeof info.version === "string" && info.version.trim()) version = info.version;
    else if (typeof info.version === "number" && Number.isFinite(info.version)) {
      version = (format === "yaml" && text && yamlVersionLiteral(text, info.version)) || String(info.version);
      notes.push({ path: "/info/version", message: `\`info.version\` should be a string; read as ${JSON.stringify(version)}` });
    } else errors.push({ path: "/info/version", message: "`info.version` is required and must be a non-empty string" });
  }
  if (!isObject(value.paths)) errors.push({ path: "/paths", message: "`paths` is required and must be an object" });
  if (errors.length) return { ok: false, errors };
  return { ok: true, spec: { document: value, format, kind, specVersion, title, version, notes } };
}
