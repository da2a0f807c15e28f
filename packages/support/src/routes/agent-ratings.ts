// GET /agent/ratings: the customers' ratings of a product's conversations for agents (docs/support.md#ratings),
// newest first a page at a time (`Link: rel="next"` and `next`), with a summary over the whole filter.
import { json, type Route, route } from "@mountkit/core";
import * as z from "zod";
import type { DeskCx } from "./desk-context.js";
import { nextLinkHeader, nextPageLink, PageCursor, ProductSlug, Timestamp } from "./schemas.js";

const PATH = "/agent/ratings";
const err = (description: string) => ({ description });

const Score = z.coerce.number().int().min(1).max(5);
const RatingsQuery = z.object({
  productSlug: ProductSlug,
  score: Score.optional().describe("Only this score, 1..5"),
  since: Timestamp.optional().describe("Ratings at or after this instant"),
  until: Timestamp.optional().describe("Ratings before this instant"),
  cursor: PageCursor,
  limit: z.coerce.number().int().min(1).max(200).default(50).describe("Ratings per page, 1..200; default 50"),
});

const RatedSchema = z.object({
  conversationId: z.string(),
  subject: z.string(),
  customerId: z.string(),
  assignee: z.string().nullable(),
  score: z.number().int().min(1).max(5),
  comment: z.string().nullable(),
  ratedAt: Timestamp,
});
const n = z.number().int().min(0);
const SummarySchema = z.object({
  count: n,
  average: z.number().nullable().describe("Mean score, two decimals; null when no rating matches"),
  byScore: z.object({ 1: n, 2: n, 3: n, 4: n, 5: n }),
});

export function ratingsRoute({ cx, common }: DeskCx): Route {
  return route({
    ...common,
    method: "GET",
    path: PATH,
    operationId: "agentListRatings",
    summary: "The customers' ratings of a product's conversations, newest first, with a summary; filter by score and time",
    description:
      "Pages of `limit` ratings (default 50, at most 200), ordered by `ratedAt` then conversation id, newest first. When more follow, `next` holds the cursor and the `Link` header the next page's URL (`<URL>; rel=\"next\"`). `summary` counts every rating the filter matches, not only this page. A deleted conversation's rating is not listed.",
    query: RatingsQuery,
    responses: {
      200: {
        description: "OK",
        schema: z.object({ items: z.array(RatedSchema), summary: SummarySchema, next: z.string().nullable() }),
        headers: nextLinkHeader,
      },
      400: err("Invalid query: score, since, until, cursor or limit"),
      401: err("Bad or missing bearer token"),
      404: err("No product for the slug"),
      501: err("The product's backend (GitHub, Slack, a remote SPI) keeps no ratings"),
    },
    async handler({ query }) {
      const page = await cx.api.agent.ratings(query);
      if (page.next === null) return json(200, page);
      const same: Record<string, string> = { productSlug: query.productSlug, limit: String(query.limit) };
      for (const k of ["score", "since", "until"] as const) if (query[k] !== undefined) same[k] = String(query[k]);
      return json(200, page, { link: nextPageLink(`${cx.basePath}${PATH}`, same, page.next) });
    },
  });
}
