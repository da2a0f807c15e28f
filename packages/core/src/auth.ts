// Who a bearer token speaks for: the verifier hook a host plugs into a service (the entries API's callers, the support
// service's agents), and the one bearer check every such guard runs, so each service only words its own 401.

export interface Principal {
  /** The token's subject (a JWT's `sub`): the caller's stable id. */
  sub: string;
  claims: Record<string, unknown>;
}

export interface TokenVerifier {
  /** Resolves the principal, or rejects with an AuthError saying why the token is refused. */
  verify(token: string): Promise<Principal>;
}

const AUTH_ERROR = Symbol.for("mountkit.AuthError");

/** A refused token. `message` goes to the client: it names the reason, never key material. */
export class AuthError extends Error {
  readonly [AUTH_ERROR] = true;
  constructor(message: string) {
    super(message);
    this.name = "AuthError";
  }
}

/** Recognises an AuthError by its brand, so a second install of the core still matches (as `isKitError`). */
export const isAuthError = (e: unknown): e is AuthError =>
  typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[AUTH_ERROR] === true;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined when the header is absent or of another form. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined;
}

/**
 * What a bearer check concluded: the principal, or why it refused. `presented` is false when no Authorization header
 * came at all (RFC 6750: the challenge then names no error); `cause` is a verifier failure that was not an AuthError
 * (a bug or an outage worth logging: the client only hears "could not be verified").
 */
export type BearerOutcome =
  | { ok: true; principal: Principal; token: string }
  | { ok: false; reason: string; presented: boolean; cause?: unknown };

/** Reads the bearer token of `header` and asks `verifier` who it speaks for. Never throws. */
export async function verifyBearer(header: string | undefined, verifier: TokenVerifier): Promise<BearerOutcome> {
  if (!header) return { ok: false, reason: "missing bearer token", presented: false };
  const token = bearerToken(header);
  if (!token) return { ok: false, reason: "authorization header must be `Bearer <token>`", presented: true };
  try {
    return { ok: true, principal: await verifier.verify(token), token };
  } catch (e) {
    if (isAuthError(e)) return { ok: false, reason: e.message, presented: true };
    return { ok: false, reason: "token could not be verified", presented: true, cause: e };
  }
}

/** The `WWW-Authenticate` value of a refusal (RFC 6750): `invalid_token` with its reason when a token was presented. */
export function bearerChallenge(realm: string, refusal?: { reason: string; presented: boolean }): string {
  if (!refusal?.presented) return `Bearer realm="${realm}"`;
  const safe = refusal.reason.replace(/["\\\r\n]/g, "");
  return `Bearer realm="${realm}", error="invalid_token", error_description="${safe}"`;
}
