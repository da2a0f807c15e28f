// The example server's OpenTelemetry SDK, registered before the services are built (the kit takes its instruments
// then): a Prometheus reader behind GET /metrics (MOUNTKIT_METRICS, default on in development, off in production) and
// OTLP/HTTP exporters for metrics and traces when the standard OTEL_EXPORTER_OTLP_* variables name an endpoint.
import { metrics, propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { type MetricReader, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Mode } from "./mode.js";

export interface Telemetry {
  /** The Prometheus text of every instrument, or `undefined` when /metrics is off. */
  prometheus: (() => Promise<string>) | undefined;
  /** What is exported where, for the start-up line. */
  summary: string[];
  /** Flushes the exporters and unregisters the providers. */
  shutdown(): Promise<void>;
}

const flag = (raw: string | undefined, name: string, fallback: boolean) => {
  const v = raw?.trim().toLowerCase();
  if (!v) return fallback;
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  throw new Error(`${name} must be 1 or 0`);
};

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw?.trim() && Number.isFinite(n) && n > 0 ? n : fallback;
};

/** Registers the SDK the environment asks for; nothing at all (the kit's instruments stay no-ops) when it asks for none. */
export function startTelemetry(env: NodeJS.ProcessEnv, mode: Mode): Telemetry {
  const summary: string[] = [];
  const none: Telemetry = { prometheus: undefined, summary, shutdown: async () => {} };
  if (flag(env.OTEL_SDK_DISABLED, "OTEL_SDK_DISABLED", false)) return none;
  const resource = resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || "mountkit-example-server" });
  const readers: MetricReader[] = [];
  let prometheus: PrometheusExporter | undefined;
  if (flag(env.MOUNTKIT_METRICS, "MOUNTKIT_METRICS", mode === "development")) {
    // no server of its own: /metrics is a route of the example server
    prometheus = new PrometheusExporter({ preventServerStart: true });
    readers.push(prometheus);
    summary.push("metrics: Prometheus at /metrics");
  }
  const otlp = !!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (otlp || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim()) {
    // the exporter reads OTEL_EXPORTER_OTLP_[METRICS_]ENDPOINT, _HEADERS, _TIMEOUT itself
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: positive(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
      }),
    );
    summary.push("metrics: OTLP/HTTP");
  }
  let meterProvider: MeterProvider | undefined;
  if (readers.length) {
    meterProvider = new MeterProvider({ resource, readers });
    metrics.setGlobalMeterProvider(meterProvider);
  }
  let tracerProvider: BasicTracerProvider | undefined;
  if (otlp || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) {
    tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
    trace.setGlobalTracerProvider(tracerProvider);
    // a caller's traceparent makes the request's span its child
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    summary.push("traces: OTLP/HTTP");
  }
  const serializer = new PrometheusSerializer();
  return {
    prometheus: prometheus
      ? async () => {
          const { resourceMetrics } = await prometheus.collect();
          return serializer.serialize(resourceMetrics);
        }
      : undefined,
    summary,
    async shutdown() {
      await Promise.allSettled([meterProvider?.shutdown(), tracerProvider?.shutdown()]);
      metrics.disable();
      trace.disable();
      propagation.disable();
    },
  };
}
