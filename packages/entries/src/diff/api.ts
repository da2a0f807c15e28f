// The diff operations of the typed API: two posted (or fetched) documents, and the specs of two revisions of an entry.

import type { SafeFetchOptions } from "@mountkit/core/outbound";
import { specRuntime } from "#runtime/spec";
import { entriesError } from "../errors.js";
import { SpecPoolBusyError } from "../openapi/pool-types.js";
import type { EntriesStore } from "../store/types.js";
import type { TypeRegistry } from "../types/registry.js";
import type { DiffPool } from "./pool-types.js";
import type { SpecDiff } from "./types.js";

export interface RevisionDiff extends SpecDiff {
  /** The two revisions compared and the spec address each held (`customData.specUrl`). */
  revisions: { base: number; head: number };
  specUrls: { base: string; head: string };
}

export interface DiffApi {
  /** `body` is JSON `{ base, head }` (see docs/entries.md#spec-diffs). Throws 400, 422 or 503 KitErrors. */
  diffOpenApi(body: Uint8Array, options?: { signal?: AbortSignal }): Promise<SpecDiff>;
  /** The specs of two revisions of an entry whose type catalogues specs (`apis`), fetched now from their `specUrl`s. */
  diffRevisions(input: { typeId: string; id: string; base: number; head: number; signal?: AbortSignal }): Promise<RevisionDiff>;
}

/** The fetch a `{ url }` side gets: the spec-fetch policy, errors in its words. */
function fetcher(policy: SafeFetchOptions) {
  return async (url: URL) => (await specRuntime.safeFetch(url, policy)).body;
}

export function diffOps(deps: { store: EntriesStore; types: TypeRegistry; fetch: SafeFetchOptions; pool: DiffPool }): DiffApi {
  const { store, types, pool } = deps;
  async function run(body: Uint8Array, signal?: AbortSignal): Promise<SpecDiff> {
    let out: Awaited<ReturnType<DiffPool["diff"]>>;
    try {
      out = await pool.diff(body, { signal, fetchDocument: fetcher(signal ? { ...deps.fetch, signal } : deps.fetch) });
    } catch (e) {
      if (e instanceof SpecPoolBusyError)
        throw entriesError("validator_unavailable", { message: "the spec diff processes are busy", cause: e });
      throw e;
    }
    if (out.ok) return out.diff;
    if ("request" in out) throw entriesError("diff_request_invalid", { details: out.errors });
    throw entriesError("diff_failed", { details: out.errors });
  }
  return {
    diffOpenApi: (body, options = {}) => run(body, options.signal),
    async diffRevisions({ typeId, id, base, head, signal }) {
      if (!types.get(typeId)) throw entriesError("unknown_type", { message: `unknown type ${typeId}` });
      const [b, h] = await Promise.all([
        store.getRevision({ typeId, entryId: id, revision: base }),
        store.getRevision({ typeId, entryId: id, revision: head }),
      ]);
      if (!b || !h) throw entriesError("not_found", { message: `no revision ${!b ? base : head} of ${typeId} entry ${id}` });
      const urlOf = (c: Record<string, unknown>) => (typeof c.specUrl === "string" ? c.specUrl : undefined);
      const specUrls = { base: urlOf(b.customData), head: urlOf(h.customData) };
      if (!specUrls.base || !specUrls.head)
        throw entriesError("not_found", { message: `${typeId} entries carry no spec (customData.specUrl) to compare` });
      const body = new TextEncoder().encode(JSON.stringify({ base: { url: specUrls.base }, head: { url: specUrls.head } }));
      const diff = await run(body, signal);
      return { ...diff, revisions: { base, head }, specUrls: specUrls as RevisionDiff["specUrls"] };
    },
  };
}
