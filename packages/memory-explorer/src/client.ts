// The explorer's view of the memory API (docs/memory.md): one brain's key as the bearer, the service's public
// base read from the page's <meta name="mountkit-base">, errors turned into messages a person can act on.

export interface Edge {
  id: string;
  source: string;
  target: string;
  relation: string;
  fact: string;
  tValid: string | null;
  tInvalid: string | null;
  tIngested: string;
  tExpired: string | null;
  episodeId: string;
  invalidationReason: string | null;
  score?: number;
}
export interface Entity {
  id: string;
  name: string;
  kind: string;
  aliases?: string[];
}
export interface Episode {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  occurredAt: string;
  createdAt: string;
  status?: "queued" | "processing" | "done" | "failed";
  error?: string | null;
}
export interface Recall {
  asOf: string;
  knownAt: string;
  context: string;
  edges: Edge[];
  entities: Entity[];
  episodes: Episode[];
}
export interface PlaybookSummary {
  slug: string;
  title: string;
}
export interface Playbook extends PlaybookSummary {
  content: string;
  edges: string[];
  episodes: string[];
  updatedAt: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Lists are read whole up to this many pages of 100: an explorer of one brain, not an export tool. */
const MAX_PAGES = 20;
/** The most items `all()` reads of one list (newest first). */
export const LIST_CAP = MAX_PAGES * 100;

export class MemoryClient {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  async request<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: "application/json" };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(`${this.base}${path}`, {
      method: init.method ?? "GET",
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const body = (await r.json().catch(() => null)) as { error?: string } | null;
    if (!r.ok) throw new ApiError(r.status, explain(r.status, body?.error));
    return body as T;
  }

  /** Every item of a list route, following `next` cursors. */
  async all<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < MAX_PAGES; i++) {
      const q = new URLSearchParams({ limit: "100" });
      for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, v);
      if (cursor) q.set("cursor", cursor);
      const page: { items: T[]; next: string | null } = await this.request(`${path}?${q}`);
      items.push(...page.items);
      cursor = page.next;
      if (!cursor) break;
    }
    return items;
  }
}

function explain(status: number, error: string | undefined): string {
  if (status === 401) return "This key is not accepted by the memory service.";
  if (status === 429) return "This brain's daily quota is used up; it resets at midnight UTC.";
  return error ? `${error} (HTTP ${status})` : `The memory service answered HTTP ${status}.`;
}

/** The API's public base from the page shell (mount prefix + basePath); "" at the root. */
export function apiBase(doc: Document): string {
  return doc.querySelector('meta[name="mountkit-base"]')?.getAttribute("content") ?? "";
}
