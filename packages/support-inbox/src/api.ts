// The agent API (/agent/conversations..., /agent/ratings...) from the browser: bearer-token calls and SSE streams read with
// fetch (EventSource cannot send an Authorization header), reconnecting with Last-Event-ID and backoff.
import { jitteredDelay, readSse } from "@mountkit/support-client";

export const STATUSES = ["new", "waiting-for-agent", "waiting-for-customer", "resolved", "closed"] as const;
export type Status = (typeof STATUSES)[number];

export interface AgentSummary {
  id: string;
  subject: string;
  status: Status;
  isOpen: boolean;
  createdAt: string;
  updatedAt: string;
  customerId: string;
  productSlug: string;
  assignee: string | null;
  /** Wire labels: the status label plus the agent's own. */
  labels: string[];
}

export interface AgentMessage {
  id: string;
  body: string | null;
  author: string;
  /** The verified agent who wrote it (their identity's id); null for the customer and the shared token. */
  authorId?: string | null;
  createdAt: string;
  isCustomer: boolean;
  /** The files it carries; absent when none. */
  attachments?: Attachment[];
}

/** A file on a message (docs/support.md#attachments): its type was read from the bytes by the service. */
export interface Attachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
}

/** A private note: agents only, never shown to the customer. */
export interface AgentNote {
  id: string;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}

/** A product's saved reply, inserted by typing `/` and its shortcut. */
export interface CannedReply {
  id: string;
  shortcut: string;
  title: string;
  body: string;
}

/** The customer's satisfaction rating of a resolved or closed conversation (docs/support.md#ratings). */
export interface Rating {
  /** 1 (poor) to 5 (great). */
  score: number;
  comment: string | null;
  ratedAt: string;
}

/** One rated conversation in `GET /agent/ratings`. */
export interface RatedConversation extends Rating {
  conversationId: string;
  subject: string;
  customerId: string;
  assignee: string | null;
}

/** Every rating the filter matches, not only one page's. */
export interface RatingSummary {
  count: number;
  average: number | null;
  byScore: Record<"1" | "2" | "3" | "4" | "5", number>;
}

export interface RatingsPage {
  items: RatedConversation[];
  summary: RatingSummary;
  next: string | null;
}

export interface AgentDetail extends AgentSummary {
  messages: AgentMessage[];
  /** Absent from a service older than private notes. */
  notes?: AgentNote[];
  /** Null until the customer rates it; absent from a service older than ratings. */
  rating?: Rating | null;
}

/** Who the token speaks for (`GET /agent/me`): a verified agent, or the shared token (no id, no name). */
export interface AgentIdentity {
  via: "identity" | "token";
  id: string | null;
  name: string | null;
}

export interface ListFilter {
  status?: string;
  label?: string;
  assignee?: string;
  q?: string;
}

export interface StreamEvent {
  type: string;
  data?: unknown;
  createdAt?: string;
}

export class AgentApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface StreamHandle {
  close(): void;
}

export interface AgentApi {
  /** Who the token speaks for; a service older than agent identities (404) is the shared token. */
  me(): Promise<AgentIdentity>;
  list(productSlug: string, filter: ListFilter, cursor?: string): Promise<{ items: AgentSummary[]; next: string | null }>;
  detail(id: string): Promise<AgentDetail>;
  /** `attachments`: ids from {@link AgentApi.upload}. */
  reply(id: string, body: string, author: string, attachments?: string[]): Promise<void>;
  /**
   * Uploads a file for a reply (PNG, JPEG, GIF, WebP, PDF or plain text, sniffed by the service), reporting progress;
   * a refusal (413, 415) rejects with the service's message.
   */
  upload(
    productSlug: string,
    file: Blob,
    o?: { name?: string; onProgress?(loaded: number, total: number): void; signal?: AbortSignal },
  ): Promise<Attachment>;
  /** A file's bytes, typed as the service serves them (the download needs the token, so no URL can show it). */
  download(attachmentId: string): Promise<Blob>;
  /** The file's agent download URL (it answers only with the token: a link's meaning, not a working `src`). */
  attachmentUrl(attachmentId: string): string;
  setLabels(id: string, labels: string[]): Promise<string[]>;
  setAssignee(id: string, assignee: string | null): Promise<void>;
  setStatus(id: string, status: Status): Promise<void>;
  notes(id: string): Promise<AgentNote[]>;
  addNote(id: string, body: string, author: string): Promise<AgentNote>;
  /** The product's canned replies, ordered by shortcut. */
  cannedReplies(productSlug: string): Promise<CannedReply[]>;
  /** The product's ratings, newest first, `pageSize` at a time, with their summary; `score` keeps one score. */
  ratings(productSlug: string, filter: { score?: number }, cursor?: string): Promise<RatingsPage>;
  /**
   * Follows an SSE route until closed: `onEvent` for each frame, `onConnected` on each (re)connection.
   * `onUnauthorized` ends it (a wrong token does not get better by retrying).
   */
  follow(
    path: string,
    handlers: { onEvent(e: StreamEvent): void; onConnected?(): void; onDown?(): void; onUnauthorized?(): void },
  ): StreamHandle;
}

