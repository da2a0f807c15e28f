// Fetch-style handler `(Request) => Promise<Response>` for any fetch runtime (core's `toFetchHandler`), plus a
// node:http host for it built on the Node bridge. The root imports no `node:` module, so it loads on fetch runtimes.
export { type FetchHandlerOptions, toFetchHandler } from "@mountkit/core";
export { closeStreamsOnClose } from "@mountkit/node";
export { createFetchServer, type FetchServerOptions, nodeToRequest, type WriteResponseOptions, writeResponse } from "./server.js";
