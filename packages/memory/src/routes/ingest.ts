// POST /v1/episodes/batch (up to 100 episodes, each answered on its own) and what the episode routes share for
// idempotent ingest and filtered lists (docs/memory.md#idempotent-and-batch-ingest, #scopes-and-filters).
import { issuesToDetails, json, route } from "@mountkit/core";
import type * as z from "zod";
import { brainOf } from "../auth/middleware.js";
import { errors, type RouteDeps, SECURITY } from "./common.js";
import { BatchBody, BatchItemBody, BatchResultSchema, FilterQueryFields, PageQuery, ScopeFields } from "./schemas.js";

/** What the `Idempotency-Key` request header of POST /v1/episodes means, for its OpenAPI description. */
export const IDEMPOTENCY_HEADER =
  'a key of the client\'s (1-255 printable ASCII characters; a structured-field string `"..."` or bare): the same key again within 24 hours stores nothing and answers the first answer (`Idempotent-Replayed: true`); with another body it answers 422 (docs/memory.md#idempotent-and-batch-ingest).';

export const ListEpisodesQuery = PageQuery.extend({
  userId: ScopeFields.userId,
  agentId: ScopeFields.agentId,
  sessionId: ScopeFields.sessionId,
  metadata: FilterQueryFields.metadata,
});

export const ListEntitiesQuery = PageQuery.extend(ScopeFields);

/** An item as POST /v1/episodes reads a body: a null optional field is an absent one. */
function withoutNulls(item: unknown): unknown {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  return Object.fromEntries(Object.entries(item).filter(([k, v]) => v !== null || k === "content"));
}

type Item = z.output<typeof BatchItemBody>;

export const batchRoutes = ({ api, guard }: RouteDeps) => [
  route({
    method: "POST",
    path: "/v1/episodes/batch",
    operationId: "createEpisodes",
    summary: "Store up to 100 episodes; each item is answered on its own",
    description:
      "Items are stored in order. Each answer says `accepted` (stored, extraction queued), `duplicate` (its `idempotencyKey` was used before: the first episode, nothing stored) or `error` with the status and error body POST /v1/episodes would have answered; a bad item stores nothing and the others are stored. The whole batch counts as one call of the daily quota.",
    tags: ["episodes"],
    security: SECURITY,
    use: guard,
    body: BatchBody,
    responses: {
      200: { description: "One answer per item, in the order sent", schema: BatchResultSchema },
      ...errors(400, 413, 415),
    },
    handler: async (ctx) => {
      const brainId = brainOf(ctx.state);
      const answers: unknown[] = [];
      const valid: Array<{ index: number; item: Item }> = [];
      for (const [index, raw] of ctx.body.episodes.entries()) {
        const p = BatchItemBody.safeParse(withoutNulls(raw));
        if (p.success) {
          valid.push({ index, item: p.data });
          continue;
        }
        const details = issuesToDetails(p.error.issues);
        const first = details[0];
        answers[index] = {
          index,
          status: "error",
          code: 400,
          error: {
            error: `invalid body: ${first?.path ? `${first.path}: ` : ""}${first?.message ?? "invalid"}`,
            details,
            requestId: ctx.requestId,
          },
        };
      }
      const outcomes = await api.createEpisodes(
        brainId,
        valid.map((v) => v.item),
      );
      outcomes.forEach((o, i) => {
        const index = valid[i]!.index;
        answers[index] =
          o.status === "error"
            ? { index, status: o.status, code: o.code, error: { ...o.error, requestId: ctx.requestId } }
            : { index, ...o };
      });
      return json(200, { items: answers });
    },
  }),
];
