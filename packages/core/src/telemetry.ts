// Metrics and spans through `@opentelemetry/api` alone: the host registers an SDK (or none). Instruments are taken
// when a service, worker or gate is built; with no SDK registered there are none, and the hot paths skip every call.
import {
  type Attributes,
  type Counter,
  context,
  createNoopMeter,
  type Histogram,
  type Meter,
  metrics,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
  type UpDownCounter,
} from "@opentelemetry/api";

/** The instrumentation scope of every instrument and span the kit makes. */
export const TELEMETRY_SCOPE = "mountkit";

/**
 * The kit's meter, or `undefined` while no MeterProvider is registered. The metrics API has no proxy provider (unlike
 * tracing), so a meter taken before the SDK registers stays a no-op: hosts register their SDK before building services.
 */
export function kitMeter(): Meter | undefined {
  const meter = metrics.getMeter(TELEMETRY_SCOPE);
  return meter === createNoopMeter() ? undefined : meter;
}

/** The kit's tracer, or `undefined` while no TracerProvider is registered (so no span objects are made per request). */
export function kitTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider && provider.getDelegateTracer(TELEMETRY_SCOPE) === undefined) return undefined;
  return trace.getTracer(TELEMETRY_SCOPE);
}

/** `2xx`, `4xx`, ...: the status class label (a bounded set, unlike the status itself). */
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/** The route label of a request that matched no route: one value, so unknown paths cannot grow the series without bound. */
export const UNMATCHED_ROUTE = "(unmatched)";

/** One service's request instruments. */
export interface HttpTelemetry {
  service: string;
  requests: Counter | undefined;
  duration: Histogram | undefined;
  refusals: Counter | undefined;
  tracer: Tracer | undefined;
}

/** The instruments of one service's dispatch, or `undefined` when neither metrics nor traces are registered. */
export function httpTelemetry(service: string): HttpTelemetry | undefined {
  const meter = kitMeter();
  const tracer = kitTracer();
  if (!meter && !tracer) return undefined;
  return {
    service,
    requests: meter?.createCounter("mountkit.http.requests", {
      description: "Requests answered, by service, route, method and status class",
    }),
    duration: meter?.createHistogram("mountkit.http.request.duration", {
      description:
        "Time from dispatch to the response head (a stream's first byte, not its end), by service, route, method and status class",
      unit: "s",
      advice: { explicitBucketBoundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
    }),
    refusals: meter?.createCounter("mountkit.limiter.refusals", {
      description: "Requests refused with 429 by a rate limit, quota or stream cap, by service and error code",
    }),
    tracer,
  };
}

/** What a request carries from dispatch to its answer when telemetry is on. */
export interface RequestObservation {
  started: number;
  span: Span | undefined;
}

/**
 * Starts observing a request: its clock, and a server span (child of a `traceparent` the registered propagator reads)
 * made current while `run` starts the request.
 */
export function observeRequest<T>(
  tel: HttpTelemetry,
  method: string,
  headers: Record<string, string | undefined>,
  run: (o: RequestObservation) => T,
): T {
  const started = performance.now();
  if (!tel.tracer) return run({ started, span: undefined });
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tel.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { "http.request.method": method } }, parent);
  return context.with(trace.setSpan(parent, span), () => run({ started, span }));
}

/** Records a request's answer: count, latency, and the span's route, status and end. */
export function requestDone(tel: HttpTelemetry, o: RequestObservation, method: string, route: string, status: number): void {
  const attributes: Attributes = {
    "mountkit.service": tel.service,
    "http.route": route,
    "http.request.method": method,
    "http.response.status_class": statusClass(status),
  };
  tel.requests?.add(1, attributes);
  tel.duration?.record((performance.now() - o.started) / 1000, attributes);
  const span = o.span;
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttributes({ "mountkit.service": tel.service, "http.route": route, "http.response.status_code": status });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Open SSE streams across the kit's stream gates, by service. */
export function streamTelemetry(): UpDownCounter | undefined {
  return kitMeter()?.createUpDownCounter("mountkit.sse.streams.open", { description: "Open SSE streams, by service" });
}

/** One queue's worker instruments: depth by state (read from the store when the SDK collects), job age and run time. */
export interface QueueTelemetry {
  /** A claimed job waited `seconds` between becoming due and its claim. */
  claimed(seconds: number): void;
  /** A job's handler ran `seconds` and ended `done`, `retry` or `dead`. */
  ran(seconds: number, outcome: "done" | "retry" | "dead"): void;
  /** Starts and stops reading the depth at each collection (the worker's start and stop). */
  watch(on: boolean): void;
}

export function queueTelemetry(
  queue: string,
  counts: () => Promise<{ queued: number; running: number; dead: number }>,
): QueueTelemetry | undefined {
  const meter = kitMeter();
  if (!meter) return undefined;
  const depth = meter.createObservableGauge("mountkit.queue.depth", { description: "Jobs in the queue's store, by queue and state" });
  const age = meter.createHistogram("mountkit.queue.job.age", {
    description: "How long a job waited between becoming due and being claimed, by queue",
    unit: "s",
    advice: { explicitBucketBoundaries: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600] },
  });
  const runs = meter.createHistogram("mountkit.queue.job.duration", { description: "Handler run time, by queue and outcome", unit: "s" });
  const attributes = { "mountkit.queue": queue };
  const read = async (result: { observe(value: number, attributes: Attributes): void }) => {
    const c = await counts();
    for (const state of ["queued", "running", "dead"] as const) result.observe(c[state], { ...attributes, "mountkit.job.state": state });
  };
  let watching = false;
  return {
    claimed: (seconds) => age.record(Math.max(0, seconds), attributes),
    ran: (seconds, outcome) => runs.record(seconds, { ...attributes, "mountkit.job.outcome": outcome }),
    watch(on) {
      if (on === watching) return;
      watching = on;
      if (on) depth.addCallback(read);
      else depth.removeCallback(read);
    },
  };
}
