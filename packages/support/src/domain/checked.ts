// An input checked by the schema its route validates, so a call in process meets the rules HTTP does (a message of
// 1 to 20,000 characters...): the same 400 `invalid_request` with the same message and details.
import { issuesToDetails } from "@mountkit/core";
import type * as z from "zod";
import { supportError } from "../errors.js";

export function checked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const details = issuesToDetails(r.error.issues);
  const first = details[0];
  throw supportError("invalid_request", {
    message: first ? `invalid body: ${first.path ? `${first.path}: ` : ""}${first.message}` : "invalid body",
    details,
  });
}
