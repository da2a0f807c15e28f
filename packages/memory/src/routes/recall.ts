// POST /v1/recall: hybrid, bi-temporal retrieval of facts and their source episodes.
import { json, route } from "@mountkit/core";
import { brainOf } from "../auth/middleware.js";
import { errors, type RouteDeps, SECURITY } from "./common.js";
import { RecallBody, RecallSchema } from "./schemas.js";

export const recallRoutes = ({ api, guard }: RouteDeps) => [
  route({
    method: "POST",
    path: "/v1/recall",
    operationId: "recall",
    summary: "Recall facts and episodes relevant to a query, as of a date",
    description:
      "An edge is returned when it was valid at `asOf` (tValid <= asOf < tInvalid) and known at `knownAt` (tIngested <= knownAt < tExpired); both default to now.",
    tags: ["recall"],
    security: SECURITY,
    use: guard,
    body: RecallBody,
    responses: { 200: { description: "Context, scored edges and source episodes", schema: RecallSchema }, ...errors(400, 413, 415) },
    handler: async (ctx) => json(200, await api.recall(brainOf(ctx.state), ctx.body)),
  }),
];
