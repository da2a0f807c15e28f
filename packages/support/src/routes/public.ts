// Interface A: the public conversation API under /api/conversations (no tokens; identity is customerId).
import { json, type Route, route } from "@mountkit/core";
import * as z from "zod";
import type { CustomerScope } from "../domain/backend.js";
import { decodeConversationCursor, encodeConversationCursor } from "../domain/cursor.js";
import type { AddressSource } from "../http/client-address.js";
import { admit, eventStream, type SupportContext } from "../http/context.js";
import {
  SIGNATURE_PARAM,
  SignatureQuery,
  type SignatureSource,
  signatureHeaderDoc,
  unverified,
  verifyCustomer,
} from "../http/customer-signature.js";
import { parseLastEventId } from "../stream/open.js";
import {
  bodyErrors,
  CloseActionSchema,
  CommentSchema,
  CreateBody,
  CustomerId,
  CustomerQuery,
  IdParam,
  IssueSchema,
  nextLinkHeader,
  nextPageLink,
  PageCursor,
  PageLimit,
  PostBody,
  ProductSlug,
  RateBody,
  RatingSchema,
  rateLimited,
  StreamEventSchema,
  SummarySchema,
  streamHeaders,
  Timestamp,
} from "./schemas.js";

const BASE = "/api/conversations";
const tags = ["conversations"];
/** What every route of interface A documents: the signature header of verified products (docs/support.md#verified-customers). */
const signed = { tags, requestHeaders: signatureHeaderDoc };
const err = (description: string) => ({ description });
const limited = rateLimited("Rate limit exceeded");

const CloseBody = z.object({ productSlug: ProductSlug, customerId: CustomerId, action: CloseActionSchema });
export const LIST_LIMIT = { default: 50, max: 200 };
/** A GET's customer scope: the signature may come in the query, where an EventSource cannot send a header. */
const SignedQuery = CustomerQuery.extend({ [SIGNATURE_PARAM]: SignatureQuery });
const ListQuery = SignedQuery.extend({ limit: PageLimit(LIST_LIMIT), cursor: PageCursor });
const Posted = z.object({ id: z.string(), createdAt: Timestamp });
const Closed = z.object({ success: z.literal(true), message: z.string() });
const StreamQuery = SignedQuery.extend({
  lastEventId: z.string().optional().describe("Replay events after this id (same as the Last-Event-ID header)"),
});

/**
 * The guard of every call: the product (404 when unknown), the customerId's signature when the product verifies
 * customers (401, before any limit counts the request), then the rate limits.
 */
async function admitted(cx: SupportContext, scope: CustomerScope, request: AddressSource & SignatureSource): Promise<void> {
  const product = cx.products.require(scope.productSlug);
  await verifyCustomer(product.verifySecret, scope.customerId, request);
  await admit(cx, product, scope.customerId, cx.clientAddress(request));
}

/**
 * What a call on the conversation in the path declares beside its documents: method, path and id parameter,
 * and the handler: the guard on the caller's scope (a GET's query, else the body), then the api call.
 */
function onConversation<I extends CustomerScope>(
  cx: SupportContext,
  method: "GET" | "POST",
  suffix: string,
  call: (input: I & { conversationId: string }) => Promise<unknown>,
) {
  return {
    method,
    path: `${BASE}/:id${suffix}`,
    ...signed,
    params: IdParam,
    async handler(ctx: { params: { id: string }; query: unknown; body: unknown } & AddressSource & SignatureSource) {
      const { params, query, body } = ctx;
      // validated against the route's own query or body schema before the handler runs
      const scope = (method === "GET" ? query : body) as I;
      await admitted(cx, scope, ctx);
      return json(200, await call({ ...scope, conversationId: params.id }));
    },
  };
}

const createRoute = (cx: SupportContext) =>
  route({
    method: "POST",
    path: BASE,
    operationId: "createConversation",
    summary: "Create a conversation with its first message",
    ...signed,
    body: CreateBody,
    responses: {
      200: { description: "Created", schema: z.object({ conversationId: z.string(), createdAt: Timestamp }) },
      400: err("Missing or invalid productSlug, customerId or message"),
      404: err("No product for the slug"),
      ...unverified,
      ...bodyErrors,
      ...limited,
    },
    async handler(ctx) {
      const { body } = ctx;
      await admitted(cx, body, ctx);
      return json(200, await cx.api.createConversation(body));
    },
  });

const listRoute = (cx: SupportContext) =>
  route({
    method: "GET",
    path: `${BASE}/list`,
    operationId: "listConversations",
    summary: "The customer's conversations, open and closed, most recent activity first, a page at a time",
    description:
      'Pages of `limit` conversations (default 50, at most 200). When more follow, the `Link` header carries the next page\'s URL (`<URL>; rel="next"`); the body keeps its `{ conversations }` shape.',
    ...signed,
    query: ListQuery,
    responses: {
      200: { description: "OK", schema: z.object({ conversations: z.array(SummarySchema) }), headers: nextLinkHeader },
      400: err("Missing parameters, a limit outside 1..200 or a cursor this API did not write"),
      ...unverified,
      ...limited,
    },
    async handler(ctx) {
      const { query } = ctx;
      const after = query.cursor ? decodeConversationCursor(query.cursor) : undefined;
      const product = cx.products.get(query.productSlug);
      if (!product) return json(200, { conversations: [] });
      await verifyCustomer(product.verifySecret, query.customerId, ctx);
      await admit(cx, product, query.customerId, cx.clientAddress(ctx));
      const { conversations: rows } = await cx.api.listConversations({
        productSlug: query.productSlug,
        customerId: query.customerId,
        after,
        limit: query.limit + 1,
      });
      const conversations = rows.slice(0, query.limit);
      const last = conversations[conversations.length - 1];
      if (rows.length <= query.limit || !last) return json(200, { conversations });
      const same: Record<string, string> = { productSlug: query.productSlug, customerId: query.customerId, limit: String(query.limit) };
      // a signature that came in the query goes on to the next page the same way
      if (query.customerSignature !== undefined) same[SIGNATURE_PARAM] = query.customerSignature;
      return json(200, { conversations }, { link: nextPageLink(`${cx.basePath}${BASE}/list`, same, encodeConversationCursor(last)) });
    },
  });

