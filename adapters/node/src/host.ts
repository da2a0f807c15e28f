// What every Node host adapter needs beside the bridge: one list from `service` or `[a, b]`, and the owning service's
// own error body for the errors a host raises on the kit's paths (its body parser's, its router's).
import type { IncomingMessage, ServerResponse } from "node:http";
import { coreError, type KitError, type KitRequest, type KitResponse, type Service } from "@mountkit/core";
import { kitErrorResponse } from "@mountkit/core/adapter";

/** `service` or `[a, b]`, as the list the bridge dispatches over. */
export function serviceList(services: Service | readonly Service[]): readonly Service[] {
  return Array.isArray(services) ? services : [services as Service];
}

/**
 * The services' answer to an error the host raised before the kit read the request (`error` already
 * translated, e.g. by `hostParserError`): the first one that answers it, in its own error body, or null.
 * `stripPrefix` is a mount prefix still on the URL (Fastify's plugin prefix).
 */
export function hostErrorResponse(
  services: readonly Service[],
  req: IncomingMessage,
  error: KitError,
  stripPrefix = "",
): KitResponse | null {
  const target = errorTarget(req, stripPrefix);
  for (const s of services) {
    const k = s.errorResponse(target, error);
    if (k) return k;
  }
  return null;
}

function errorTarget(req: IncomingMessage, stripPrefix: string): Pick<KitRequest, "method" | "path" | "headers"> {
  let path = (req.url ?? "/").split("?")[0]!;
  if (stripPrefix && path.startsWith(stripPrefix)) path = path.slice(stripPrefix.length) || "/";
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  return { method: req.method ?? "GET", path, headers };
}

/** After a failure below the services (they answer their own errors): the kit's opaque 500, or drop a response already started. */
export function failResponse(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const k = kitErrorResponse(coreError("internal"));
  res.writeHead(k.status, k.headers).end(k.body);
}
