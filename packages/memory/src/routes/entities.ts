// Entities: list, and read one with the most recent valid edges it takes part in.
import { getRoute, listRoute, type RouteDeps } from "./common.js";
import { ListEntitiesQuery } from "./ingest.js";
import { EdgeSchema, EntitySchema, IdParams } from "./schemas.js";

export const entityRoutes = ({ api, guard }: RouteDeps) => [
  listRoute({ api, guard }, "entities", {
    summary: "List entities, newest first",
    description: "With a scope, only the entities a fact of that scope touches (docs/memory.md#scopes-and-filters).",
    query: ListEntitiesQuery,
    item: EntitySchema,
  }),
  getRoute(guard, "entities", {
    path: "/v1/entities/:id",
    operationId: "getEntity",
    summary: "An entity and the most recent valid edges it takes part in",
    params: IdParams,
    ok: { description: "The entity", schema: EntitySchema.extend({ edges: EdgeSchema.array() }) },
    get: (brainId, { id }) => api.getEntity(brainId, id),
  }),
];
