// `#runtime/spec`: what validating and fetching specs needs from the runtime, the validation pool and the outbound
// fetch of user-chosen URLs. Like every capability in src/runtime/, it resolves through the package's `imports` map
// to `spec-node.ts` under the `node` condition and to `spec-fetch.ts` elsewhere.
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
