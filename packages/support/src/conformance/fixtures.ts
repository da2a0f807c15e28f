// What the SupportStore conformance cases share: fixed times, unique ids, a conversation's create input, a
// message and an event, and the shape of one registered case.
import type { ConversationRecord, EventInput, MessageRecord, SupportStore } from "../store/types.js";

/** Registers one test that runs on a fresh store (made by the suite's factory, closed after it). */
export type StoreTest = (title: string, fn: (store: SupportStore) => Promise<void>) => void;

export const T0 = Date.parse("2030-01-01T00:00:00.000Z");
export const at = (s: number) => new Date(T0 + s * 1000).toISOString();

let counter = 0;
export const uid = (p: string) => `${p}_${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export function conversationInput(o: Partial<ConversationRecord> & { id?: string } = {}) {
  const id = o.id ?? uid("conv");
  const messageId = uid("cmt");
  const createdAt = o.createdAt ?? at(0);
  return {
    conversation: {
      id,
      productSlug: o.productSlug ?? "p1",
      customerId: o.customerId ?? "cust_a",
      subject: o.subject ?? "Hello",
      status: o.status ?? "new",
      labels: o.labels ?? [],
      assignee: o.assignee ?? null,
      firstMessageId: messageId,
      createdAt,
      updatedAt: o.updatedAt ?? createdAt,
    },
    message: {
      id: messageId,
      conversationId: id,
      body: "first",
      author: "Customer",
      isCustomer: true,
      clientMessageId: null,
      createdAt,
      updatedAt: createdAt,
    },
    events: [{ type: "new_comment", data: { id: messageId }, createdAt }] as EventInput[],
  };
}

export const message = (conversationId: string, o: Partial<MessageRecord> = {}): Omit<MessageRecord, "seq"> => ({
  id: o.id ?? uid("cmt"),
  conversationId,
  body: o.body === undefined ? "hi" : o.body,
  author: o.author ?? "Customer",
  isCustomer: o.isCustomer ?? true,
  clientMessageId: o.clientMessageId ?? null,
  createdAt: o.createdAt ?? at(1),
  updatedAt: o.updatedAt ?? o.createdAt ?? at(1),
});

export const event = (type: string, s = 1, data: unknown = { n: s }): EventInput => ({ type, data, createdAt: at(s) });
