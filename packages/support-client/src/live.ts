// A live view of one conversation: detail + stream merged, optimistic sends matched against the echoed
// `new_comment` by clientMessageId, failed sends kept for a retry with the same id.
import type { Attachment, Comment, Issue, Rating, StreamEvent, SupportClient } from "./client.js";
import { newClientMessageId } from "./ids.js";
import { displayBody, readMetadata } from "./metadata.js";

export interface DisplayComment {
  /** Server id once known; the clientMessageId while pending. */
  id: string;
  clientMessageId?: string;
  /** Body with the hidden block removed. */
  text: string;
  author: string;
  createdAt: string;
  isCustomer: boolean;
  status: "pending" | "sent" | "failed";
  /** The files it carries (uploaded already, so shown while it is pending too); absent when none. */
  attachments?: Attachment[];
}

export interface LiveState {
  issue: (Issue & { text: string }) | undefined;
  comments: DisplayComment[];
  /** The customer's rating from the detail: null until rated, undefined before the detail arrives. */
  rating?: Rating | null;
  deleted: boolean;
}

export interface LiveConversation {
  readonly state: LiveState;
  /**
   * Shows the message at once (pending), posts it, and settles it on the response or the echo; `attachments` are
   * uploads from the client's `upload`, kept with the draft so a retry names them again.
   */
  send(message: string, attachments?: Attachment[]): Promise<DisplayComment>;
  /** Re-posts a failed message with its original clientMessageId (and the same attachments). */
  retry(clientMessageId: string): Promise<DisplayComment>;
  /** Refetches the detail (done automatically after reconnects and `resync`). */
  refresh(): Promise<void>;
  close(): void;
}

const fromServer = (c: Comment): DisplayComment => {
  const cid = readMetadata(c.body)?.clientMessageId;
  return {
    id: c.id,
    ...(cid ? { clientMessageId: cid } : {}),
    text: displayBody(c.body),
    author: c.author,
    createdAt: c.createdAt,
    isCustomer: c.isCustomer,
    status: "sent",
    ...(c.attachments?.length ? { attachments: c.attachments } : {}),
  };
};

/** One live view's working parts, shared by the functions below. */
interface Live {
  client: SupportClient;
  conversationId: string;
  state: LiveState;
  /** Messages not yet confirmed by the server, by clientMessageId. */
  drafts: Map<string, { message: string; attachments: Attachment[] }>;
  changed(): void;
}

/** Inserts or settles a server comment; a pending one with the same clientMessageId becomes it. */
function upsert(l: Live, c: DisplayComment) {
  const { state } = l;
  const byId = state.comments.findIndex((x) => x.id === c.id);
  if (byId !== -1) {
    state.comments[byId] = c;
    return;
  }
  const byClient = c.clientMessageId ? state.comments.findIndex((x) => x.clientMessageId === c.clientMessageId) : -1;
  if (byClient !== -1) state.comments[byClient] = c;
  else state.comments.push(c);
  if (c.clientMessageId) l.drafts.delete(c.clientMessageId);
}

/** A resolved or closed conversation's rating (null while open, or where the backend keeps none: a 501). */
async function ratingOf(l: Live, issue: Issue): Promise<Rating | null> {
  if (issue.state !== "closed" && issue.status !== "resolved" && issue.status !== "closed") return null;
  try {
    return (await l.client.rating(l.conversationId)).rating;
  } catch (e) {
    if ((e as { status?: number }).status === 501) return null;
    throw e;
  }
}

async function refresh(l: Live) {
  const { state } = l;
  const d = await l.client.get(l.conversationId);
  const local = state.comments.filter((c) => c.status !== "sent");
  state.issue = { ...d.issue, text: displayBody(d.issue.body) };
  state.comments = d.comments.map(fromServer);
  state.rating = await ratingOf(l, d.issue);
  for (const c of local) if (!state.comments.some((x) => x.clientMessageId === c.clientMessageId)) state.comments.push(c);
  l.changed();
}

