// The agent side under /agent (bearer SUPPORT_AGENT_TOKEN, or the host's identity through `agentAuth`): work a
// product's conversations across customers. Every change emits its event to the customer's open streams.
import { empty, json, type Middleware, type Route, route } from "@mountkit/core";
import * as z from "zod";
import { decodeConversationCursor, encodeConversationCursor } from "../domain/cursor.js";
import { isStatus, type Status } from "../domain/status.js";
import { supportError } from "../errors.js";
import { type Agent, agentGuard, agentOf } from "../http/agent-auth.js";
import { eventStream, type SupportContext } from "../http/context.js";
import { parseLastEventId } from "../stream/open.js";
import { deskRoutes } from "./agent-desk.js";
import {
  AgentDetailSchema,
  AgentEditBody,
  AgentReplyBody,
  AgentSummarySchema,
  bodyErrors,
  CommentSchema,
  IdParam,
  MessageIdParams,
  ProductSlug,
  StatusSchema,
  StreamEventSchema,
  SummarySchema,
  streamHeaders,
  Timestamp,
} from "./schemas.js";

const BASE = "/agent/conversations";
const tags = ["agent"];
const security = ["agentBearer"];

const Label = z.string().min(1).max(64);
const ListQuery = z.object({
  productSlug: ProductSlug,
  status: z.string().max(200).optional().describe("Comma-separated statuses"),
  assignee: z.string().min(1).max(200).optional(),
  label: Label.optional(),
  q: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe("Search: subject, customer id or any message's text contains it (ASCII letters case-insensitive); empty means no search"),
  cursor: z.string().max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const StreamQuery = z.object({
  lastEventId: z.string().optional().describe("Replay events after this id (same as the Last-Event-ID header)"),
});
const InboxStreamQuery = z.object({ productSlug: ProductSlug });

function parseStatuses(raw: string | undefined): Status[] | undefined {
  if (raw === undefined || raw === "") return undefined;
  const list = raw.split(",").map((s) => s.trim());
  const bad = list.find((s) => !isStatus(s));
  if (bad !== undefined) throw supportError("invalid_request", { message: `invalid status ${JSON.stringify(bad)}` });
  return list as Status[];
}

const err = (description: string) => ({ description });
/** What every agent call can answer; a body route also `withBody`. */
const auth = {
  400: err("Invalid path, query or body"),
  401: err("Bad or missing bearer token"),
  404: err("Conversation not found"),
  501: err("The product's conversations are worked on in its backend"),
};
const withBody = { ...auth, ...bodyErrors };

const elsewhere = () =>
  supportError("not_supported", { message: "this product's conversations are worked on in its backend (GitHub, Slack, a remote SPI)" });

/** What the agent routes share: the context, the bearer guard and the route fields every one repeats. */
interface AgentCx {
  cx: SupportContext;
  common: { tags: string[]; security: string[]; use: Middleware[] };
  /** Mirrored conversations change only through their backend: a write here would be overwritten. */
  onThisSide(id: string): Promise<void>;
}

function agentCx(cx: SupportContext): AgentCx {
  return {
    cx,
    common: { tags, security, use: [agentGuard(cx.agentAuth)] },
    async onThisSide(id) {
      const c = await cx.api.agent.get(id);
      if (c && !cx.products.get(c.productSlug)?.builtin) throw elsewhere();
    },
  };
}

const listRoute = ({ cx, common }: AgentCx) =>
  route({
    ...common,
    method: "GET",
    path: BASE,
    operationId: "agentListConversations",
    summary: "A product's conversations across customers, most recent activity first; filter by status, label, assignee, search text",
    query: ListQuery,
    responses: {
      200: { description: "OK", schema: z.object({ items: z.array(AgentSummarySchema), next: z.string().nullable() }) },
      ...auth,
      400: err("Invalid query: status, cursor or limit"),
      404: err("No product for the slug"),
    },
    async handler({ query }) {
      const product = cx.products.require(query.productSlug);
      if (!product.builtin) throw elsewhere();
      const after = query.cursor ? decodeConversationCursor(query.cursor) : undefined;
      const rows = await cx.api.agent.agentList({
        productSlug: product.slug,
        statuses: parseStatuses(query.status),
        assignee: query.assignee,
        label: query.label,
        ...(query.q ? { q: query.q } : {}),
        after,
        limit: query.limit + 1,
      });
      const items = rows.slice(0, query.limit);
      const last = items[items.length - 1];
      return json(200, { items, next: rows.length > query.limit && last ? encodeConversationCursor(last) : null });
    },
  });

const labelsRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "PUT",
    path: `${BASE}/:id/labels`,
    operationId: "agentSetLabels",
    summary: "Replace the agent labels (the status label is kept)",
    params: IdParam,
    body: z.object({ labels: z.array(Label).max(32) }),
    responses: { 200: { description: "OK", schema: z.object({ labels: z.array(z.string()) }) }, ...withBody },
    async handler({ params, body }) {
      await onThisSide(params.id);
      return json(200, { labels: await cx.api.agent.setLabels(params.id, body.labels) });
    },
  });

