// The status machine of a conversation (docs/support.md#status-and-state).
import { STATUSES, type State, type Status } from "../wire.js";

export { STATUSES, type State, type Status };
export type CloseAction = "resolve" | "close";

export const OPEN_STATUSES: readonly Status[] = ["new", "waiting-for-agent", "waiting-for-customer"];
const OPEN: ReadonlySet<Status> = new Set(OPEN_STATUSES);

/** A conversation as its customer opens it: status `new`, no labels, nobody assigned. */
export function openedConversation(o: { id: string; productSlug: string; customerId: string; subject: string; at: string }) {
  const { id, productSlug, customerId, subject, at } = o;
  return {
    id,
    productSlug,
    customerId,
    subject,
    status: "new" as Status,
    labels: [] as string[],
    assignee: null,
    createdAt: at,
    updatedAt: at,
  };
}

export const isStatus = (value: string): value is Status => (STATUSES as readonly string[]).includes(value);
export const isOpen = (status: Status): boolean => OPEN.has(status);
export const stateOf = (status: Status): State => (isOpen(status) ? "open" : "closed");

/** What a transition decided: the next status, or a refusal the caller turns into an HTTP error. */
export type Transition = { ok: true; next: Status } | { ok: false; reason: "closed" };

/** A customer posts: open or resolved -> waiting-for-agent (a resolved one reopens); closed refuses (409). */
export function onCustomerMessage(current: Status): Transition {
  if (current === "closed") return { ok: false, reason: "closed" };
  return { ok: true, next: "waiting-for-agent" };
}

/**
 * An agent replies: an open conversation now waits for the customer. A resolved or closed one keeps its
 * status (an agent's note after closing does not reopen it, as a comment on a closed issue does not).
 */
export function onAgentReply(current: Status): Transition {
  return { ok: true, next: isOpen(current) ? "waiting-for-customer" : current };
}

/** Close with `resolve` or `close`. Already resolved/closed: idempotent, nothing changes. */
export function onClose(current: Status, action: CloseAction): Transition {
  if (!isOpen(current)) return { ok: true, next: current };
  return { ok: true, next: action === "resolve" ? "resolved" : "closed" };
}

/** What a close answers, from the status the conversation ended up in (an already closed one stays closed). */
export const closeMessage = (status: Status): string => (status === "resolved" ? "Conversation marked as resolved" : "Conversation closed");

/** The events a status change implies: `state_update` when open/closed flips, `labels_changed` when the status label changes. */
export function statusChangeEffects(from: Status, to: Status): { stateFlipped: boolean; labelsChanged: boolean } {
  return { stateFlipped: isOpen(from) !== isOpen(to), labelsChanged: from !== to };
}

/** `labels` as the wire shows them: the status label first, then the agent's labels. */
export const wireLabels = (status: Status, agentLabels: readonly string[]): string[] => [
  status,
  ...agentLabels.filter((l) => l !== status),
];
