// The service's operations as typed in-process calls: interface A's customer calls and the agent side. The
// routes call them after their guard (rate limits, bearer token); hosts and tests call them without HTTP, under
// the same input rules (each write checks its route's body schema).
import { issuesToDetails } from "@mountkit/core";
import type * as z from "zod";
import type { CustomerScope } from "./domain/backend.js";
import type { Conversations } from "./domain/conversations.js";
import type { ConversationPage } from "./domain/cursor.js";
import { withMetadata } from "./domain/metadata.js";
import type { ProductRegistry } from "./domain/products.js";
import { type CloseAction, closeMessage } from "./domain/status.js";
import { subjectOr } from "./domain/subject.js";
import { issueDetail, type Summary } from "./domain/views.js";
import { supportError } from "./errors.js";
import { AgentEditBody, AgentReplyBody, CreateBody, PostBody, RateBody } from "./routes/schemas.js";
import type { Rating } from "./store/types.js";

export interface SupportApiDeps {
  products: ProductRegistry;
  conversations: Conversations;
}

export interface SupportApi {
  createConversation(
    input: CustomerScope & { message: string; subject?: string; clientMessageId?: string },
  ): Promise<{ conversationId: string; createdAt: string }>;
  /** Most recent activity first; one page when `limit` (and `after`) are given, else all. An unknown product has none. */
  listConversations(input: CustomerScope & Pick<ConversationPage, "after" | "limit">): Promise<{ conversations: Summary[] }>;
  /** The customer's first open conversation, else the most recent one. */
  findConversation(input: CustomerScope): Promise<{ found: true; conversationId: string } | { found: false }>;
  getConversation(input: CustomerScope & { conversationId: string }): Promise<ReturnType<typeof issueDetail>>;
  postMessage(
    input: CustomerScope & { conversationId: string; message: string; clientMessageId?: string },
  ): Promise<{ id: string; createdAt: string }>;
  closeConversation(input: CustomerScope & { conversationId: string; action: CloseAction }): Promise<{ success: true; message: string }>;
  /** Rates a resolved or closed conversation 1 to 5, with an optional comment; rating again replaces it. */
  rateConversation(input: CustomerScope & { conversationId: string; score: number; comment?: string | null }): Promise<{ rating: Rating }>;
  /** Agent operations (no HTTP auth in-process). */
  agent: Omit<Conversations, "backend">;
}

/**
 * The input checked by the schema its route validates, so a call in-process meets the rules HTTP does (a
 * message of 1 to 20,000 characters...): the same 400 `invalid_request` with the same message and details.
 */
function checked(schema: z.ZodType, input: unknown): void {
  const r = schema.safeParse(input);
  if (r.success) return;
  const details = issuesToDetails(r.error.issues);
  const first = details[0];
  throw supportError("invalid_request", {
    message: first ? `invalid body: ${first.path ? `${first.path}: ` : ""}${first.message}` : "invalid body",
    details,
  });
}

/** The hidden block every customer message is stored with. */
const customerBody = (message: string, customerId: string, clientMessageId: string | undefined): string =>
  withMetadata(message, clientMessageId ? { customerId, clientMessageId } : { customerId });

/** Interface A's calls, each on the backend of the product it names. */
function customerApi({ products }: SupportApiDeps): Omit<SupportApi, "agent"> {
  return {
    async createConversation(input) {
      checked(CreateBody, input);
      const p = products.require(input.productSlug);
      const r = await p.backend.createConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        subject: subjectOr(input.subject, input.message),
        body: customerBody(input.message, input.customerId, input.clientMessageId),
        clientMessageId: input.clientMessageId ?? null,
      });
      return { conversationId: r.conversationId, createdAt: r.createdAt };
    },
    async listConversations(input) {
      const p = products.get(input.productSlug);
      if (!p) return { conversations: [] };
      const page = { after: input.after, limit: input.limit };
      return { conversations: await p.backend.listConversations({ productSlug: p.slug, customerId: input.customerId, ...page }) };
    },
    async findConversation(input) {
      const p = products.require(input.productSlug);
      const scope = { productSlug: p.slug, customerId: input.customerId };
      const [open] = await p.backend.listConversations({ ...scope, openOnly: true, limit: 1 });
      const hit = open ?? (await p.backend.listConversations({ ...scope, limit: 1 }))[0];
      return hit ? { found: true, conversationId: hit.id } : { found: false };
    },
    async getConversation(input) {
      const p = products.require(input.productSlug);
      const v = await p.backend.getConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
      });
      if (!v) throw supportError("conversation_not_found");
      return issueDetail(v);
    },
    async postMessage(input) {
      checked(PostBody, input);
      const p = products.require(input.productSlug);
      const r = await p.backend.postMessage({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
        body: customerBody(input.message, input.customerId, input.clientMessageId),
        clientMessageId: input.clientMessageId ?? null,
      });
      return { id: r.id, createdAt: r.createdAt };
    },
    async closeConversation(input) {
      const p = products.require(input.productSlug);
      const { status } = await p.backend.closeConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
        action: input.action,
      });
      return { success: true, message: closeMessage(status) };
    },
    async rateConversation(input) {
      checked(RateBody, { productSlug: input.productSlug, customerId: input.customerId, score: input.score, comment: input.comment });
      const p = products.require(input.productSlug);
      if (!p.backend.rateConversation) throw supportError("not_supported", { message: "this product's backend keeps no ratings" });
      const rating = await p.backend.rateConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
        score: input.score,
        comment: input.comment ?? null,
      });
      return { rating };
    },
  };
}

export function createSupportApi(deps: SupportApiDeps): SupportApi {
  const { conversations: c } = deps;
  return {
    ...customerApi(deps),
    agent: {
      get: c.get,
      agentList: c.agentList,
      agentDetail: c.agentDetail,
      async reply(id, input) {
        checked(AgentReplyBody, input);
        return c.reply(id, input);
      },
      async editMessage(id, messageId, body) {
        checked(AgentEditBody, { body });
        return c.editMessage(id, messageId, body);
      },
      deleteMessage: c.deleteMessage,
      setLabels: c.setLabels,
      setAssignee: c.setAssignee,
      setStatus: c.setStatus,
      remove: c.remove,
    },
  };
}
