// Bearer-key authentication: resolves the request's brain into ctx.state.brainId, else 401.
import type { Middleware } from "@mountkit/core";
import { memoryError } from "../errors.js";
import type { MemoryStore } from "../store/types.js";
import { brainForKey } from "./keys.js";

export function requireApiKey(store: MemoryStore): Middleware {
  return async (ctx, next) => {
    const header = ctx.headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const brainId = m ? await brainForKey(store, m[1]!) : null;
    if (!brainId) {
      throw memoryError("unauthorized", {
        details: { reason: m ? "unknown or revoked key" : "expected Authorization: Bearer <API_KEY>" },
        headers: { "www-authenticate": 'Bearer realm="memory"' },
      });
    }
    ctx.state.brainId = brainId;
    return next();
  };
}

export const brainOf = (state: Record<string, unknown>): string => state.brainId as string;
