// Bearer-token guard for /care and /agent. No token configured means every call is refused.
import { constantTimeEqual, type Middleware } from "@mountkit/core";
import { supportError } from "../errors.js";

export function bearer(token: string | undefined, realm: string): Middleware {
  const challenge = { "www-authenticate": `Bearer realm="${realm}"` };
  return async (ctx, next) => {
    const header = ctx.headers.authorization ?? "";
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!token || !m || !constantTimeEqual(m[1]!, token)) throw supportError("unauthorized", { headers: challenge });
    return next();
  };
}
