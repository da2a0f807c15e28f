// The agent side under /agent (bearer SUPPORT_AGENT_TOKEN): work a product's conversations across
// customers. Every change emits its event to the customer's open streams.
import { empty, json, type Route, route } from "@mountkit/core";
import * as z from "zod";
import { decodeConversationCursor, encodeConversationCursor } from "../domain/cursor.js";
import { isStatus, type Status } from "../domain/status.js";
import { supportError } from "../errors.js";
import { bearer } from "../http/auth.js";
import type { SupportContext } from "../http/context.js";
import {
  AgentDetailSchema,
  AgentSummarySchema,
  CommentSchema,
  IdParam,
  MessageBody,
  MessageIdParams,
  ProductSlug,
  StatusSchema,
  SummarySchema,
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
  cursor: z.string().max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

function parseStatuses(raw: string | undefined): Status[] | undefined {
  if (raw === undefined || raw === "") return undefined;
  const list = raw.split(",").map((s) => s.trim());
  const bad = list.find((s) => !isStatus(s));
  if (bad !== undefined) throw supportError("invalid_request", { message: `invalid status ${JSON.stringify(bad)}` });
  return list as Status[];
}

export function agentRoutes(cx: SupportContext): Route[] {
  const use = [bearer(cx.agentToken, "support-agent")];
  const elsewhere = () =>
    supportError("not_supported", { message: "this product's conversations are worked on in its backend (GitHub, Slack, a remote SPI)" });
  /** Mirrored conversations change only through their backend: a write here would be overwritten. */
  const onThisSide = async (id: string) => {
    const c = await cx.conversations.get(id);
    if (c && !cx.products.get(c.productSlug)?.builtin) throw elsewhere();
  };
  const common = { tags, security, use };
  const err = (description: string) => ({ description });
  /** What every agent call can answer; a body route also `withBody`. */
  const auth = {
    400: err("Invalid path, query or body"),
    401: err("Bad or missing bearer token"),
    404: err("Conversation not found"),
    501: err("The product's conversations are worked on in its backend"),
  };
  const withBody = { ...auth, 413: err("Request body over 64 KiB"), 415: err("Request body is not JSON") };
  return [
    route({
      ...common,
      method: "GET",
      path: BASE,
      operationId: "agentListConversations",
      summary: "A product's conversations across customers, most recent activity first",
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
        const rows = await cx.conversations.agentList({
          productSlug: product.slug,
          statuses: parseStatuses(query.status),
          assignee: query.assignee,
          label: query.label,
          after,
          limit: query.limit + 1,
        });
        const items = rows.slice(0, query.limit);
        const last = items[items.length - 1];
        return json(200, { items, next: rows.length > query.limit && last ? encodeConversationCursor(last) : null });
      },
    }),
    route({
      ...common,
      method: "GET",
      path: `${BASE}/:id`,
      operationId: "agentGetConversation",
      params: IdParam,
      responses: { 200: { description: "OK", schema: AgentDetailSchema }, ...auth },
      async handler({ params }) {
        await onThisSide(params.id);
        const d = await cx.conversations.agentDetail(params.id);
        if (!d) throw supportError("conversation_not_found");
        const { firstMessageId: _, ...rest } = d;
        return json(200, rest);
      },
    }),
    route({
      ...common,
      method: "POST",
      path: `${BASE}/:id/messages`,
      operationId: "agentReply",
      summary: "Reply as an agent (status becomes waiting-for-customer)",
      params: IdParam,
      body: z.object({ body: MessageBody, author: z.string().min(1).max(200) }),
      responses: { 200: { description: "Posted", schema: z.object({ id: z.string(), createdAt: Timestamp }) }, ...withBody },
      async handler({ params, body }) {
        await onThisSide(params.id);
        const c = await cx.conversations.reply(params.id, body);
        return json(200, { id: c.id, createdAt: c.createdAt });
      },
    }),
    route({
      ...common,
      method: "PATCH",
      path: `${BASE}/:id/messages/:messageId`,
      operationId: "agentEditMessage",
      params: MessageIdParams,
      body: z.object({ body: MessageBody }),
      responses: {
        200: { description: "Edited", schema: CommentSchema.extend({ updatedAt: Timestamp }) },
        ...withBody,
        404: err("Conversation or message not found"),
      },
      async handler({ params, body }) {
        await onThisSide(params.id);
        return json(200, await cx.conversations.editMessage(params.id, params.messageId, body.body));
      },
    }),
    route({
      ...common,
      method: "DELETE",
      path: `${BASE}/:id/messages/:messageId`,
      operationId: "agentDeleteMessage",
      params: MessageIdParams,
      responses: { 204: { description: "Deleted" }, ...auth, 404: err("Conversation or message not found") },
      async handler({ params }) {
        await onThisSide(params.id);
        await cx.conversations.deleteMessage(params.id, params.messageId);
        return empty(204);
      },
    }),
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
        return json(200, { labels: await cx.conversations.setLabels(params.id, body.labels) });
      },
    }),
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
        return json(200, { assignee: await cx.conversations.setAssignee(params.id, body.assignee) });
      },
    }),
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
        return json(200, await cx.conversations.setStatus(params.id, body.status));
      },
    }),
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
        await cx.conversations.remove(params.id);
        return empty(204);
      },
    }),
  ];
}