const productStreamRoute = ({ cx, common }: AgentCx) =>
  route({
    ...common,
    method: "GET",
    path: `${BASE}/stream`,
    operationId: "agentStreamProduct",
    summary: "Server-Sent Events: a notice per change of any of a product's conversations (an inbox's live list)",
    description:
      "`connected` first, then `conversation_changed` with `{ conversationId, seq }` for every new conversation, message, edit, status, label or assignee change, and `notes_changed` with `{ conversationId }` when a conversation's private notes change (agents only: a conversation's own streams never carry it). Notices carry no id and are not replayed: a client that (re)connects reads the list again.",
    query: InboxStreamQuery,
    responses: {
      200: { description: "Event stream", contentType: "text/event-stream", schema: StreamEventSchema, headers: streamHeaders },
      ...auth,
      400: err("Missing or invalid productSlug"),
      404: err("No product for the slug"),
    },
    async handler({ query, signal }) {
      const product = cx.products.require(query.productSlug);
      if (!product.builtin) throw elsewhere();
      return eventStream(cx, await cx.api.agent.openProductStream(product.slug, { signal }));
    },
  });

const assigneeRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "PUT",
    path: `${BASE}/:id/assignee`,
    operationId: "agentSetAssignee",
    params: IdParam,
    body: z.object({ assignee: z.string().min(1).max(200).nullable() }),
    responses: { 200: { description: "OK", schema: z.object({ assignee: z.string().nullable() }) }, ...withBody },
    async handler({ params, body }) {
      await onThisSide(params.id);
      return json(200, { assignee: await cx.api.agent.setAssignee(params.id, body.assignee) });
    },
  });

const conversationStreamRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "GET",
    path: `${BASE}/:id/stream`,
    operationId: "agentStreamConversation",
    summary: "Server-Sent Events of one conversation, as interface A's stream (replay after Last-Event-ID)",
    description:
      "The same frames as `GET /api/conversations/{id}/stream`: `connected`, then the events after `Last-Event-ID` (header, or the `lastEventId` query) and live ones; `resync` when the id was never issued or the events are gone.",
    params: IdParam,
    query: StreamQuery,
    responses: {
      200: { description: "Event stream", contentType: "text/event-stream", schema: StreamEventSchema, headers: streamHeaders },
      ...auth,
    },
    async handler({ params, query, headers, signal }) {
      await onThisSide(params.id);
      const lastEventId = parseLastEventId(headers["last-event-id"], query.lastEventId);
      return eventStream(cx, await cx.api.agent.openStream(params.id, { lastEventId, signal }));
    },
  });

const statusRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "PUT",
    path: `${BASE}/:id/status`,
    operationId: "agentSetStatus",
    params: IdParam,
    body: z.object({ status: StatusSchema }),
    responses: { 200: { description: "OK", schema: SummarySchema }, ...withBody },
    async handler({ params, body }) {
      await onThisSide(params.id);
      return json(200, await cx.api.agent.setStatus(params.id, body.status));
    },
  });

const getRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "GET",
    path: `${BASE}/:id`,
    operationId: "agentGetConversation",
    params: IdParam,
    responses: { 200: { description: "OK", schema: AgentDetailSchema }, ...auth },
    async handler({ params }) {
      await onThisSide(params.id);
      const d = await cx.api.agent.agentDetail(params.id);
      if (!d) throw supportError("conversation_not_found");
      const { firstMessageId: _, ...rest } = d;
      return json(200, rest);
    },
  });

const replyRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "POST",
    path: `${BASE}/:id/messages`,
    operationId: "agentReply",
    summary: "Reply as an agent (status becomes waiting-for-customer)",
    params: IdParam,
    body: AgentReplyBody,
    responses: { 200: { description: "Posted", schema: z.object({ id: z.string(), createdAt: Timestamp }) }, ...withBody },
    async handler(ctx) {
      const { params, body } = ctx;
      const by = replyAuthor(agentOf(ctx), body.author);
      await onThisSide(params.id);
      const c = await cx.api.agent.reply(params.id, { ...body, ...by });
      return json(200, { id: c.id, createdAt: c.createdAt });
    },
  });

/** Who a reply names: a verified agent by their identity, a shared-token call by the `author` it sends (400 without). */
function replyAuthor(agent: Agent, author: string | undefined): { author: string; authorId?: string } {
  if (agent.via === "identity") return { author: agent.name, authorId: agent.id };
  if (author === undefined) throw supportError("invalid_request", { message: "author is required with the shared agent token" });
  return { author };
}

const AgentSchema = z.object({
  via: z.enum(["identity", "token"]).describe("`identity`: verified by the host's verifier; `token`: the shared agent token"),
  id: z.string().nullable().describe("The agent's id (the identity's subject); null with the shared token"),
  name: z.string().nullable().describe("The name the agent's replies carry; null with the shared token (each reply names its author)"),
});

const meRoute = ({ common }: AgentCx) =>
  route({
    ...common,
    method: "GET",
    path: "/agent/me",
    operationId: "agentWhoAmI",
    summary: "Who the bearer token speaks for: a verified agent's id and name, or the shared token",
    responses: { 200: { description: "OK", schema: AgentSchema }, 401: auth[401] },
    handler: (ctx) => json(200, agentOf(ctx)),
  });

const editRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "PATCH",
    path: `${BASE}/:id/messages/:messageId`,
    operationId: "agentEditMessage",
    params: MessageIdParams,
    body: AgentEditBody,
    responses: {
      200: { description: "Edited", schema: CommentSchema.extend({ updatedAt: Timestamp }) },
      ...withBody,
      404: err("Conversation or message not found"),
    },
    async handler({ params, body }) {
      await onThisSide(params.id);
      return json(200, await cx.api.agent.editMessage(params.id, params.messageId, body.body));
    },
  });

const deleteMessageRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "DELETE",
    path: `${BASE}/:id/messages/:messageId`,
    operationId: "agentDeleteMessage",
    params: MessageIdParams,
    responses: { 204: { description: "Deleted" }, ...auth, 404: err("Conversation or message not found") },
    async handler({ params }) {
      await onThisSide(params.id);
      await cx.api.agent.deleteMessage(params.id, params.messageId);
      return empty(204);
    },
  });

const deleteRoute = ({ cx, common, onThisSide }: AgentCx) =>
  route({
    ...common,
    method: "DELETE",
    path: `${BASE}/:id`,
    operationId: "agentDeleteConversation",
    summary: "Delete a conversation: its streams get issue_deleted and end",
    params: IdParam,
    responses: { 204: { description: "Deleted" }, ...auth },
    async handler({ params }) {
      await onThisSide(params.id);
      await cx.api.agent.remove(params.id);
      return empty(204);
    },
  });

export function agentRoutes(cx: SupportContext): Route[] {
  const a = agentCx(cx);
  return [
    listRoute,
    productStreamRoute,
    conversationStreamRoute,
    getRoute,
    replyRoute,
    editRoute,
    deleteMessageRoute,
    labelsRoute,
    assigneeRoute,
    statusRoute,
    deleteRoute,
    meRoute,
  ]
    .map((make) => make(a))
    .concat(deskRoutes(a));
}