const findRoute = (cx: SupportContext) =>
  route({
    method: "GET",
    path: `${BASE}/find`,
    operationId: "findConversation",
    summary: "The customer's first open conversation (else the most recent one)",
    description: "Reads at most two conversations from the backend, however many the customer has.",
    ...signed,
    query: SignedQuery,
    responses: {
      200: {
        description: "OK",
        schema: z.union([z.object({ found: z.literal(true), conversationId: z.string() }), z.object({ found: z.literal(false) })]),
      },
      400: err("Missing parameters"),
      404: err("Product not found"),
      ...unverified,
      ...limited,
    },
    async handler(ctx) {
      const { query } = ctx;
      await admitted(cx, query, ctx);
      return json(200, await cx.api.findConversation(query));
    },
  });

const getRoute = (cx: SupportContext) =>
  route({
    ...onConversation(cx, "GET", "", cx.api.getConversation),
    operationId: "getConversation",
    summary: "Conversation detail: the issue (first message) and later comments",
    query: SignedQuery,
    responses: {
      200: { description: "OK", schema: z.object({ issue: IssueSchema, comments: z.array(CommentSchema) }) },
      400: err("Missing productSlug or customerId"),
      404: err("Conversation not found or not this customer's"),
      ...unverified,
      ...limited,
    },
  });

const postRoute = (cx: SupportContext) =>
  route({
    ...onConversation(cx, "POST", "/messages", cx.api.postMessage),
    operationId: "postMessage",
    summary: "Post a customer message (deduplicated on clientMessageId)",
    body: PostBody,
    responses: {
      200: { description: "Posted, or the original of a repeated clientMessageId", schema: Posted },
      400: err("Missing message, productSlug or customerId"),
      404: err("Conversation not found"),
      409: err("Conversation is closed"),
      ...unverified,
      ...bodyErrors,
      ...limited,
    },
  });

const closeRoute = (cx: SupportContext) =>
  route({
    ...onConversation(cx, "POST", "/close", cx.api.closeConversation),
    operationId: "closeConversation",
    summary: "Resolve or close a conversation",
    body: CloseBody,
    responses: {
      200: {
        description: "Done; on an already resolved or closed conversation nothing changes and the message names that state",
        schema: Closed,
      },
      400: err("Missing parameters or action not resolve/close"),
      404: err("Conversation not found"),
      ...unverified,
      ...bodyErrors,
      ...limited,
    },
  });

const rateRoute = (cx: SupportContext) =>
  route({
    ...onConversation(cx, "POST", "/rating", cx.api.rateConversation),
    operationId: "rateConversation",
    summary: "Rate a resolved or closed conversation 1 to 5, with an optional comment; rating again replaces the rating",
    body: RateBody,
    responses: {
      200: { description: "The rating as kept", schema: z.object({ rating: RatingSchema }) },
      400: err("Missing productSlug or customerId, or a score that is not a whole number from 1 to 5"),
      404: err("Conversation not found"),
      409: err("Conversation is still open"),
      ...unverified,
      ...bodyErrors,
      ...limited,
      501: err("This product's backend keeps no ratings"),
    },
  });

const ratingRoute = (cx: SupportContext) =>
  route({
    ...onConversation(cx, "GET", "/rating", cx.api.getRating),
    operationId: "getRating",
    summary: "The customer's rating of the conversation, null until rated (the detail stays {issue, comments})",
    query: SignedQuery,
    responses: {
      200: {
        description: "The rating as kept",
        schema: z.object({ rating: RatingSchema.nullable().describe("null until the customer rates the resolved or closed conversation") }),
      },
      400: err("Missing productSlug or customerId"),
      404: err("Conversation not found or not this customer's"),
      ...unverified,
      ...limited,
      501: err("This product's backend keeps no ratings"),
    },
  });

const streamRoute = (cx: SupportContext) =>
  route({
    method: "GET",
    path: `${BASE}/:id/stream`,
    operationId: "streamConversation",
    summary:
      "Server-Sent Events: connected, new_comment, comment_edited, comment_deleted, state_update, labels_changed, assignee_changed, issue_deleted, resync",
    ...signed,
    params: IdParam,
    query: StreamQuery,
    responses: {
      200: { description: "Event stream", contentType: "text/event-stream", schema: StreamEventSchema, headers: streamHeaders },
      400: err("Missing productSlug or customerId"),
      404: err("Conversation not found"),
      ...unverified,
      ...rateLimited("Rate limit or concurrent-stream limit exceeded"),
      501: err("This product's backend has no live events"),
    },
    async handler(ctx) {
      const { params, query, headers, signal } = ctx;
      await admitted(cx, query, ctx);
      const lastEventId = parseLastEventId(headers["last-event-id"], query.lastEventId);
      const { productSlug, customerId } = query;
      return eventStream(cx, await cx.api.openStream({ productSlug, customerId, conversationId: params.id, lastEventId, signal }));
    },
  });

export function publicRoutes(cx: SupportContext): Route[] {
  return [createRoute, listRoute, findRoute, getRoute, postRoute, closeRoute, rateRoute, ratingRoute, streamRoute].map((make) => make(cx));
}
