// `#runtime/spec` on fetch runtimes (Workers, browsers): the spec validator needs Node (it reads its schemas from
// disk, and the pool runs on worker threads), so documents are judged by a remote validation address
// (`validator.url`) or answered 503; specs are fetched with the runtime's `fetch` under the same URL policy
// (`@mountkit/core/outbound` resolves to its fetch transport there).

import { safeFetch } from "@mountkit/core/outbound";
import { DEFAULT_SPEC_LIMITS } from "../openapi/limits.js";
import { type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "../openapi/pool-types.js";
import type { SpecRuntime } from "./spec-types.js";

function unavailablePool(o: SpecPoolOptions = {}): SpecPool {
  return {
    options: {
      maxThreads: 0,
      maxQueue: 0,
      timeoutMs: o.timeoutMs ?? 30_000,
      maxMemoryMb: o.maxMemoryMb ?? 1024,
      inlineBelowBytes: 0,
      inlineMaxSteps: 0,
      lowerPriorityBy: 0,
      limits: { ...DEFAULT_SPEC_LIMITS, ...o.limits },
    },
    async validate() {
      throw new SpecPoolBusyError("no in-process spec validator on this runtime: set validator.url to a kit running on Node");
    },
    async destroy() {},
  };
}

export const specRuntime: SpecRuntime = {
  specPool: unavailablePool,
  diffPool: () => ({
    async diff() {
      throw new SpecPoolBusyError("no spec diff on this runtime: it runs in processes, on Node");
    },
    async destroy() {},
  }),
  safeFetch,
};
