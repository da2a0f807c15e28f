// Bearer-token middleware: 401 with a reason for a missing or refused token; the principal lands in ctx.state.
import { documented, type Middleware, type RequestContext } from "@mountkit/core";
import { entriesError, errorSchema } from "../errors.js";
import { AuthError, type Principal, type TokenVerifier } from "./verifier.js";

const BEARER = /^Bearer[ \t]+([^\s]+)\s*$/i;

export function requireAuth(verifier: TokenVerifier): Middleware {
  return documented(async (ctx, next) => {
    const header = ctx.headers.authorization;
    if (!header) throw unauthorized("missing bearer token", false);
    const m = BEARER.exec(header);
    if (!m) throw unauthorized("authorization header must be `Bearer <token>`");
    let principal: Principal;
    try {
      principal = await verifier.verify(m[1]!);
    } catch (e) {
      if (e instanceof AuthError) throw unauthorized(e.message);
      ctx.log.warn("token verifier failed", { requestId: ctx.requestId, error: e });
      throw unauthorized("token could not be verified");
    }
    ctx.state.principal = principal;
    return next();
  }, UNAUTHORIZED_DOC);
}

const UNAUTHORIZED_DOC = {
  responses: {
    401: {
      description: "Bearer token missing, malformed, expired, or with a wrong signature, issuer or audience",
      schema: errorSchema,
      headers: {
        "WWW-Authenticate": { description: "The Bearer challenge (RFC 6750), naming the reason when a token was sent.", required: true },
      },
    },
  },
};

/** RFC 6750: no error code when no credentials were sent, `invalid_token` with a description otherwise. */
function unauthorized(message: string, presented = true) {
  const safe = message.replace(/["\\\r\n]/g, "");
  const challenge = presented ? `Bearer realm="mountkit", error="invalid_token", error_description="${safe}"` : `Bearer realm="mountkit"`;
  return entriesError("unauthorized", { message, headers: { "www-authenticate": challenge } });
}

export function principalOf(ctx: RequestContext<any, any, any>): Principal {
  const p = ctx.state.principal as Principal | undefined;
  if (!p) throw entriesError("unauthorized", { message: "missing bearer token" });
  return p;
}
