// Express middleware: glue over the Node bridge. Unowned paths fall through to the host's next handler.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { hostParserError, type Service } from "@mountkit/core";
import { createNodeHandler, type NodeBridgeOptions } from "@mountkit/node";

/**
 * `app.use(mountkit(service))` or `app.use("/prefix", mountkit([a, b]))`. Works whether or not the
 * host ran `express.json()` first: the second element answers that parser's errors (bad JSON, its
 * size limit) on the kit's paths with the service's own error body instead of Express's HTML page.
 */
export function mountkit(services: Service | readonly Service[], options: NodeBridgeOptions = {}): [RequestHandler, ErrorRequestHandler] {
  const list = Array.isArray(services) ? services : [services as Service];
  const handle = createNodeHandler(list, options);
  const middleware: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    // inside app.use("/prefix", ...) Express has already stripped the prefix from req.url
    handle(req, res, { mountPath: req.baseUrl }).then((handled) => {
      if (!handled) next();
    }, next);
  };
  const onHostError: ErrorRequestHandler = (err, req, res, next) => {
    const kitErr = hostParserError(err);
    if (!kitErr || res.headersSent) return next(err);
    const path = (req.url ?? "/").split("?")[0]!;
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    for (const s of list) {
      const k = s.errorResponse({ method: req.method, path, headers }, kitErr);
      if (k) {
        res.writeHead(k.status, k.headers).end(k.body);
        return;
      }
    }
    next(err);
  };
  return [middleware, onHostError];
}

export default mountkit;
