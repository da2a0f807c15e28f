// Who an /agent call comes from (docs/support.md#agent-identities): the shared agent token, or the host's own identity
// through a verifier hook of the entries service's shape (`TokenVerifier` of `@mountkit/core`: a JWT/JWKS verifier, or
// the host's session lookup). The guard leaves the agent in the request's state for the routes to read.
import {
  bearerChallenge,
  bearerToken,
  constantTimeEqual,
  documented,
  type Middleware,
  type Principal,
  type RequestContext,
  type TokenVerifier,
  verifyBearer,
} from "@mountkit/core";
import { supportError } from "../errors.js";

/** The agent a call speaks for. */
export type Agent =
  /** Verified by the host's identity: a stable id (the token's `sub`) and a display name. */
  | { via: "identity"; id: string; name: string }
  /** The shared `agentToken`: no id; the reply names its author in its body. */
  | { via: "token"; id: null; name: null };

/** Where the guard leaves the agent in the request's `state`. */
export const AGENT_STATE = "supportAgent";

/** The display name of a verified agent: `name`, then `preferred_username`, then `email` claims, else the subject. */
export function defaultAgentName(p: Principal): string {
  for (const claim of ["name", "preferred_username", "email"]) {
    const v = p.claims[claim];
    if (typeof v === "string" && v.trim()) return v.trim().slice(0, 200);
  }
  return p.sub.slice(0, 200);
}

export interface AgentAuth {
  /** The shared bearer token (`agentToken`). */
  token?: string;
  /** The host's identity (`agentAuth`): tried when the bearer is not the shared token. */
  verifier?: TokenVerifier;
  /** The name a verified agent's replies carry (`agentName`); default {@link defaultAgentName}. */
  name?: (principal: Principal) => string;
}

const REALM = "support-agent";

/**
 * The /agent guard: the shared token (compared in constant time), else the verifier; 401 with the RFC 6750 challenge
 * when neither accepts the bearer, or when neither is configured.
 */
export function agentGuard(auth: AgentAuth): Middleware {
  const nameOf = auth.name ?? defaultAgentName;
  return documented(
    async (ctx, next) => {
      const header = ctx.headers.authorization;
      const token = bearerToken(header);
      if (auth.token && token !== undefined && constantTimeEqual(token, auth.token)) {
        ctx.state[AGENT_STATE] = { via: "token", id: null, name: null } satisfies Agent;
        return next();
      }
      if (!auth.verifier) throw supportError("unauthorized", { headers: { "www-authenticate": bearerChallenge(REALM) } });
      const outcome = await verifyBearer(header, auth.verifier);
      if (!outcome.ok) {
        if (outcome.cause !== undefined)
          ctx.log.warn("support: agent token verifier failed", { requestId: ctx.requestId, error: outcome.cause });
        throw supportError("unauthorized", { message: outcome.reason, headers: { "www-authenticate": bearerChallenge(REALM, outcome) } });
      }
      const name = nameOf(outcome.principal).trim().slice(0, 200) || outcome.principal.sub.slice(0, 200);
      ctx.state[AGENT_STATE] = { via: "identity", id: outcome.principal.sub.slice(0, 200), name } satisfies Agent;
      return next();
    },
    { responses: { 401: { description: "Bad or missing bearer token: neither the agent token nor an identity the host verifies" } } },
  );
}

/** The agent the guard admitted; the routes behind it only. */
export function agentOf(ctx: Pick<RequestContext, "state">): Agent {
  const a = ctx.state[AGENT_STATE] as Agent | undefined;
  if (!a) throw supportError("unauthorized");
  return a;
}
