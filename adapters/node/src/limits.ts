// The limits a stalled or flooding client runs into: the kit's own on the bridge (body deadline, open streams,
// slow stream readers), and the connection-level ones of a node:http server (timeouts, connection cap).
import type { Server } from "node:http";
import type { StreamGate } from "@mountkit/core/adapter";
import { answerNodeRefusals } from "./client-error.js";

export interface ServerLimits {
  /** Time to receive the request headers (slowloris). Node's default is 60 s. */
  headersTimeout: number;
  /** Time to receive the whole request, headers and body. Node's default is 300 s; Fastify's is none. */
  requestTimeout: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeout: number;
  /** A socket with no traffic either way for this long is closed (SSE streams ping every 15 s). 0 disables it. */
  timeout: number;
  /** Open connections at once; past it Node closes new sockets at once instead of running out of file descriptors. */
  maxConnections: number;
}

/**
 * The limits the example server and `createFetchServer` use, and that a host can apply to its own server.
 * The kit's own body deadline (30 s, `bodyTimeoutMs`) sits below `requestTimeout` so a stalled upload on
 * a kit route gets the service's 408 body rather than Node's bare one.
 */
export const serverDefaults: Readonly<ServerLimits> = Object.freeze({
  headersTimeout: 20_000,
  requestTimeout: 60_000,
  keepAliveTimeout: 5_000,
  timeout: 120_000,
  maxConnections: 10_000,
});

/**
 * Options for `http.createServer(serverOptions, ...)` (Fastify: `Fastify({ http: serverOptions })`).
 * Node enforces `headersTimeout` and `requestTimeout` only when it sweeps its connections, every 30 s
 * by default, which can leave a stalled socket open for 30 s past its deadline; this sweeps every 5 s.
 * It can only be set when the server is created.
 */
export const serverOptions: Readonly<{ connectionsCheckingInterval: number }> = Object.freeze({ connectionsCheckingInterval: 5_000 });

/**
 * Sets {@link serverDefaults} (or `overrides`) on a node:http server: `applyServerLimits(server)`,
 * `applyServerLimits(fastify.server)` right after `Fastify()`. Returns the server. It also makes the requests
 * Node refuses by itself (no Host, an unknown Expect) answer in the kit's error body (`answerNodeRefusals`).
 */
export function applyServerLimits<S extends Server>(server: S, overrides: Partial<ServerLimits> = {}): S {
  const l = { ...serverDefaults, ...overrides };
  if (l.headersTimeout > l.requestTimeout && l.requestTimeout > 0)
    throw new RangeError(`headersTimeout (${l.headersTimeout}) must not exceed requestTimeout (${l.requestTimeout})`);
  server.headersTimeout = l.headersTimeout;
  server.requestTimeout = l.requestTimeout;
  server.keepAliveTimeout = l.keepAliveTimeout;
  server.setTimeout(l.timeout);
  server.maxConnections = l.maxConnections;
  return answerNodeRefusals(server);
}

export interface NodeBridgeOptions {
  /**
   * Bytes an SSE response may have queued in memory for a slow client before the client is dropped
   * (a stalled client must not hold memory forever). Default 1 MiB.
   */
  maxStreamBuffer?: number;
  /** How long to wait for `drain` on a stream before dropping the client. Default 30 s. */
  drainTimeoutMs?: number;
  /**
   * How long a request body may take to arrive once a route reads it. Past it the route answers 408
   * and the connection closes, so a stalled upload frees its socket even on a host's server that sets
   * no timeouts. Default 30 s.
   */
  bodyTimeoutMs?: number;
  /** Open SSE streams at once, a number or a `StreamGate` shared with other mounts; then 503. Default 5,000. */
  maxStreams?: number | StreamGate;
}
