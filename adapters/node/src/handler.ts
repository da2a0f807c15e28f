// Serving services on Node requests: dispatch through the bridge, the stream cap, the open streams to end on shutdown.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Service } from "@mountkit/core";
import { admitStream, DEFAULT_BODY_TIMEOUT_MS, dispatch, genericNotFound, streamGate } from "@mountkit/core/adapter";
import { failResponse, serviceList } from "./host.js";
import type { NodeBridgeOptions } from "./limits.js";
import { connectionSignal, toKitRequest } from "./request.js";
import { writeKitResponse } from "./response.js";
import { OpenStreams, type StreamCloser } from "./streams.js";

export interface NodeHandleOptions {
  /** Path relative to the mount point (frameworks that strip a prefix pass it here). */
  path?: string;
  /** The prefix the host mounted the kit under and stripped (Express's `req.baseUrl`): every link carries it. */
  mountPath?: string;
}

/**
 * Handles a Node request with the given services. Resolves `false` when no service owns the path
 * (the caller passes it on), `true` once a response was written.
 */
export function createNodeHandler(services: Service | readonly Service[], options: NodeBridgeOptions = {}): NodeHandler {
  const list = serviceList(services);
  const gate = streamGate(options.maxStreams);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const streams = new OpenStreams();
  const handleNode = async (req: IncomingMessage, res: ServerResponse, opts: NodeHandleOptions = {}): Promise<boolean> => {
    const conn = connectionSignal(res);
    const kreq = toKitRequest(req, { path: opts.path, mountPath: opts.mountPath, signal: conn, bodyTimeoutMs });
    const found = await dispatch(list, kreq);
    if (!found) return false;
    const k = found.stream ? admitStream(list, kreq, found, gate, conn.controller) : found;
    if (k.stream) streams.add(res, conn.controller);
    await writeKitResponse(res, k, k.stream ? conn.controller : undefined, options);
    return true;
  };
  return Object.assign(handleNode, { closeStreams: () => streams.closeStreams() });
}

/** Handles a Node request (see `createNodeHandler`); `closeStreams()` ends its open SSE streams. */
export interface NodeHandler extends StreamCloser {
  (req: IncomingMessage, res: ServerResponse, opts?: NodeHandleOptions): Promise<boolean>;
}

/** A plain `node:http` request listener; unowned paths answer a generic JSON 404. */
export function toNodeListener(services: Service | readonly Service[], options: NodeBridgeOptions = {}) {
  const handle = createNodeHandler(services, options);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).then(
      (handled) => {
        if (!handled) {
          const k = genericNotFound({ method: req.method ?? "GET", path: (req.url ?? "/").split("?")[0]! });
          res.writeHead(k.status, k.headers).end(k.body);
        }
      },
      () => failResponse(res),
    );
  };
  return Object.assign(listener, { closeStreams: handle.closeStreams });
}
