// `/api/v1/types/:typeId/data/:id/revisions...`: an entry's kept states, and restoring one (docs/entries.md#revisions-and-versions).
import { json, type Middleware, route } from "@mountkit/core";
import * as z from "zod";
import type { EntriesApi } from "../api.js";
import { principalOf } from "../auth/middleware.js";
import { errorSchema } from "../errors.js";
import { entry, revision, revisionParams, revisionsQuery, validationErrorBody } from "./schemas.js";
import { expectedVersion, stale, unavailable, versioned, versionHeaders } from "./versions.js";

export function revisionRoutes(o: { api: EntriesApi; auth: Middleware; knownType: Middleware }) {
  const { api } = o;
  const tags = ["entries"];
  const notFound = { description: "No such entry or revision", schema: errorSchema };
  return [
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/data/:id/revisions",
      operationId: "listEntryRevisions",
      summary: "An entry's revisions, newest first: who changed it, when, and what it held",
      tags,
      params: revisionParams.omit({ revision: true }),
      query: revisionsQuery,
      use: [o.knownType],
      responses: {
        200: { description: "A page of revisions", schema: z.object({ items: z.array(revision), next: z.string().nullable() }) },
        404: notFound,
      },
      async handler(ctx) {
        return json(200, await api.revisions({ ...ctx.params, ...ctx.query }));
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/data/:id/revisions/:revision",
      operationId: "getEntryRevision",
      summary: "One revision of an entry",
      tags,
      params: revisionParams,
      use: [o.knownType],
      responses: { 200: { description: "The revision", schema: revision }, 404: notFound },
      async handler(ctx) {
        return json(200, await api.revision({ ...ctx.params, revision: Number(ctx.params.revision) }));
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/types/:typeId/data/:id/revisions/:revision/restore",
      operationId: "restoreEntryRevision",
      summary: "Make a revision's fields the entry's again, as a new revision (owner only; honours If-Match)",
      tags,
      security: ["bearerAuth"],
      use: [o.knownType, o.auth],
      params: revisionParams,
      responses: {
        200: versioned("The entry as restored", entry),
        403: { description: "Not the owner", schema: errorSchema },
        404: notFound,
        412: stale,
        422: {
          description: "The restored customData no longer passes the type's checks (an apis spec that fails now)",
          schema: validationErrorBody,
        },
        503: unavailable,
      },
      async handler(ctx) {
        const { typeId, id } = ctx.params;
        const expectModified = await expectedVersion(api, ctx, { typeId, id });
        const restored = await api.restore({
          typeId,
          id,
          revision: Number(ctx.params.revision),
          ownerId: principalOf(ctx).sub,
          expectModified,
          signal: ctx.signal,
          requestId: ctx.requestId,
        });
        return json(200, restored, versionHeaders(restored));
      },
    }),
  ];
}
