// The one bridge between Node's IncomingMessage/ServerResponse and the core. No WHATWG objects on the hot path.
export { answerNodeRefusals, clientErrorHandler } from "./client-error.js";
export { waitDrain } from "./drain.js";
export { createNodeHandler, type NodeHandleOptions, type NodeHandler, toNodeListener } from "./handler.js";
export { failResponse, hostErrorResponse, serviceList } from "./host.js";
export { applyServerLimits, type NodeBridgeOptions, type ServerLimits, serverDefaults, serverOptions } from "./limits.js";
export { ConnectionAbort, connectionSignal, type LazySignal, toKitRequest } from "./request.js";
export { pipeToResponse, writeKitResponse } from "./response.js";
export { closeStreamsOnClose, OpenStreams, type StreamCloser } from "./streams.js";
