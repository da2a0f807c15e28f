// Entities: list, and read one with the most recent valid edges it takes part in.
import { json, route } from "@mountkit/core";
import { brainOf } from "../auth/middleware.js";
import { type RouteDeps, errors, SECURITY } from "./common.js";
import { EdgeSchema, EntitySchema, IdParams, PageQuery, page } from "./schemas.js";

export const entityRoutes = ({ api, guard }: RouteDeps) => [
  route({
    method: "GET",
    path: "/v1/entities",
    operationId: "listEntities",
    summary: "List entities, newest first",
    tags: ["entities"],
    security: SECURITY,
    use: guard,
    query: PageQuery,
    responses: { 200: { description: "A page of entities", schema: page(EntitySchema) }, ...errors(400) },
    handler: async (ctx) => json(200, await api.listEntities(brainOf(ctx.state), ctx.query)),
  }),
  route({
    method: "GET",
    path: "/v1/entities/:id",
    operationId: "getEntity",
    summary: "An entity and the most recent valid edges it takes part in",
    tags: ["entities"],
    security: SECURITY,
    use: guard,
    params: IdParams,
    responses: { 200: { description: "The entity", schema: EntitySchema.extend({ edges: EdgeSchema.array() }) }, ...errors(404) },
    handler: async (ctx) => json(200, await api.getEntity(brainOf(ctx.state), ctx.params.id)),
  }),
];
