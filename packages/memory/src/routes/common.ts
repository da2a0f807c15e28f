// What every memory route receives (the in-process api and the auth + quota middleware), the error
// docs they share, and the two shapes of a brain's GET routes: a page of its records, and one record by id.
import { json, type Middleware, type ResponseDoc, type Route, route } from "@mountkit/core";
import type * as z from "zod";
import type { MemoryApi } from "../api.js";
import { brainOf } from "../auth/middleware.js";
import { PageQuery, page } from "./schemas.js";

export interface RouteDeps {
  api: MemoryApi;
  /** Authentication then quota, in that order: unauthenticated calls never touch a quota. */
  guard: Middleware[];
  /** The service's basePath without a trailing slash ("" when mounted at the root), for Location headers. */
  basePath: string;
}

export const SECURITY = ["apiKey"];

export const errors = (...statuses: number[]): Record<number, ResponseDoc> => {
  const text: Record<number, string> = {
    400: "Invalid input",
    401: "Missing or unknown API key",
    404: "Not found in this brain",
    408: "The body did not arrive in time",
    409: "Conflict",
    413: "Body too large",
    415: "Body is not JSON",
    422: "Idempotency-Key already used with another request body",
    429: "Daily quota exceeded",
  };
  return Object.fromEntries([401, 429, ...statuses].map((s) => [s, { description: text[s] ?? "Error" }]));
};

type Collection = "episodes" | "entities" | "edges" | "playbooks";

/**
 * GET /v1/<tag>: a page of the brain's records, newest first; a bad page query answers 400. Its
 * operationId is the api call it makes: `list<Tag>` (listEpisodes, listEdges, ...).
 */
export function listRoute(
  { api, guard }: Pick<RouteDeps, "api" | "guard">,
  tag: Collection,
  def: {
    summary: string;
    description?: string;
    /** Default: PageQuery (cursor and limit). */
    query?: z.ZodType;
    item: z.ZodType;
  },
): Route {
  const operationId = `list${tag[0]!.toUpperCase()}${tag.slice(1)}` as `list${Capitalize<Collection>}`;
  const list = api[operationId] as (brainId: string, query: unknown) => Promise<unknown>;
  return route<undefined, z.ZodType>({
    method: "GET",
    path: `/v1/${tag}`,
    operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: [tag],
    security: SECURITY,
    use: guard,
    query: def.query ?? PageQuery,
    responses: { 200: { description: `A page of ${tag}`, schema: page(def.item) }, ...errors(400) },
    handler: async (ctx) => json(200, await list(brainOf(ctx.state), ctx.query)),
  });
}

/** GET one record of the brain by its path parameter; 404 when the brain has none. */
export function getRoute<P extends z.ZodType>(
  guard: Middleware[],
  tag: string,
  def: {
    path: string;
    operationId: string;
    summary: string;
    params: P;
    /** The 200 response. */
    ok: ResponseDoc;
    get: (brainId: string, params: z.output<P>) => Promise<unknown>;
  },
): Route {
  return route<P>({
    method: "GET",
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    tags: [tag],
    security: SECURITY,
    use: guard,
    params: def.params,
    responses: { 200: def.ok, ...errors(404) },
    handler: async (ctx) => json(200, await def.get(brainOf(ctx.state), ctx.params as z.output<P>)),
  });
}
