// Bearer-token middleware: 401 with a reason for a missing or refused token; the principal lands in ctx.state.
import { bearerChallenge, documented, type Middleware, type RequestContext, verifyBearer } from "@mountkit/core";
import { entriesError, errorSchema } from "../errors.js";
import type { Principal, TokenVerifier } from "./verifier.js";

/** The bearer check is the core's (`verifyBearer`, shared with the support service's agent side); the 401 is ours. */
export function requireAuth(verifier: TokenVerifier): Middleware {
  return documented(async (ctx, next) => {
    const outcome = await verifyBearer(ctx.headers.authorization, verifier);
    if (!outcome.ok) {
      if (outcome.cause !== undefined) ctx.log.warn("token verifier failed", { requestId: ctx.requestId, error: outcome.cause });
      throw unauthorized(outcome.reason, outcome.presented);
    }
    ctx.state.principal = outcome.principal;
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
  return entriesError("unauthorized", {
    message,
    headers: { "www-authenticate": bearerChallenge("mountkit", { reason: message, presented }) },
  });
}

export function principalOf(ctx: RequestContext<any, any, any>): Principal {
  const p = ctx.state.principal as Principal | undefined;
  if (!p) throw entriesError("unauthorized", { message: "missing bearer token" });
  return p;
}
