// JSON Schema (2020-12) validation for host-registered types, with every failing path reported (Ajv allErrors).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchema, ValidationIssue } from "./schema-types.js";

// ajv-formats is CommonJS: its callable is the default export under ESM interop.
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule }).default ?? addFormatsModule;

let ajv: Ajv2020 | undefined;
function instance(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  }
  return ajv;
}

const unescapePointer = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");

/** `/contact/email` -> `contact.email`, `/items/2` -> `items[2]`. */
function pointerToPath(pointer: string): string {
  if (!pointer) return "";
  let out = "";
  for (const raw of pointer.slice(1).split("/")) {
    const seg = unescapePointer(raw);
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

const join = (base: string, key: string) => (base ? `${base}.${key}` : key);

/** Compiles once; the returned function lists every issue of a value. */
export function compileJsonSchema(schema: JsonSchema): (value: unknown) => ValidationIssue[] {
  const { $schema: _dialect, ...body } = schema;
  const validate = instance().compile(body);
  return (value) => {
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => {
      const base = pointerToPath(e.instancePath);
      const params = e.params as Record<string, unknown>;
      if (e.keyword === "required") return { path: join(base, String(params.missingProperty)), message: "is required" };
      if (e.keyword === "additionalProperties")
        return { path: join(base, String(params.additionalProperty)), message: "is not an allowed property" };
      return { path: base, message: e.message ?? "is invalid" };
    });
  };
}
