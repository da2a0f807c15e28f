// The diff processes' contract, shared by every runtime (the fetch runtime has none: it answers 503).
import type { DiffTaskOutcome } from "./types.js";

export interface DiffPoolRequest {
  signal?: AbortSignal;
  /** Fetches a side given as `{ url }`, under the spec-fetch policy; absent, such a side is refused. */
  fetchDocument?: (url: URL) => Promise<Uint8Array>;
  maxChanges?: number;
}

export interface DiffPool {
  /** Diffs the request body `{ base, head }` in a diff process; throws SpecPoolBusyError when it cannot (503). */
  diff(body: Uint8Array, request?: DiffPoolRequest): Promise<DiffTaskOutcome>;
  destroy(): Promise<void>;
}
