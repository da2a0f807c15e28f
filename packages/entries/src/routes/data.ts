// `/api/v1/types/:typeId/data...`: submit, list, get, change and delete entries.
import { empty, json, type Middleware, route } from "@mountkit/core";
import * as z from "zod";
import { principalOf } from "../auth/middleware.js";
import type { EntriesDomain } from "../domain/entries.js";
import { errorSchema } from "../errors.js";
import { badRequestBody, entry, entryInput, entryParams, entryPatch, listQuery, typeParams, validationErrorBody } from "./schemas.js";

export function dataRoutes(o: { domain: EntriesDomain; auth: Middleware; knownType: Middleware; basePath: string }) {
  const { domain } = o;
  const tags = ["entries"];
  return [
    route({
      method: "POST",
      path: "/api/v1/types/:typeId/data",
      operationId: "createEntry",
      summary: "Submit an entry",
      tags,
      params: typeParams,
      body: entryInput,
      security: ["bearerAuth"],
      use: [o.knownType, o.auth],
      responses: {
        201: { description: "Created", schema: entry },
        400: { description: "Invalid body: not JSON, not an object, or a field fails its schema", schema: badRequestBody },
        401: { description: "Missing or invalid token", schema: errorSchema },
        404: { description: "Unknown type", schema: errorSchema },
        422: { description: "customData failed validation", schema: validationErrorBody },
      },
      async handler(ctx) {
        const saved = await domain.submit({
          typeId: ctx.params.typeId,
          ownerId: principalOf(ctx).sub,
          entry: ctx.body,
          signal: ctx.signal,
          requestId: ctx.requestId,
        });
        const location = `${o.basePath}/api/v1/types/${encodeURIComponent(saved.typeId)}/data/${encodeURIComponent(saved.id)}`;
        return json(201, saved, { location });
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
        return json(200, await domain.list({ typeId: ctx.params.typeId, ...ctx.query }));
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
      responses: { 200: { description: "The entry", schema: entry }, 404: { description: "Not found", schema: errorSchema } },
      async handler(ctx) {
        return json(200, await domain.get(ctx.params));
      },
    }),
    route({
      method: "PATCH",
      path: "/api/v1/types/:typeId/data/:id",
      operationId: "updateEntry",
      summary: "Change an entry (owner only)",
      tags,
      params: entryParams,
      body: entryPatch,
      security: ["bearerAuth"],
      use: [o.knownType, o.auth],
      responses: {
        200: { description: "Updated", schema: entry },
        403: { description: "Not the owner", schema: errorSchema },
        404: { description: "Not found", schema: errorSchema },
        422: { description: "customData failed validation", schema: validationErrorBody },
      },
      async handler(ctx) {
        const updated = await domain.update({
          ...ctx.params,
          ownerId: principalOf(ctx).sub,
          patch: ctx.body,
          signal: ctx.signal,
          requestId: ctx.requestId,
        });
        return json(200, updated);
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/types/:typeId/data/:id",
      operationId: "deleteEntry",
      summary: "Delete an entry (owner only)",
      tags,
      params: entryParams,
      security: ["bearerAuth"],
      use: [o.knownType, o.auth],
      responses: { 204: { description: "Deleted" }, 403: { description: "Not the owner", schema: errorSchema } },
      async handler(ctx) {
        await domain.remove({ ...ctx.params, ownerId: principalOf(ctx).sub });
        return empty(204);
      },
    }),
  ];
}
