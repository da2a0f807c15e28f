// Entities: list, and read one with the most recent valid edges it takes part in.
import { getRoute, listRoute, type RouteDeps } from "./common.js";
import { EdgeSchema, EntitySchema, IdParams } from "./schemas.js";

export const entityRoutes = ({ api, guard }: RouteDeps) => [
  listRoute({ api, guard }, "entities", { summary: "List entities, newest first", item: EntitySchema }),
  getRoute(guard, "entities", {
    path: "/v1/entities/:id",
    operationId: "getEntity",
    summary: "An entity and the most recent valid edges it takes part in",
    params: IdParams,
    ok: { description: "The entity", schema: EntitySchema.extend({ edges: EdgeSchema.array() }) },
    get: (brainId, { id }) => api.getEntity(brainId, id),
  }),
];
