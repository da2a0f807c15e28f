// Playbooks: agent-readable summaries of the facts from episodes tagged `metadata.playbook`.
import { json, route } from "@mountkit/core";
import * as z from "zod";
import { brainOf } from "../auth/middleware.js";
import { type RouteDeps, errors, SECURITY } from "./common.js";
import { PageQuery, PlaybookSchema, page, SlugParams } from "./schemas.js";

const PlaybookSummary = z.object({
  slug: z.string(),
  title: z.string(),
  episodes: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const playbookRoutes = ({ api, guard }: RouteDeps) => [
  route({
    method: "GET",
    path: "/v1/playbooks",
    operationId: "listPlaybooks",
    summary: "List playbooks, most recently updated first",
    tags: ["playbooks"],
    security: SECURITY,
    use: guard,
    query: PageQuery,
    responses: { 200: { description: "A page of playbooks", schema: page(PlaybookSummary) }, ...errors(400) },
    handler: async (ctx) => json(200, await api.listPlaybooks(brainOf(ctx.state), ctx.query)),
  }),
  route({
    method: "GET",
    path: "/v1/playbooks/:slug",
    operationId: "getPlaybook",
    summary: "A playbook: markdown summary of its currently valid facts",
    tags: ["playbooks"],
    security: SECURITY,
    use: guard,
    params: SlugParams,
    responses: { 200: { description: "The playbook", schema: PlaybookSchema }, ...errors(404) },
    handler: async (ctx) => json(200, await api.getPlaybook(brainOf(ctx.state), ctx.params.slug)),
  }),
];
