// The catalogue's calls to the entries service, relative to the base the page shell names
// (`<meta name="mountkit-base">`: mount prefix + basePath), so the page works under any host prefix.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface TypeSummary {
  id: string;
  title: string;
  description?: string;
  openapi: string;
}

// the wire records are the service's own types, imported as types only: nothing of the server is bundled
// (`Issue`: a warning or error of the validation address, `line`/`column` only when the validator gives them)
import type {
  Entry,
  EntryRevision,
  InventoryPage as Inventory,
  SpecIssue as Issue,
  RevisionDiff,
  ValidationAnswer,
} from "@mountkit/entries";

export type { Entry, EntryRevision, Inventory, Issue, RevisionDiff, ValidationAnswer };
export type { Operation } from "@mountkit/entries";

export function apiBase(doc: Document = document): string {
  const meta = doc.querySelector<HTMLMetaElement>('meta[name="mountkit-base"]');
  return (meta?.content ?? "").replace(/\/+$/, "");
}

async function read(r: Response): Promise<unknown> {
  const text = await r.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

function failure(r: Response, body: unknown): ApiError {
  const b = (body ?? {}) as { error?: unknown; requestId?: unknown };
  const message = typeof b.error === "string" ? b.error : `${r.status} ${r.statusText}`.trim();
  return new ApiError(r.status, message, typeof b.requestId === "string" ? b.requestId : (r.headers.get("x-request-id") ?? undefined));
}

export function createApi(base: string, fetchImpl: typeof fetch = fetch.bind(globalThis)) {
  const get = async <T>(path: string, signal?: AbortSignal): Promise<T> => {
    const r = await fetchImpl(`${base}${path}`, { headers: { accept: "application/json" }, signal });
    const body = await read(r);
    if (!r.ok) throw failure(r, body);
    return body as T;
  };
  const typePath = (typeId: string) => `/api/v1/types/${encodeURIComponent(typeId)}`;
  return {
    types: (signal?: AbortSignal) => get<{ items: TypeSummary[] }>("/api/v1/types", signal).then((b) => b.items),
    typeDocument: (typeId: string, signal?: AbortSignal) => get<Record<string, unknown>>(`${typePath(typeId)}/openapi.json`, signal),
    typeDocumentUrl: (typeId: string) => `${base}${typePath(typeId)}/openapi.json`,
    entries: (
      typeId: string,
      query: { q?: string; tag?: string; ownerId?: string; cursor?: string; limit?: number },
      signal?: AbortSignal,
    ) => {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") qs.set(k, String(v));
      const s = qs.toString();
      return get<{ items: Entry[]; next: string | null }>(`${typePath(typeId)}/data${s ? `?${s}` : ""}`, signal);
    },
    entry: (typeId: string, id: string, signal?: AbortSignal) => get<Entry>(`${typePath(typeId)}/data/${encodeURIComponent(id)}`, signal),
    inventoryPage: (typeId: string, id: string, cursor: string | undefined, signal?: AbortSignal) =>
      get<Inventory>(
        `${typePath(typeId)}/data/${encodeURIComponent(id)}/inventory?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        signal,
      ),
    /** An entry's revisions, newest first (one page of up to 100). */
    revisions: (typeId: string, id: string, signal?: AbortSignal) =>
      get<{ items: EntryRevision[] }>(`${typePath(typeId)}/data/${encodeURIComponent(id)}/revisions?limit=100`, signal).then(
        (b) => b.items,
      ),
    /** The changes between the specs of two revisions (docs/entries.md#spec-diffs). */
    revisionDiff: (typeId: string, id: string, base: number, head: number, signal?: AbortSignal) =>
      get<RevisionDiff>(`${typePath(typeId)}/data/${encodeURIComponent(id)}/revisions/${base}/diff/${head}`, signal),
    /** The validation address: a pasted document (JSON or YAML) or `{ url }`. 200 and 422 are both answers. */
    async validate(input: { document: string } | { url: string }, signal?: AbortSignal): Promise<ValidationAnswer> {
      const isJson = "url" in input || /^\s*[{[]/.test(input.document);
      const r = await fetchImpl(`${base}/api/dev/validate-openapi/`, {
        method: "POST",
        headers: { "content-type": isJson ? "application/json" : "application/yaml", accept: "application/json" },
        body: "url" in input ? JSON.stringify({ url: input.url }) : input.document,
        signal,
      });
      const body = await read(r);
      if (r.status === 200 || r.status === 422) {
        if (body && typeof body === "object" && "valid" in body) return body as ValidationAnswer;
      }
      throw failure(r, body);
    },
  };
}

export type Api = ReturnType<typeof createApi>;