/** The agent API under `base` (the service's public URL: mount prefix and basePath), signed with `token`; lists `pageSize` at a time. */
export function agentApi(base: string, token: string, pageSize = 50): AgentApi {
  const agentRoot = `${base.replace(/\/+$/, "")}/agent`;
  const root = `${agentRoot}/conversations`;
  const auth = { authorization: `Bearer ${token}` };

  async function call<T>(method: string, path: string, body?: unknown, at = root): Promise<T> {
    const res = await fetch(`${at}${path}`, {
      method,
      headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) {
      const err = (await res.json().catch(() => undefined)) as { error?: string } | undefined;
      throw new AgentApiError(res.status, err?.error ?? `HTTP ${res.status}`);
    }
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  return {
    async me() {
      try {
        return await call<AgentIdentity>("GET", "/me", undefined, agentRoot);
      } catch (e) {
        if (e instanceof AgentApiError && e.status === 404) return { via: "token", id: null, name: null };
        throw e;
      }
    },
    list(productSlug, filter, cursor) {
      const p = new URLSearchParams({ productSlug, limit: String(pageSize) });
      for (const [k, v] of Object.entries(filter)) if (v) p.set(k, v);
      if (cursor) p.set("cursor", cursor);
      return call("GET", `?${p}`);
    },
    detail: (id) => call("GET", `/${encodeURIComponent(id)}`),
    reply: (id, body, author, attachments) =>
      call("POST", `/${encodeURIComponent(id)}/messages`, { body, author, ...(attachments?.length ? { attachments } : {}) }),
    upload: (productSlug, file, o = {}) => {
      const name = o.name ?? (file as Partial<File>).name;
      const query = new URLSearchParams({ productSlug, ...(name ? { name } : {}) });
      return uploadWithProgress(`${agentRoot}/attachments?${query}`, { ...auth, accept: "application/json" }, file, o);
    },
    attachmentUrl: (attachmentId) => `${agentRoot}/attachments/${encodeURIComponent(attachmentId)}`,
    async download(attachmentId) {
      const res = await fetch(`${agentRoot}/attachments/${encodeURIComponent(attachmentId)}`, { headers: auth });
      if (!res.ok) {
        const err = (await res.json().catch(() => undefined)) as { error?: string } | undefined;
        throw new AgentApiError(res.status, err?.error ?? `HTTP ${res.status}`);
      }
      return res.blob();
    },
    setLabels: async (id, labels) => (await call<{ labels: string[] }>("PUT", `/${encodeURIComponent(id)}/labels`, { labels })).labels,
    setAssignee: (id, assignee) => call("PUT", `/${encodeURIComponent(id)}/assignee`, { assignee }),
    setStatus: (id, status) => call("PUT", `/${encodeURIComponent(id)}/status`, { status }),
    notes: async (id) => (await call<{ items: AgentNote[] }>("GET", `/${encodeURIComponent(id)}/notes`)).items,
    addNote: (id, body, author) => call("POST", `/${encodeURIComponent(id)}/notes`, { body, author }),
    cannedReplies: async (productSlug) =>
      (await call<{ items: CannedReply[] }>("GET", `?${new URLSearchParams({ productSlug })}`, undefined, `${agentRoot}/canned-replies`))
        .items,
    ratings(productSlug, filter, cursor) {
      const p = new URLSearchParams({ productSlug, limit: String(pageSize) });
      if (filter.score) p.set("score", String(filter.score));
      if (cursor) p.set("cursor", cursor);
      return call("GET", `?${p}`, undefined, `${agentRoot}/ratings`);
    },
    follow(path, handlers) {
      const stop = new AbortController();
      let lastEventId: string | undefined;
      void (async () => {
        let failures = 0;
        while (!stop.signal.aborted) {
          try {
            const headers: Record<string, string> = { ...auth, accept: "text/event-stream" };
            if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
            const res = await fetch(`${root}${path}`, { headers, signal: stop.signal, cache: "no-store" });
            if (res.status === 401) {
              handlers.onUnauthorized?.();
              return;
            }
            if (res.ok && res.body) {
              for await (const m of readSse(res.body)) {
                if (m.id !== undefined) lastEventId = m.id;
                let e: StreamEvent;
                try {
                  e = JSON.parse(m.data) as StreamEvent;
                } catch {
                  continue;
                }
                if (e.type === "connected") {
                  failures = 0;
                  handlers.onConnected?.();
                }
                handlers.onEvent(e);
              }
            }
          } catch {
            // a dropped connection or an aborted read: retried below unless closed
          }
          if (stop.signal.aborted) return;
          handlers.onDown?.();
          await new Promise((r) => setTimeout(r, Math.max(250, jitteredDelay(failures++))));
        }
      })();
      return { close: () => stop.abort() };
    },
  };
}

/** A POST of a file's bytes through XMLHttpRequest, the only browser API that reports a request body's progress. */
function uploadWithProgress(
  url: string,
  headers: Record<string, string>,
  file: Blob,
  o: { onProgress?(loaded: number, total: number): void; signal?: AbortSignal },
): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    for (const [k, v] of Object.entries({ ...headers, "content-type": file.type || "application/octet-stream" }))
      xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => o.onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: { error?: string } | undefined;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body) resolve(body as Attachment);
      else reject(new AgentApiError(xhr.status, body?.error ?? `HTTP ${xhr.status}`));
    };
    xhr.onerror = () => reject(new AgentApiError(0, "the upload did not complete"));
    xhr.onabort = () => reject(new AgentApiError(0, "upload cancelled"));
    o.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}
