// The memory operations an agent calls as tools, declared once: name, description, zod input and the api call.
// The MCP server (`@mountkit/memory/mcp`) and the Vercel AI SDK tools (`@mountkit/memory/ai`) both map this
// list; neither SDK is imported here. Inputs are plain JSON Schema-friendly zod (no transforms, so they render
// as tool schemas); each call re-validates through the REST route's own body schema, so limits match the wire.
import * as z from "zod";
import type { MemoryApi } from "../api.js";
import { memoryError } from "../errors.js";
import { CreateEpisodeBody, InvalidateBody, MAX_CONTENT, RecallBody } from "../routes/schemas.js";

const INSTANT = "YYYY-MM-DD or an ISO-8601 timestamp";
const id = (what: string) => z.string().min(1).max(128).describe(`The ${what}'s id`);

/** Parses with a wire schema; a failure is the service's own 400 `invalid_request`, listing each issue. */
function wire<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const details = r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  throw memoryError("invalid_request", {
    message: `invalid input: ${details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ")}`,
    details,
  });
}

export interface MemoryToolDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** MCP tool annotations: whether the tool only reads, and whether what it changes can be lost. */
  readOnly: boolean;
  destructive: boolean;
  run(api: MemoryApi, brainId: string, input: z.output<z.ZodObject<S>>): Promise<unknown>;
}

const define = <S extends z.ZodRawShape>(d: MemoryToolDefinition<S>) => d as unknown as MemoryToolDefinition;

const remember = define({
  name: "remember",
  title: "Remember",
  description:
    "Store an episode (a message, a note, an event) in memory. Facts are extracted from it in the background: " +
    "the answer is the episode with status `queued`; `get_episode` tells when it is `done`.",
  input: {
    content: z.string().min(1).max(MAX_CONTENT).describe("What to remember, as written"),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Free-form JSON object kept with the episode; a `playbook` slug adds it to that playbook"),
    occurredAt: z.string().max(64).optional().describe(`When it happened: ${INSTANT}; default now`),
  },
  readOnly: false,
  destructive: false,
  run: (api, brainId, input) => api.createEpisode(brainId, wire(CreateEpisodeBody, input)),
});

const getEpisode = define({
  name: "get_episode",
  title: "Get an episode",
  description: "An episode with its extraction status and the ids of the entities and facts (edges) taken from it.",
  input: { id: id("episode") },
  readOnly: true,
  destructive: false,
  run: (api, brainId, input) => api.getEpisode(brainId, input.id),
});

const recall = define({
  name: "recall",
  title: "Recall",
  description:
    "Facts and source episodes relevant to a query, as they were at a date. `asOf` (valid time: what was true then) " +
    "and `knownAt` (transaction time: what memory knew then) default to now; `context` is a ready-to-read summary.",
  input: {
    query: z.string().min(1).max(2000).describe("What to recall, in words"),
    asOf: z.string().max(64).optional().describe(`What was true at this time: ${INSTANT} (a date means the end of that UTC day)`),
    knownAt: z.string().max(64).optional().describe(`What memory knew at this time: ${INSTANT}`),
    limit: z.number().int().min(1).max(100).optional().describe("Most facts returned, 1-100 (default 10)"),
  },
  readOnly: true,
  destructive: false,
  run: (api, brainId, input) => api.recall(brainId, wire(RecallBody, input)),
});

const getEntity = define({
  name: "get_entity",
  title: "Get an entity",
  description: "A person, organisation, place or thing memory knows (ids come from `recall`), with its currently valid facts.",
  input: { id: id("entity"), edges: z.number().int().min(1).max(100).optional().describe("Most facts listed (default 20)") },
  readOnly: true,
  destructive: false,
  run: (api, brainId, input) => api.getEntity(brainId, input.id, input.edges === undefined ? {} : { edges: input.edges }),
});

const invalidateFact = define({
  name: "invalidate_fact",
  title: "Invalidate a fact",
  description:
    "Mark a fact (an edge, id from `recall` or `get_entity`) as no longer true from now on. History keeps it: " +
    "a recall `asOf` an earlier date still finds it.",
  input: { edgeId: id("edge"), reason: z.string().max(500).optional().describe("Why it stopped being true") },
  readOnly: false,
  destructive: false,
  run: (api, brainId, input) => api.invalidateEdge(brainId, input.edgeId, wire(InvalidateBody, { reason: input.reason }) ?? {}),
});

const forgetEpisode = define({
  name: "forget_episode",
  title: "Forget an episode",
  description:
    "Erase an episode for good: its text, and every fact and entity only it supported (facts other episodes also " +
    "support stay). Not undoable; no recall, at any date, finds it afterwards. Answers what was removed.",
  input: { id: id("episode") },
  readOnly: false,
  destructive: true,
  run: (api, brainId, input) => api.forgetEpisode(brainId, input.id),
});

const readPlaybook = define({
  name: "read_playbook",
  title: "Read a playbook",
  description:
    "A playbook (episodes stored with `metadata.playbook` set to its slug) as Markdown: its currently valid facts, " +
    "its rules and the facts no longer valid.",
  input: { slug: z.string().min(1).max(64).describe("The playbook's slug") },
  readOnly: true,
  destructive: false,
  run: (api, brainId, input) => api.getPlaybook(brainId, input.slug),
});

const listPlaybooks = define({
  name: "list_playbooks",
  title: "List playbooks",
  description: "The brain's playbooks, most recently created first (slug and title); `next` is the cursor of the next page.",
  input: { cursor: z.string().max(400).optional().describe("The `next` of the previous page") },
  readOnly: true,
  destructive: false,
  run: (api, brainId, input) =>
    api.listPlaybooks(brainId, input.cursor === undefined ? { limit: 100 } : { cursor: input.cursor, limit: 100 }),
});

/** Every tool, in the order agents see them. */
export const MEMORY_TOOLS: readonly MemoryToolDefinition[] = [
  remember,
  getEpisode,
  recall,
  getEntity,
  invalidateFact,
  forgetEpisode,
  readPlaybook,
  listPlaybooks,
];
