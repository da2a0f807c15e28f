// The pieces every part of a per-type OpenAPI document is built from (type-document.ts, type-revisions.ts).
import type { EntryType } from "../types/registry.js";

export type Limits = {
  name: number;
  description: number;
  tags: number;
  tag: number;
  listMax: number;
  operationsMax: number;
  query: number;
};

/** What every part of one type's document is built from. */
export interface DocumentContext {
  type: EntryType;
  /** The type id in PascalCase: the prefix of its schema names and operation ids. */
  P: string;
  /** `/api/v1/types/<id>` */
  base: string;
  limits: Limits;
}

export const json = (schema: unknown) => ({ "application/json": { schema } });
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const resp = (name: string) => ({ $ref: `#/components/responses/${name}` });
export const errors = (...names: Array<[string, string]>) => Object.fromEntries(names.map(([status, name]) => [status, resp(name)]));

/** What an owner's write of an entry can answer besides `more`: bad input, no or the wrong token, none, stale, busy. */
export const ownerWriteErrors = (...more: Array<[string, string]>) =>
  errors(
    ["400", "BadRequest"],
    ["401", "Unauthorized"],
    ["403", "Forbidden"],
    ["404", "NotFound"],
    ["412", "PreconditionFailed"],
    ...more,
    ["500", "InternalError"],
    ["503", "ServiceUnavailable"],
  );

// built per document, so that no two documents share (and a host editing one cannot change the other)
export const secured = () => [{ bearerAuth: [] }];
export const idParam = () => ({ name: "id", in: "path", required: true, schema: { type: "string" }, description: "Entry id." });
export const cursorParam = () => ({
  name: "cursor",
  in: "query",
  required: false,
  schema: { type: "string" },
  description: "`next` of the previous page.",
});

/** The headers of an answer carrying one entry: its version, for conditional requests. */
export const VERSION_HEADERS = () => ({
  ETag: { description: "The entry's version, for `If-Match` and `If-None-Match`.", required: true, schema: { type: "string" } },
  "Last-Modified": { description: "`dateModified` as an HTTP date.", required: true, schema: { type: "string" } },
});

/** `If-Match` on a write: it goes ahead only while the entry is at one of these versions, else 412. */
export const ifMatchParam = () => ({
  name: "If-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "ETags (strong comparison) or `*`: the write applies only while the entry is still at one of them, else 412.",
});
