// Writing to a ServerResponse: a KitResponse with a body in one write, or a stream chunk by chunk. `pipeToResponse`
// is the one streaming path of every Node host here (the bridge's SSE and the fetch host's Response bodies).
import type { ServerResponse } from "node:http";
import type { KitResponse } from "@mountkit/core";
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_MAX_STREAM_BUFFER } from "@mountkit/core/adapter";
import { waitDrain } from "./drain.js";
import type { NodeBridgeOptions } from "./limits.js";

/** Writes a KitResponse. Streams flush every frame, honour `drain`, and drop stalled clients. */
export async function writeKitResponse(
  res: ServerResponse,
  k: KitResponse,
  abort: AbortController | undefined,
  options: NodeBridgeOptions = {},
): Promise<void> {
  if (!k.stream || !abort) {
    res.writeHead(
      k.status,
      k.body !== undefined ? { ...k.headers, "content-length": String(Buffer.byteLength(k.body as string | Uint8Array)) } : k.headers,
    );
    res.end(k.body);
    return;
  }
  // set one by one, not through writeHead: a host that looks for its streams (graceful shutdown,
  // compression filters) finds them with res.getHeader("content-type")
  for (const [name, value] of Object.entries(k.headers)) res.setHeader(name, value);
  res.writeHead(k.status);
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  await pipeToResponse(res, k.stream[Symbol.asyncIterator](), options, abort);
}

/**
 * Writes the chunks of `source` as they come, after the head. Each is flushed (`res.flush?.()`, so compression
 * cannot hold it back); a full buffer waits for `drain`, and a client that let more than `maxStreamBuffer` bytes
 * queue up or did not read within `drainTimeoutMs` is dropped (issue #10, break 6). Stops when `stop` aborts or
 * the response is gone. At the end `stop` is aborted, `source` ended and the response finished.
 */
export async function pipeToResponse(
  res: ServerResponse,
  source: AsyncIterator<string | Uint8Array>,
  options: Pick<NodeBridgeOptions, "maxStreamBuffer" | "drainTimeoutMs"> = {},
  stop?: AbortController,
): Promise<void> {
  const maxBuffer = options.maxStreamBuffer ?? DEFAULT_MAX_STREAM_BUFFER;
  const drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  try {
    for (;;) {
      if (stop?.signal.aborted || res.destroyed) break;
      const r = await source.next();
      if (r.done || stop?.signal.aborted || res.destroyed) break;
      const ok = res.write(r.value);
      (res as ServerResponse & { flush?: () => void }).flush?.();
      if (!ok && (res.writableLength > maxBuffer || !(await waitDrain(res, drainTimeout)))) {
        res.destroy();
        break;
      }
    }
  } catch {
    // a source failing mid-stream ends the stream; an SSE client reconnects with Last-Event-ID
  } finally {
    stop?.abort();
    await source.return?.();
    if (!res.destroyed && !res.writableEnded) res.end();
  }
}
