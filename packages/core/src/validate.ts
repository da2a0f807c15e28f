// Input validation at the edge: a route's zod schemas for path, query and body, failures as the kit's 400.
import type * as z from "zod";
import type { Context } from "./context.js";
import { coreError } from "./errors.js";
import { dropNullOptionals } from "./nulls.js";
import type { Route } from "./route.js";

/** Zod issues as `[{ path, message }]` with dotted paths prefixed by where the value came from. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix?: string): Array<{ path: string; message: string }> {
  return issues.map((i) => {
    const segs = i.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p)));
    const joined = segs.reduce((acc, s) => (s.startsWith("[") ? acc + s : acc ? `${acc}.${s}` : s), "");
    return { path: prefix ? (joined ? `${prefix}.${joined}` : prefix) : joined, message: i.message };
  });
}

function validate(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return value;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const details = issuesToDetails(r.error.issues, where === "body" ? undefined : where);
  const first = details[0];
  const message = first ? `invalid ${where}: ${first.path ? `${first.path}: ` : ""}${first.message}` : `invalid ${where}`;
  throw coreError("invalid_request", { message, details });
}

/** Replaces the context's params, query and body with their validated values; throws the 400 on the first failure. */
export function validateInputs(r: Route, ctx: Context): void {
  if (r.params) ctx.params = validate(r.params, ctx.params, "path") as Record<string, string>;
  // without a query schema the query stays unparsed until a handler reads it
  if (r.query) ctx.query = validate(r.query, ctx.query, "query") as Record<string, unknown>;
  if (r.body) ctx.body = validate(r.body, dropNullOptionals(r.body, ctx.body), "body");
}
