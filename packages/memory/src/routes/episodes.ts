// POST/GET /v1/episodes: store an episode (202, extraction queued) and read its status.
import { json, route } from "@mountkit/core";
import { brainOf } from "../auth/middleware.js";
import { errors, getRoute, listRoute, type RouteDeps, SECURITY } from "./common.js";
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
    responses: {
      202: {
        description: "Accepted; status `queued`",
        schema: EpisodeSchema,
        headers: {
          Location: {
            description: "Path of the episode (`GET` it for its status), mount prefix included",
            required: true,
            schema: { type: "string", format: "uri-reference" },
          },
        },
      },
      ...errors(400, 413, 415),
    },
    handler: async (ctx) => {
      const ep = await api.createEpisode(brainOf(ctx.state), ctx.body);
      // relative to the host's mount: the kit puts the host's mount prefix in front (core withMountPrefix)
      return json(202, ep, { location: `${basePath}/v1/episodes/${encodeURIComponent(ep.id)}` });
    },
  }),
  listRoute({ api, guard }, "episodes", { summary: "List episodes, newest first", item: EpisodeSchema }),
  getRoute(guard, "episodes", {
    path: "/v1/episodes/:id",
    operationId: "getEpisode",
    summary: "An episode with its extraction status and results",
    params: IdParams,
    ok: { description: "The episode", schema: EpisodeSchema },
    get: (brainId, { id }) => api.getEpisode(brainId, id),
  }),
];
