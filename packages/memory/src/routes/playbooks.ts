// Playbooks: agent-readable summaries of the facts from episodes tagged `metadata.playbook`.
import * as z from "zod";
import { getRoute, listRoute, type RouteDeps } from "./common.js";
import { PlaybookSchema, SlugParams } from "./schemas.js";

const PlaybookSummary = z.object({
  slug: z.string(),
  title: z.string(),
  episodes: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const playbookRoutes = ({ api, guard }: RouteDeps) => [
  listRoute({ api, guard }, "playbooks", { summary: "List playbooks, most recently updated first", item: PlaybookSummary }),
  getRoute(guard, "playbooks", {
    path: "/v1/playbooks/:slug",
    operationId: "getPlaybook",
    summary: "A playbook: markdown summary of its currently valid facts",
    params: SlugParams,
    ok: { description: "The playbook", schema: PlaybookSchema },
    get: (brainId, { slug }) => api.getPlaybook(brainId, slug),
  }),
];
