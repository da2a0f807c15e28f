// What validating and fetching specs needs from the runtime (`#spec-runtime` resolves to `node.ts` on Node,
// `fetch.ts` elsewhere): the validation pool and the outbound fetch of user-chosen URLs.
import type { FetchedDocument, SafeFetchOptions } from "@mountkit/core/outbound";
import type { DiffPool } from "../diff/pool-types.js";
import type { SpecPool, SpecPoolOptions } from "../openapi/pool-types.js";

export interface SpecRuntime {
  /** Parses, validates and catalogues spec documents. */
  specPool(options?: SpecPoolOptions): SpecPool;
  /** Compares spec documents (docs/entries.md#spec-diffs), in processes of its own under the same options. */
  diffPool(options?: SpecPoolOptions): DiffPool;
  /** GETs a user-chosen URL under the spec-fetch policy; throws SpecFetchError, never returns a non-2xx answer. */
  safeFetch(input: string | URL, options?: SafeFetchOptions): Promise<FetchedDocument>;
}
