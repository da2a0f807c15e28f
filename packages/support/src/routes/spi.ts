// Interface B: the Support SPI under /care, bearer-protected, over the same store as interface A.
// The product is the one the bearer token speaks for: the service's `spiToken` serves `spiProduct`, a product's own
// `spiToken` that product.
import { empty, json, type Middleware, type Route, route } from "@mountkit/core";
import * as z from "zod";
import { decodeConversationCursor, encodeConversationCursor } from "../domain/cursor.js";
import { parseMetadata } from "../domain/metadata.js";
import type { Product } from "../domain/products.js";
import { subjectOr } from "../domain/subject.js";
import { spiDetail } from "../domain/views.js";
import { supportError } from "../errors.js";
import { SPI_PRODUCT, spiBearer } from "../http/auth.js";
import { admit, type SupportContext } from "../http/context.js";
import { LIST_LIMIT } from "./public.js";
import {
  bodyErrors,
  CloseActionSchema,
  CustomerId,
  IdParam,
  MessageBody,
  nextLinkHeader,
  nextPageLink,
  OptionalPageLimit,
  PageCursor,
  rateLimited,
  SpiDetailSchema,
  Subject,
  SummarySchema,
  Timestamp,
} from "./schemas.js";

const BASE = "/care/conversations";
const tags = ["support-spi"];
const security = ["spiBearer"];
const err = (description: string) => ({ description });
/** What every SPI call can answer: bad token, no product served here, rate limit. */
const common4xx = {
  401: err("Bad or missing bearer token"),
  404: err("No product is served on this SPI"),
  ...rateLimited("Rate limit exceeded"),
};
/** Interface B answers the whole list, as it always has, unless the caller asks for pages. */
const SPI_LIST_LIMIT = { max: 200 };
const ListQuery = z.object({ customerId: CustomerId });
const PagedListQuery = ListQuery.extend({ limit: OptionalPageLimit(SPI_LIST_LIMIT), cursor: PageCursor });
/** Interface B's message body may be null (docs/support.md#messages); it is stored, and shown, as an empty message. */
const SpiMessageBody = MessageBody.nullable().describe("1..20000 characters, or `null`: stored and shown as an empty message");
const CreateBody = z.object({ customerId: CustomerId, subject: Subject, body: SpiMessageBody });
const PostBody = z.object({ customerId: CustomerId, conversationId: z.string().min(1).max(200), body: SpiMessageBody });
const CloseBody = z.object({ customerId: CustomerId, conversationId: z.string().min(1).max(200), action: CloseActionSchema });

/**
 * The dedup key of an SPI message: a caller speaking for a customer (the kit's SPI client) writes the
 * hidden block itself; its clientMessageId counts only when the block names the same customer.
 */
function clientMessageIdOf(body: string, customerId: string): string | null {
  const meta = parseMetadata(body);
  return meta?.clientMessageId && meta.customerId === customerId ? meta.clientMessageId : null;
}

/** What the SPI routes share: the bearer guard and route fields, and the product the caller's token speaks for (admitted). */
interface SpiCx {
  common: { tags: string[]; security: string[]; use: Middleware[] };
  product(state: Record<string, unknown>): Promise<Product>;
  /** The mount prefix, for the next page's URL. */
  basePath: string;
}

/** The product the SPI guard found for the caller's token (`product_not_found` when the service serves none). */
export function spiProductOf(cx: SupportContext, state: Record<string, unknown>): Product {
  const slug = state[SPI_PRODUCT];
  const p = typeof slug === "string" ? cx.products.get(slug) : undefined;
  if (!p) throw supportError("product_not_found", { message: "no product is served on this SPI" });
  return p;
}

function spiCx(cx: SupportContext): SpiCx {
  return {
    basePath: cx.basePath,
    common: { tags, security, use: [spiBearer(cx.spiTokens, "support-spi")] },
    async product(state) {
      const p = spiProductOf(cx, state);
      await admit(cx, p);
      return p;
    },
  };
}

/** Method, path and id parameter of a write on the conversation in the path: `POST /:id/<action>`. */
const onConversation = (action: string) => ({ method: "POST" as const, path: `${BASE}/:id/${action}`, params: IdParam });

/** B names the conversation in the body too; it must be the one in the path. */
function samePath(body: { conversationId: string }, id: string) {
  if (body.conversationId !== id) throw supportError("invalid_request", { message: "conversationId in the body differs from the path" });
}

