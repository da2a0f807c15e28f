// Limits every adapter applies the same way: a deadline on reading a request body and a cap on open SSE streams.
import { coreError } from "./errors.js";
import type { KitRequest, KitResponse } from "./http.js";
import { randomIds } from "./ids.js";
import type { Service } from "./service-types.js";
import { streamTelemetry } from "./telemetry.js";

/** How long a request body may take to arrive once a route starts reading it (a stalled upload then gets 408). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** Open SSE streams one mount serves at once; past it new streams get 503 (each holds a socket and a subscription). */
export const DEFAULT_MAX_STREAMS = 5_000;
/** How long a stream waits for a client that stopped reading before dropping it (docs/conventions.md#server-sent-events). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** Bytes an SSE response may queue for a slow client before it is dropped. */
export const DEFAULT_MAX_STREAM_BUFFER = 1024 * 1024;

/** The 408 a stalled body gets. `Connection: close`: the rest of that body never came, so the connection cannot carry another request. */
export function bodyTimeoutError(timeoutMs: number) {
  return coreError("request_timeout", {
    message: `request body not received within ${timeoutMs} ms`,
    details: { timeoutMs },
    headers: { connection: "close" },
  });
}

/**
 * Counts open SSE streams against a maximum. One per mount by default; pass the same gate to several
 * mounts (`maxStreams: gate`) to cap them together.
 */
export class StreamGate {
  #open = 0;
  /** `mountkit.sse.streams.open`, when an OpenTelemetry SDK was registered as the gate was made. */
  readonly gauge = streamTelemetry();
  constructor(readonly max: number = DEFAULT_MAX_STREAMS) {}

  get open(): number {
    return this.#open;
  }

  tryOpen(): boolean {
    if (this.#open >= this.max) return false;
    this.#open++;
    return true;
  }

  release(): void {
    if (this.#open > 0) this.#open--;
  }
}

export function streamGate(max: number | StreamGate | undefined): StreamGate {
  return max instanceof StreamGate ? max : new StreamGate(max);
}

/** Wraps a stream so the gate's slot is released exactly once, however the stream ends; counted under its service. */
function gated(stream: AsyncIterable<string>, gate: StreamGate, service: string | undefined): AsyncIterableIterator<string> {
  const it = stream[Symbol.asyncIterator]();
  const attributes = gate.gauge && { "mountkit.service": service ?? "(none)" };
  gate.gauge?.add(1, attributes);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    gate.release();
    gate.gauge?.add(-1, attributes);
  };
  const wrapped: AsyncIterableIterator<string> = {
    async next() {
      try {
        const r = await it.next();
        if (r.done) release();
        return r;
      } catch (e) {
        release();
        throw e;
      }
    },
    async return() {
      release();
      await it.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return wrapped;
    },
  };
  return wrapped;
}

/**
 * Admits a streaming response through the gate, or ends its source and answers 503 with the owning
 * service's error body (and `Retry-After`) when the gate is full. Non-stream responses pass untouched.
 */
export function admitStream(
  services: readonly Service[],
  request: Pick<KitRequest, "method" | "path" | "headers">,
  response: KitResponse,
  gate: StreamGate,
  abort?: AbortController,
): KitResponse {
  if (!response.stream) return response;
  if (gate.tryOpen()) {
    const service = gate.gauge && services.find((s) => s.owns(request.path))?.name;
    return { ...response, stream: gated(response.stream, gate, service) };
  }
  abort?.abort();
  void Promise.resolve()
    .then(() => response.stream![Symbol.asyncIterator]().return?.())
    .catch(() => {});
  const err = coreError("service_unavailable", {
    message: "too many open event streams, retry later",
    details: { maxStreams: gate.max },
    headers: { "retry-after": "5" },
  });
  const owner = services.find((s) => s.owns(request.path));
  const answered = owner?.errorResponse(request, err);
  if (answered) return answered;
  const requestId = randomIds("req");
  return {
    status: 503,
    headers: { "content-type": "application/json; charset=utf-8", "retry-after": "5", "x-request-id": requestId },
    body: JSON.stringify({ error: err.message, details: err.details, requestId }),
  };
}
