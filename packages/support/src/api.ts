// The service's operations as typed in-process calls: interface A's customer calls and the agent side, streams
// included. The routes call them after their guard (rate limits, bearer token); hosts and tests call them without
// HTTP, under the same input rules (each write checks its route's body schema).
import type { Channel, SseEvent } from "@mountkit/core";
import type { CustomerScope } from "./domain/backend.js";
import { checked } from "./domain/checked.js";
import type { Conversations } from "./domain/conversations.js";
import type { ConversationPage } from "./domain/cursor.js";
import { withMetadata } from "./domain/metadata.js";
import type { ProductRegistry } from "./domain/products.js";
import { type CloseAction, closeMessage } from "./domain/status.js";
import { subjectOr } from "./domain/subject.js";
import { issueDetail, type Summary } from "./domain/views.js";
import { supportError } from "./errors.js";
import { CannedCreateBody, CannedPatchBody, NoteCreateBody, NoteEditBody } from "./routes/desk-schemas.js";
import { AgentEditBody, AgentReplyInput, CreateBody, PostBody, RateBody } from "./routes/schemas.js";
import type { Rating } from "./store/types.js";
import { conversationEvents, customerEvents, type LastEventId, productNotices, type StreamDeps } from "./stream/open.js";

export interface SupportApiDeps {
  products: ProductRegistry;
  conversations: Conversations;
  streams: StreamDeps;
}

/** Where a stream resumes and what ends it (an abort, else closing the channel). */
export interface StreamInput {
  lastEventId?: LastEventId;
  signal?: AbortSignal;
}

/** The agent side: the store's operations, plus its streams (no HTTP auth in-process). */
export interface AgentApi extends Omit<Conversations, "backend"> {
  /** One conversation's events, as the customer's stream has them (without the per-customer cap); 404 when missing. */
  openStream(conversationId: string, input?: StreamInput): Promise<Channel<SseEvent>>;
  /** A product's change notices: `connected`, then `conversation_changed` `{ conversationId, seq }` per change. */
  openProductStream(productSlug: string, input?: Pick<StreamInput, "signal">): Promise<Channel<SseEvent>>;
}

export interface SupportApi {
  createConversation(
    input: CustomerScope & { message: string; subject?: string; clientMessageId?: string; attachments?: string[] },
  ): Promise<{ conversationId: string; createdAt: string }>;
  /** Most recent activity first; one page when `limit` (and `after`) are given, else all. An unknown product has none. */
  listConversations(input: CustomerScope & Pick<ConversationPage, "after" | "limit">): Promise<{ conversations: Summary[] }>;
  /** The customer's first open conversation, else the most recent one. */
  findConversation(input: CustomerScope): Promise<{ found: true; conversationId: string } | { found: false }>;
  getConversation(input: CustomerScope & { conversationId: string }): Promise<ReturnType<typeof issueDetail>>;
  postMessage(
    input: CustomerScope & { conversationId: string; message: string; clientMessageId?: string; attachments?: string[] },
  ): Promise<{ id: string; createdAt: string }>;
  closeConversation(input: CustomerScope & { conversationId: string; action: CloseAction }): Promise<{ success: true; message: string }>;
  /** Rates a resolved or closed conversation 1 to 5, with an optional comment; rating again replaces it. */
  rateConversation(input: CustomerScope & { conversationId: string; score: number; comment?: string | null }): Promise<{ rating: Rating }>;
  /** The customer's rating of the conversation, null until rated; 501 when the product's backend keeps none. */
  getRating(input: CustomerScope & { conversationId: string }): Promise<{ rating: Rating | null }>;
  /**
   * The conversation's events as SSE frames: `connected`, then replay after `lastEventId` (or `resync` when that id
   * was never issued here) and live ones. At most the product's `maxStreamsPerCustomer` open per customer in this
   * process (429 past it); 501 when the product's backend has no live events.
   */
  openStream(input: CustomerScope & { conversationId: string } & StreamInput): Promise<Channel<SseEvent>>;
  agent: AgentApi;
}

/** The hidden block every customer message is stored with. */
const customerBody = (message: string, customerId: string, clientMessageId: string | undefined): string =>
  withMetadata(message, clientMessageId ? { customerId, clientMessageId } : { customerId });

/** Interface A's calls, each on the backend of the product it names. */
function customerApi({ products, streams }: SupportApiDeps): Omit<SupportApi, "agent"> {
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
    async getRating(input) {
      const p = products.require(input.productSlug);
      if (!p.backend.rateConversation) throw supportError("not_supported", { message: "this product's backend keeps no ratings" });
      const v = await p.backend.getConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
      });
      if (!v) throw supportError("conversation_not_found");
      return { rating: v.rating ?? null };
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
    async openStream(input) {
      const p = products.require(input.productSlug);
      const scope = { productSlug: p.slug, customerId: input.customerId, conversationId: input.conversationId };
      if (!p.backend.openStream) {
        if (!(await p.backend.getConversation(scope))) throw supportError("conversation_not_found");
        throw supportError("not_supported", { message: "live events are not available for this product's backend" });
      }
      const local = await p.backend.openStream(scope);
      if (!local) throw supportError("conversation_not_found");
      const { lastEventId, signal } = input;
      return customerEvents(streams, { product: p, local, customerId: input.customerId, lastEventId, signal });
    },
  };
}

/** Private notes and canned replies, under their routes' input rules (a canned reply's shortcut in lower case). */
function deskApi({ conversations: c, products }: SupportApiDeps): Pick<AgentApi, "notes" | "cannedReplies" | "ratings"> {
  const slug = (productSlug: string) => products.require(productSlug).slug;
  return {
    notes: {
      list: c.notes.list,
      add: async (id, input) => c.notes.add(id, checked(NoteCreateBody, input)),
      edit: async (id, noteId, body) => c.notes.edit(id, noteId, checked(NoteEditBody, { body }).body),
      remove: c.notes.remove,
    },
    cannedReplies: {
      list: async (productSlug) => c.cannedReplies.list(slug(productSlug)),
      get: async (productSlug, id) => c.cannedReplies.get(slug(productSlug), id),
      create: async (productSlug, input) => c.cannedReplies.create(slug(productSlug), checked(CannedCreateBody, input)),
      update: async (productSlug, id, patch) => c.cannedReplies.update(slug(productSlug), id, checked(CannedPatchBody, patch)),
      remove: async (productSlug, id) => c.cannedReplies.remove(slug(productSlug), id),
    },
    async ratings(q) {
      const p = products.require(q.productSlug);
      // an external backend (GitHub, Slack, a remote SPI) keeps no ratings, as POST .../rating answers
      if (!p.builtin) throw supportError("not_supported", { message: "this product's backend keeps no ratings" });
      return c.ratings({ ...q, productSlug: p.slug });
    },
  };
}

export function createSupportApi(deps: SupportApiDeps): SupportApi {
  const { conversations: c, streams } = deps;
  return {
    ...customerApi(deps),
    agent: {
      get: c.get,
      agentList: c.agentList,
      agentDetail: c.agentDetail,
      async reply(id, input) {
        checked(AgentReplyInput, input);
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
      ...deskApi(deps),
      async openStream(id, input = {}) {
        const conversation = await c.get(id);
        if (!conversation) throw supportError("conversation_not_found");
        return conversationEvents(streams, { conversation, lastEventId: input.lastEventId, signal: input.signal });
      },
      async openProductStream(productSlug, input = {}) {
        return productNotices(streams, productSlug, input.signal);
      },
    },
  };
}