const listRoute = ({ common, product, basePath }: SpiCx) =>
  route({
    ...common,
    method: "GET",
    path: BASE,
    operationId: "spiListConversations",
    summary: "The customer's conversations, most recent activity first: all of them, or a page at a time",
    description:
      'Without `limit` or `cursor`, every conversation, as interface B always has. With `limit` (1 to 200), pages of that many; with a `cursor` alone, pages of 50. When more follow, the `Link` header carries the next page\'s URL (`<URL>; rel="next"`); the body keeps its `{ conversations }` shape.',
    query: PagedListQuery,
    responses: {
      200: { description: "OK", schema: z.object({ conversations: z.array(SummarySchema) }), headers: nextLinkHeader },
      400: err("Missing or invalid customerId, a limit outside 1..200 or a cursor this API did not write"),
      ...common4xx,
    },
    async handler({ query, state }) {
      const after = query.cursor ? decodeConversationCursor(query.cursor) : undefined;
      const p = await product(state);
      const scope = { productSlug: p.slug, customerId: query.customerId };
      if (query.limit === undefined && !after) return json(200, { conversations: await p.backend.listConversations(scope) });
      const limit = query.limit ?? LIST_LIMIT.default;
      const rows = await p.backend.listConversations({ ...scope, after, limit: limit + 1 });
      const conversations = rows.slice(0, limit);
      const last = conversations[conversations.length - 1];
      if (rows.length <= limit || !last) return json(200, { conversations });
      const same = { customerId: query.customerId, limit: String(limit) };
      return json(200, { conversations }, { link: nextPageLink(`${basePath}${BASE}`, same, encodeConversationCursor(last)) });
    },
  });

const createRoute = ({ common, product }: SpiCx) =>
  route({
    ...common,
    method: "POST",
    path: BASE,
    operationId: "spiCreateConversation",
    summary: "Create a conversation",
    body: CreateBody,
    responses: {
      200: { description: "Created", schema: z.object({ conversationId: z.string(), createdAt: Timestamp }) },
      400: err("Invalid body"),
      ...common4xx,
      ...bodyErrors,
    },
    async handler({ body, state }) {
      const p = await product(state);
      const r = await p.backend.createConversation({
        productSlug: p.slug,
        customerId: body.customerId,
        subject: subjectOr(body.subject, body.body ?? ""),
        body: body.body ?? "",
        clientMessageId: clientMessageIdOf(body.body ?? "", body.customerId),
      });
      return json(200, r);
    },
  });

const getRoute = ({ common, product }: SpiCx) =>
  route({
    ...common,
    method: "GET",
    path: `${BASE}/:id`,
    operationId: "spiGetConversation",
    summary: "Conversation detail with every message",
    params: IdParam,
    query: ListQuery,
    responses: {
      200: { description: "OK", schema: SpiDetailSchema },
      400: err("Missing or invalid customerId, or an id over 200 characters"),
      ...common4xx,
      404: err("Not found or not this customer's"),
    },
    async handler({ params, query, state }) {
      const p = await product(state);
      const v = await p.backend.getConversation({ productSlug: p.slug, customerId: query.customerId, conversationId: params.id });
      if (!v) throw supportError("conversation_not_found");
      return json(200, spiDetail(v));
    },
  });

const postRoute = ({ common, product }: SpiCx) =>
  route({
    ...common,
    ...onConversation("messages"),
    operationId: "spiPostMessage",
    summary: "Post a customer message",
    body: PostBody,
    responses: {
      200: { description: "Posted", schema: z.object({ messageId: z.string(), createdAt: Timestamp }) },
      400: err("Invalid body, or conversationId differs from the path"),
      ...common4xx,
      404: err("Not found or not this customer's"),
      409: err("Conversation is closed"),
      ...bodyErrors,
    },
    async handler({ params, body, state }) {
      samePath(body, params.id);
      const p = await product(state);
      const r = await p.backend.postMessage({
        productSlug: p.slug,
        customerId: body.customerId,
        conversationId: params.id,
        body: body.body ?? "",
        clientMessageId: clientMessageIdOf(body.body ?? "", body.customerId),
      });
      return json(200, { messageId: r.id, createdAt: r.createdAt });
    },
  });

const closeRoute = ({ common, product }: SpiCx) =>
  route({
    ...common,
    ...onConversation("close"),
    operationId: "spiCloseConversation",
    summary: "Resolve or close a conversation",
    body: CloseBody,
    responses: {
      204: { description: "Done; an already resolved or closed conversation is left as it is" },
      400: err("Invalid body, or conversationId differs from the path"),
      ...common4xx,
      404: err("Not found or not this customer's"),
      ...bodyErrors,
    },
    async handler({ params, body, state }) {
      samePath(body, params.id);
      const p = await product(state);
      await p.backend.closeConversation({
        productSlug: p.slug,
        customerId: body.customerId,
        conversationId: params.id,
        action: body.action,
      });
      return empty(204);
    },
  });

export function spiRoutes(cx: SupportContext): Route[] {
  const b = spiCx(cx);
  return [listRoute, createRoute, getRoute, postRoute, closeRoute].map((make) => make(b));
}
