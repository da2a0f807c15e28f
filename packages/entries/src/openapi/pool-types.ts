// The spec pool's contract, shared by every runtime: options, requests, and the "not judged" error (answered 503).
import type { SpecLimits } from "./limits.js";
import type { ValidationOutcome } from "./validate.js";

export interface SpecPoolOptions {
  /** Worker threads; default the cores less one, between 1 and 4. */
  maxThreads?: number;
  /** Documents waiting for a thread; more answer 503. Default 64. */
  maxQueue?: number;
  /** Time one document may run once it has a thread; default 30 s. */
  timeoutMs?: number;
  /** Old-generation heap of each worker; a document needing more answers 422. Default 1024 MB. */
  maxMemoryMb?: number;
  /**
   * Niceness the worker threads add to their own (Linux only; each thread has its own), so the event loop keeps the
   * CPU when cores are scarce. Default 10; 0 runs the workers at the host's priority.
   */
  lowerPriorityBy?: number;
  /** Documents smaller than this without YAML anchors are validated inline (cheaper than a thread hop). Default 64 KiB. */
  inlineBelowBytes?: number;
  limits?: Partial<SpecLimits>;
}

export interface PoolValidateRequest {
  baseUrl?: string;
  fetchDocument?: (url: URL) => Promise<Uint8Array>;
  signal?: AbortSignal;
  maxWarnings?: number;
  /**
   * The caller hands `bytes` over and never reads them again: when they fill their own ArrayBuffer (a concatenated
   * request body does), it moves to the worker instead of being copied, so a 16 MB body costs the event loop no
   * second 16 MB copy (and the GC no second external allocation). The caller's view is detached afterwards.
   */
  transfer?: boolean;
}

export interface SpecPool {
  validate(bytes: Uint8Array, request?: PoolValidateRequest): Promise<ValidationOutcome>;
  /** Ends the worker threads; later calls start them again. */
  destroy(): Promise<void>;
  readonly options: Required<Omit<SpecPoolOptions, "limits">> & { limits: SpecLimits };
}

/** The pool is full: the caller answers 503 (the document was not judged). */
export class SpecPoolBusyError extends Error {
  constructor(message = "the validation queue is full") {
    super(message);
    this.name = "SpecPoolBusyError";
  }
}
