// NUL (U+0000) is refused in every text a request carries. PostgreSQL cannot hold it in a text column,
// so without one check here the same input answers 400 on SQLite and 500 on PostgreSQL (issue #10).
import { coreError, type KitError } from "./errors.js";

export const NUL_MESSAGE = "must not contain the NUL character (U+0000)";

/** The 400 for a NUL found at `path` (`query.customerId`, `path.id`, `body.metadata.note`). */
export function nulError(path: string): KitError {
  return coreError("invalid_request", { message: `invalid text: ${path} ${NUL_MESSAGE}`, details: [{ path, message: NUL_MESSAGE }] });
}

/** Where a NUL sits in a parsed JSON value (keys included), as a dotted path; null when there is none. */
export function findNul(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.includes("\0") ? path : null;
  if (!value || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${path}[${i}]`);
      if (hit !== null) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k.replaceAll("\0", "\\u0000")}` : k.replaceAll("\0", "\\u0000");
    if (k.includes("\0")) return at;
    const hit = findNul(v, at);
    if (hit !== null) return hit;
  }
  return null;
}

/** Throws the 400 when a parsed body holds a NUL anywhere. */
export function refuseNulInBody(value: unknown): void {
  const at = findNul(value);
  if (at !== null) throw nulError(at ? `body.${at}` : "body");
}

/** Throws the 400 when a query name or value holds a NUL. */
export function refuseNulInQuery(query: URLSearchParams): void {
  for (const [k, v] of query) {
    if (k.includes("\0")) throw nulError(`query.${k.replaceAll("\0", "\\u0000")}`);
    if (v.includes("\0")) throw nulError(`query.${k}`);
  }
}

/** The 400 for the first decoded path parameter holding a NUL, or undefined. */
export function nulInParams(params: Record<string, string>): KitError | undefined {
  for (const k in params) if (params[k]!.includes("\0")) return nulError(`path.${k}`);
  return undefined;
}
