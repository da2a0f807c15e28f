// A handler's result as the wire response adapters write: JSON, text, empty or SSE frames.
import { type KitRequest, type KitResponse, SSE_HEADERS, withMountPrefix } from "./http.js";
import { type HandlerResult, isBytesResult, isChunksResult, isJsonResult, isSseResult, isTextResult } from "./route.js";
import { sseFrames } from "./sse.js";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * The wire response. `requestId` goes out as X-Request-Id when there is one (see Context.requestId);
 * a root-relative Location or Link gets the host's mount prefix in front.
 */
export function serialise(result: HandlerResult, request: KitRequest, requestId: string | undefined): KitResponse {
  const out = serialiseResult(result, request, requestId);
  return request.mountPath && (out.headers.location !== undefined || out.headers.link !== undefined)
    ? withMountPrefix(out, request.mountPath)
    : out;
}

function serialiseResult(result: HandlerResult, request: KitRequest, requestId: string | undefined): KitResponse {
  const id = requestId === undefined ? undefined : { "x-request-id": requestId };
  if (isSseResult(result)) {
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...result.headers, ...id },
      stream: sseFrames(result.sse.events, { retryMs: result.sse.retryMs, heartbeatMs: result.sse.heartbeatMs, signal: request.signal }),
    };
  }
  const head = request.method === "HEAD";
  if (isJsonResult(result)) {
    // the common cases as one literal each: adding a property later grows the object's backing store
    const headers =
      result.headers || requestId === undefined
        ? { ...result.headers, ...id, "content-type": JSON_TYPE }
        : { "x-request-id": requestId, "content-type": JSON_TYPE };
    return { status: result.status, headers, body: head ? undefined : JSON.stringify(result.json) };
  }
  if (isTextResult(result)) {
    const headers = { ...result.headers, ...id, "content-type": result.contentType };
    return { status: result.status, headers, body: head ? undefined : result.text };
  }
  if (isBytesResult(result)) {
    const headers = { ...result.headers, ...id, "content-type": result.contentType };
    return { status: result.status, headers, body: head ? undefined : result.bytes };
  }
  if (isChunksResult(result)) {
    const headers = { ...result.headers, ...id, "content-type": result.contentType, "cache-control": "no-store" };
    return head ? { status: result.status, headers } : { status: result.status, headers, stream: result.chunks };
  }
  return { status: result.status, headers: { ...result.headers, ...id } };
}
