// `#spec-runtime` on fetch runtimes (Workers, browsers): the spec validator needs Node (it reads its schemas from
// disk, and the pool runs on worker threads), so documents are judged by a remote validation address
// (`validator.url`) or answered 503; specs are fetched with the runtime's `fetch` under the same URL policy.

import { fetchUnderPolicy, IncompleteBody, type SpecTransport, tooLarge } from "../fetch/policy.js";
import { DEFAULT_SPEC_LIMITS } from "../openapi/limits.js";
import { type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "../openapi/pool-types.js";
import type { SpecRuntime } from "./types.js";

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

async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader?.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(next.value);
  }
  if (signal.aborted) throw new IncompleteBody("the connection closed before the whole document arrived");
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The runtime's `fetch`, redirects handed back to the policy. There is no DNS here: IP literals, metadata and
 * loopback names are refused by the URL checks, and a host name's addresses are checked only when the host gives
 * `specFetch.resolve` (the connection cannot be pinned to them).
 */
const fetchTransport: SpecTransport = {
  async send(url, _pinned, signal, headers) {
    const res = await fetch(url, { method: "GET", headers, redirect: "manual", signal });
    return {
      status: res.status,
      location: res.headers.get("location") ?? undefined,
      contentType: res.headers.get("content-type") ?? undefined,
      discard: () => void res.body?.cancel().catch(() => {}),
      read: async (maxBytes, readSignal) => {
        const declared = Number(res.headers.get("content-length") ?? Number.NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          void res.body?.cancel().catch(() => {});
          throw tooLarge(maxBytes);
        }
        return readCapped(res.body, maxBytes, readSignal);
      },
    };
  },
};

export const specRuntime: SpecRuntime = {
  specPool: unavailablePool,
  safeFetch: (input, options = {}) => fetchUnderPolicy(input, options, fetchTransport),
};
