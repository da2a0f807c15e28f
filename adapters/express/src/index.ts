// Express middleware: glue over the Node bridge. Unowned paths fall through to the host's next handler.
import type { Server } from "node:http";
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import type { Service } from "@mountkit/core";
import { hostParserError } from "@mountkit/core/adapter";
import { closeStreamsOnClose, createNodeHandler, hostErrorResponse, type NodeBridgeOptions, serviceList } from "@mountkit/node";

/** What `mountkit()` returns: pass it to `app.use`; `attach(server)` wires shutdown. */
export type MountkitMiddleware = [RequestHandler, ErrorRequestHandler] & {
  /** Ends the kit's open SSE streams (call before `server.close()`, or let `attach` do it). */
  closeStreams(): void;
  /**
   * Makes `server.close()` end the kit's SSE streams first and close each connection once its response
   * is done, so `server.close(callback)` returns instead of waiting on streams that never finish.
   */
  attach<S extends Server>(server: S): S;
};

/**
 * `app.use(mountkit(service))` or `app.use("/prefix", mountkit([a, b]))`. Works whether or not the
 * host ran `express.json()` first: the second element answers that parser's errors (bad JSON, its
 * size limit) on the kit's paths with the service's own error body instead of Express's HTML page.
 */
export function mountkit(services: Service | readonly Service[], options: NodeBridgeOptions = {}): MountkitMiddleware {
  const list = serviceList(services);
  const handle = createNodeHandler(list, options);
  const middleware: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    // inside app.use("/prefix", ...) Express has already stripped the prefix from req.url
    handle(req, res, { mountPath: req.baseUrl }).then((handled) => {
      if (!handled) next();
    }, next);
  };
  const onHostError: ErrorRequestHandler = (err, req, res, next) => {
    const kitErr = hostParserError(err);
    const k = kitErr && !res.headersSent ? hostErrorResponse(list, req, kitErr) : null;
    if (k) res.writeHead(k.status, k.headers).end(k.body);
    else next(err);
  };
  const handlers: [RequestHandler, ErrorRequestHandler] = [middleware, onHostError];
  return Object.assign(handlers, {
    closeStreams: handle.closeStreams,
    attach: <S extends Server>(server: S) => closeStreamsOnClose(server, handle),
  });
}

export default mountkit;
