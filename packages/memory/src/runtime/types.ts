// What extraction needs from the runtime (`#extraction-runtime` resolves to `node.ts` on Node, `fetch.ts`
// elsewhere): the default extractor, on worker threads where the runtime has them.
import type { Logger } from "@mountkit/core";
import type { RelationSpec } from "../domain/relations.js";
import type { Extractor } from "../extractors/types.js";

/** The extraction threads of `createMemoryService` (option `extraction`); Node only, ignored elsewhere. */
export interface ExtractionThreadsOptions {
  /**
   * Worker threads running the offline NLP extractor. Default `max(1, min(availableParallelism() - 1, 4))`.
   * 0 runs it on the event loop, as before issue #24 (a 50 KB episode then holds the host's loop for most of a second).
   */
  threads?: number;
  /**
   * Episodes waiting for a thread, past the ones running; default 64. An episode past it is not failed: its job
   * is retried with the queue's backoff.
   */
  maxQueue?: number;
  /** Per episode, waiting included; default 60,000 ms. Past it the thread is ended and the episode fails. */
  timeoutMs?: number;
  /** How long an idle thread is kept before it ends; default 60,000 ms. Idle threads never keep the process alive. */
  idleMs?: number;
}

/** An extractor whose resources end with `destroy` (the service's `dispose` calls it). */
export interface OwnedExtractor extends Extractor {
  destroy(): Promise<void>;
}

export interface ExtractionRuntime {
  /** The offline NLP extractor: on worker threads on Node, in-process elsewhere. */
  defaultExtractor(options?: ExtractionThreadsOptions, cx?: { logger?: Logger; relations?: readonly RelationSpec[] }): OwnedExtractor;
}
