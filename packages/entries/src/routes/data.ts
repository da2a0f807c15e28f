// `/api/v1/types/:typeId/data...`: submit, list, get, change and delete entries.
import { empty, json, type Middleware, type RequestContext, type Route, type RouteDef, route } from "@mountkit/core";
import * as z from "zod";
import type { EntriesApi } from "../api.js";
import { principalOf } from "../auth/middleware.js";
import { errorSchema } from "../errors.js";
import { badRequestBody, entry, entryInput, entryParams, entryPatch, listQuery, typeParams, validationErrorBody } from "./schemas.js";
import { expectedVersion, notModified, stale, unavailable, VERSION_HEADERS, versioned, versionHeaders } from "./versions.js";

/** A write's author and the request's signal and id, handed to the type's hook. */
const writer = (ctx: RequestContext<any, any, any>) => ({ ownerId: principalOf(ctx).sub, signal: ctx.signal, requestId: ctx.requestId });

export function dataRoutes(o: { api: EntriesApi; auth: Middleware; knownType: Middleware; basePath: string }) {
  const { api } = o;
  const tags = ["entries"];
  const notFound = { description: "Not found", schema: errorSchema };
  const notOwner = { description: "Not the owner", schema: errorSchema };
  // an unknown type is a 404 before the token is even read
  const owned = { tags, security: ["bearerAuth"], use: [o.knownType, o.auth] };
  /** A write of customData by its author: the type's schema may refuse it (422). */
  const authorWrite = <P extends z.ZodType, B extends z.ZodType>(def: Omit<RouteDef<P, undefined, B>, keyof typeof owned>): Route =>
    route<P, undefined, B>({
      ...def,
      ...owned,
      responses: { ...def.responses, 422: { description: "customData failed validation", schema: validationErrorBody }, 503: unavailable },
    });
  return [
    authorWrite({
      method: "POST",
      path: "/api/v1/types/:typeId/data",
      operationId: "createEntry",
      summary: "Submit an entry",
      params: typeParams,
      body: entryInput,
      responses: {
        201: {
          ...versioned("Created", entry),
          headers: { ...VERSION_HEADERS, Location: { description: "The entry's address", required: true } },
        },
        400: { description: "Invalid body: not JSON, not an object, or a field fails its schema", schema: badRequestBody },
      },
      async handler(ctx) {
        const saved = await api.submit({ typeId: ctx.params.typeId, entry: ctx.body, ...writer(ctx) });
        const location = `${o.basePath}/api/v1/types/${encodeURIComponent(saved.typeId)}/data/${encodeURIComponent(saved.id)}`;
        return json(201, saved, { location, ...versionHeaders(saved) });
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/data",
      operationId: "listEntries",
      summary: "List entries, newest first; filter by tag, owner or text",
      tags,
      params: typeParams,
      query: listQuery,
      use: [o.knownType],
      responses: { 200: { description: "A page", schema: z.object({ items: z.array(entry), next: z.string().nullable() }) } },
      async handler(ctx) {
        return json(200, await api.list({ typeId: ctx.params.typeId, ...ctx.query }));
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/data/:id",
      operationId: "getEntry",
      summary: "Get an entry",
      tags,
      params: entryParams,
      use: [o.knownType],
      responses: {
        200: versioned("The entry", entry),
        304: { description: "`If-None-Match` names the entry as it is: no body", headers: VERSION_HEADERS },
        404: notFound,
      },
      async handler(ctx) {
        const found = await api.get(ctx.params);
        if (notModified(ctx, found)) return empty(304, versionHeaders(found));
        return json(200, found, versionHeaders(found));
      },
    }),
    authorWrite({
      method: "PATCH",
      path: "/api/v1/types/:typeId/data/:id",
      operationId: "updateEntry",
      summary: "Change an entry (owner only)",
      params: entryParams,
      body: entryPatch,
      responses: { 200: versioned("Updated", entry), 403: notOwner, 404: notFound, 412: stale },
      async handler(ctx) {
        const expectModified = await expectedVersion(api, ctx, ctx.params);
        const updated = await api.update({ ...ctx.params, patch: ctx.body, expectModified, ...writer(ctx) });
        return json(200, updated, versionHeaders(updated));
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/types/:typeId/data/:id",
      operationId: "deleteEntry",
      summary: "Delete an entry (owner only)",
      params: entryParams,
      ...owned,
      responses: { 204: { description: "Deleted" }, 403: notOwner, 404: notFound, 412: stale, 503: unavailable },
      async handler(ctx) {
        const expectModified = await expectedVersion(api, ctx, ctx.params);
        await api.remove({ ...ctx.params, ownerId: principalOf(ctx).sub, expectModified });
        return empty(204);
      },
    }),
  ];
}
