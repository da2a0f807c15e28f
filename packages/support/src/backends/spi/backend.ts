// A product backend that speaks interface B (the Support SPI) to a remote support system.
// Customer messages keep their hidden metadata block, which is how the remote side can deduplicate.
// Interface B has no event stream: while customers watch a conversation, one poller per conversation per
// process diffs the remote detail against a mirror in the local store, whose event log the streams follow.

import type { CustomerBackend } from "../../domain/backend.js";
import { pageOf } from "../../domain/cursor.js";
import { parseMetadata } from "../../domain/metadata.js";
import { createMirror } from "../../domain/mirror.js";
import { supportError } from "../../errors.js";
import { type SpiBackendOptions, spiRemote, toSummary } from "./remote.js";
import { openMirrored, poke, type SpiState, stop } from "./watch.js";

export type { SpiBackendOptions };

export function spiBackend(options: SpiBackendOptions): CustomerBackend {
  const pollEvery = options.pollIntervalMs ?? 5000;
  const s: SpiState = {
    remote: spiRemote(options),
    pollEvery,
    maxPollEvery: Math.max(pollEvery, options.maxPollIntervalMs ?? 60_000),
    pollers: new Map(),
  };
  const { call, detail } = s.remote;

  return {
    kind: "spi",

    attach(cx) {
      if (s.at) throw new Error("an spi backend serves one product of one service");
      const prefix = `spi_${cx.productSlug}~`;
      s.at = {
        cx,
        prefix,
        mirror: createMirror({
          store: cx.store,
          bus: cx.bus,
          clock: cx.clock,
          logger: cx.logger,
          events: cx.events,
          publicConversationId: (id) => id.slice(prefix.length),
          publicMessageId: (id, conversationId) => id.slice(conversationId.length + 1),
        }),
      };
    },

    openStream: (input) => openMirrored(s, input),

    async dispose() {
      for (const p of [...s.pollers.values()]) stop(s, p);
    },

    async createConversation({ customerId, subject, body }) {
      const r = await call("POST", "", { body: { customerId, subject, body } });
      const v = r.body as { conversationId: string; createdAt: string };
      return { conversationId: String(v.conversationId), createdAt: String(v.createdAt) };
    },
    async listConversations({ customerId, ...page }) {
      // interface B has no pages: take the remote's whole list and cut the page here
      const r = await call("GET", "", { query: { customerId } });
      const list = (r.body as { conversations?: unknown[] }).conversations ?? [];
      return pageOf(list.map(toSummary), page);
    },
    getConversation: ({ customerId, conversationId }) => detail(customerId, conversationId),
    async postMessage({ customerId, conversationId, body, clientMessageId }) {
      if (clientMessageId !== null) {
        // a retry of a message the remote already has (its own dedup may not exist): answer the original
        const v = await detail(customerId, conversationId);
        if (!v) throw supportError("conversation_not_found");
        const dup = v.messages.find((m) => {
          const meta = parseMetadata(m.body);
          return meta?.clientMessageId === clientMessageId && meta.customerId === customerId;
        });
        if (dup) return { id: dup.id, createdAt: dup.createdAt, deduplicated: true };
      }
      const r = await call("POST", `/${encodeURIComponent(conversationId)}/messages`, { body: { customerId, conversationId, body } });
      poke(s, conversationId);
      const v = r.body as { messageId: string; createdAt: string };
      return { id: String(v.messageId), createdAt: String(v.createdAt), deduplicated: false };
    },
    async closeConversation({ customerId, conversationId, action }) {
      // interface B answers a close with 204 only: the state it was already in comes from the detail
      const before = await detail(customerId, conversationId);
      if (!before) throw supportError("conversation_not_found");
      if (!before.isOpen) return { status: before.status };
      await call("POST", `/${encodeURIComponent(conversationId)}/close`, { body: { customerId, conversationId, action } });
      poke(s, conversationId);
      return { status: action === "resolve" ? "resolved" : "closed" };
    },
  };
}
