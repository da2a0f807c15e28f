// POST/GET /v1/episodes: store an episode (202, extraction queued) and read its status.
import { json, route } from "@mountkit/core";
import { brainOf } from "../auth/middleware.js";
import { parseIdempotencyKey } from "../ingest.js";
import { errors, getRoute, listRoute, type RouteDeps, SECURITY } from "./common.js";
import { IDEMPOTENCY_HEADER, ListEpisodesQuery } from "./ingest.js";
import { CreateEpisodeBody, EpisodeSchema, IdParams } from "./schemas.js";

export const episodeRoutes = ({ api, guard, basePath }: RouteDeps) => [
  route({
    method: "POST",
    path: "/v1/episodes",
    operationId: "createEpisode",
    summary: "Store an episode; extraction runs asynchronously",
    tags: ["episodes"],
    security: SECURITY,
    use: guard,
    body: CreateEpisodeBody,
    requestHeaders: {
      "Idempotency-Key": { description: IDEMPOTENCY_HEADER, schema: { type: "string", minLength: 1, maxLength: 257 } },
    },
    responses: {
      202: {
        description:
          "Accepted; status `queued`. A retry with the same `Idempotency-Key` answers the first answer again (the episode as accepted, same Location) and stores nothing",
        schema: EpisodeSchema,
        headers: {
          Location: {
            description: "Path of the episode (`GET` it for its status), mount prefix included",
            required: true,
            schema: { type: "string", format: "uri-reference" },
          },
          "Idempotent-Replayed": {
            description: "`true` when the answer is the replay of an earlier request with the same `Idempotency-Key`",
            schema: { type: "string", enum: ["true"] },
          },
        },
      },
      ...errors(400, 413, 415, 422),
    },
    handler: async (ctx) => {
      const idempotencyKey = parseIdempotencyKey(ctx.headers["idempotency-key"]);
      const r = await api.ingestEpisode(brainOf(ctx.state), ctx.body, idempotencyKey === undefined ? {} : { idempotencyKey });
      const ep = r.episode;
      // relative to the host's mount: the kit puts the host's mount prefix in front (core withMountPrefix)
      const location = `${basePath}/v1/episodes/${encodeURIComponent(ep.id)}`;
      return json(202, ep, r.replayed ? { location, "idempotent-replayed": "true" } : { location });
    },
  }),
  listRoute({ api, guard }, "episodes", {
    summary: "List episodes, newest first",
    description: "Scope and metadata filters: only episodes matching every one given (docs/memory.md#scopes-and-filters).",
    query: ListEpisodesQuery,
    item: EpisodeSchema,
  }),
  getRoute(guard, "episodes", {
    path: "/v1/episodes/:id",
    operationId: "getEpisode",
    summary: "An episode with its extraction status and results",
    params: IdParams,
    ok: { description: "The episode", schema: EpisodeSchema },
    get: (brainId, { id }) => api.getEpisode(brainId, id),
  }),
];
