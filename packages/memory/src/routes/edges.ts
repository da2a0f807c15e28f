// Edges: list, read (with the source episode) and invalidate (never delete).
import { json, route } from "@mountkit/core";
import * as z from "zod";
import { brainOf } from "../auth/middleware.js";
import { errors, getRoute, listRoute, type RouteDeps, SECURITY } from "./common.js";
import { EdgeSchema, EpisodeSchema, FilterQueryFields, IdParams, InvalidateBody, instant, PageQuery } from "./schemas.js";

const ListEdgesQuery = PageQuery.extend({
  ...FilterQueryFields,
  entityId: z.string().max(128).optional().describe("Only edges touching this entity"),
  asOf: instant(true)
    .optional()
    .describe(
      "Only edges valid then (tValid <= asOf < tInvalid). YYYY-MM-DD (end of that UTC day) or ISO-8601; with `knownAt` alone, default now",
    ),
  knownAt: instant(true)
    .optional()
    .describe(
      "Only edges the memory knew then (tIngested <= knownAt < tExpired). YYYY-MM-DD (end of that UTC day) or ISO-8601; with `asOf` alone, default now",
    ),
});

export const edgeRoutes = ({ api, guard }: RouteDeps) => [
  listRoute({ api, guard }, "edges", {
    summary: "List edges, most recently ingested first",
    description:
      "Without `asOf` and `knownAt`, every edge ever recorded (the whole history). With either, only the edges visible at that bi-temporal point, the other axis defaulting to now. Scope, relation, tValid range and metadata filters: only edges matching every one given (docs/memory.md#scopes-and-filters).",
    query: ListEdgesQuery,
    item: EdgeSchema,
  }),
  getRoute(guard, "edges", {
    path: "/v1/edges/:id",
    operationId: "getEdge",
    summary: "An edge with both time ranges and its source episode",
    params: IdParams,
    ok: { description: "The edge", schema: EdgeSchema.extend({ episode: EpisodeSchema.nullable() }) },
    get: (brainId, { id }) => api.getEdge(brainId, id),
  }),
  route({
    method: "POST",
    path: "/v1/edges/:id/invalidate",
    operationId: "invalidateEdge",
    summary: "Mark an edge superseded: tInvalid becomes now and the reason is recorded; tExpired stays null and the edge stays readable",
    tags: ["edges"],
    security: SECURITY,
    use: guard,
    params: IdParams,
    body: InvalidateBody,
    responses: { 200: { description: "The updated edge", schema: EdgeSchema }, ...errors(400, 404, 409) },
    handler: async (ctx) => json(200, await api.invalidateEdge(brainOf(ctx.state), ctx.params.id, ctx.body ?? {})),
  }),
];