/** Applies a stream event to the state; false when it changed nothing. */
function applyEvent(l: Live, e: StreamEvent): boolean {
  const { state } = l;
  switch (e.type) {
    case "new_comment":
    case "comment_edited": {
      if (!e.data?.id) return false;
      // the first message is the issue body (the detail shows it there, not as a comment)
      const isIssueBody =
        state.issue !== undefined && e.data.createdAt === state.issue.createdAt && !state.comments.some((c) => c.id === e.data.id);
      if (isIssueBody) {
        if (e.type === "comment_edited") state.issue = { ...state.issue!, body: e.data.body ?? "", text: displayBody(e.data.body) };
      } else upsert(l, fromServer(e.data));
      return true;
    }
    case "comment_deleted":
      state.comments = state.comments.filter((c) => c.id !== e.data?.id);
      return true;
    case "state_update":
      if (state.issue && e.data?.state) state.issue = { ...state.issue, state: e.data.state };
      return true;
    case "labels_changed":
      if (state.issue && e.data?.labels)
        state.issue = { ...state.issue, labels: e.data.labels, ...(e.data.status ? { status: e.data.status } : {}) };
      return true;
    case "issue_deleted":
      state.deleted = true;
      return true;
    default:
      return false;
  }
}

/** Posts a draft; settles its comment on the answer, or marks it failed. */
async function post(l: Live, cid: string): Promise<DisplayComment> {
  const { state } = l;
  const { message, attachments } = l.drafts.get(cid) ?? { message: "", attachments: [] };
  try {
    const ids = attachments.map((a) => a.id);
    const r = await l.client.send(l.conversationId, message, cid, ids.length ? { attachments: ids } : {});
    const settled: DisplayComment = state.comments.find((c) => c.id === r.id || c.clientMessageId === cid) ?? {
      id: r.id,
      clientMessageId: cid,
      text: message,
      author: "Customer",
      createdAt: r.createdAt,
      isCustomer: true,
      status: "sent",
      ...(attachments.length ? { attachments } : {}),
    };
    if (settled.status !== "sent") Object.assign(settled, { id: r.id, createdAt: r.createdAt, status: "sent" as const });
    if (!state.comments.includes(settled)) state.comments.push(settled);
    l.drafts.delete(cid);
    l.changed();
    return settled;
  } catch (e) {
    const mine = state.comments.find((c) => c.clientMessageId === cid);
    if (mine && mine.status === "pending") mine.status = "failed";
    l.changed();
    throw e;
  }
}

export function liveConversation(
  client: SupportClient,
  conversationId: string,
  options: { onChange?(state: LiveState): void; onEvent?(e: StreamEvent): void } = {},
): LiveConversation {
  const state: LiveState = { issue: undefined, comments: [], deleted: false };
  const l: Live = { client, conversationId, state, drafts: new Map(), changed: () => options.onChange?.(state) };
  const ready = refresh(l).catch(() => {});

  const sub = client.subscribe(conversationId, {
    onEvent(e) {
      options.onEvent?.(e);
      if (applyEvent(l, e)) l.changed();
    },
    onCatchUp: () => refresh(l).catch(() => {}),
    onEnd: (reason) => {
      // a refused signature is not a deleted conversation: the thread stays as read
      if (reason === "deleted" || reason === "not_found") {
        state.deleted = true;
        l.changed();
      }
    },
  });

  return {
    state,
    async send(message, attachments = []) {
      await ready;
      const cid = newClientMessageId();
      l.drafts.set(cid, { message, attachments });
      state.comments.push({
        id: cid,
        clientMessageId: cid,
        text: message,
        author: "Customer",
        createdAt: new Date().toISOString(),
        isCustomer: true,
        status: "pending",
        ...(attachments.length ? { attachments } : {}),
      });
      l.changed();
      return post(l, cid);
    },
    async retry(cid) {
      const mine = state.comments.find((c) => c.clientMessageId === cid);
      if (!mine || mine.status !== "failed") throw new Error(`no failed message ${cid}`);
      mine.status = "pending";
      l.changed();
      return post(l, cid);
    },
    refresh: () => refresh(l),
    close: () => sub.close(),
  };
}
