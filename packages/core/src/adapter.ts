// @mountkit/core/adapter: what a host bridge needs and a service author does not: the plain request and
// response, dispatch across services, body and stream limits, and the WHATWG conversions.
export { DEFAULT_BODY_LIMIT } from "./body.js";
export { fromWebRequest, toWebResponse, webStreamChunks, withDeadline, withRawTarget, withRemoteAddress } from "./fetch.js";
export {
  type BodySource,
  genericNotFound,
  type KitRequest,
  type KitResponse,
  kitErrorResponse,
  normaliseHeaders,
  normaliseMountPath,
  SSE_HEADERS,
  targetPath,
  targetQuery,
  withMountPrefix,
} from "./http.js";
export {
  admitStream,
  bodyTimeoutError,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_STREAM_BUFFER,
  DEFAULT_MAX_STREAMS,
  StreamGate,
  streamGate,
} from "./limits.js";
export { dispatch, hostParserError } from "./service.js";
