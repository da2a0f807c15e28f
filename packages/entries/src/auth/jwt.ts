// JWT verification with jose: HS256 (development) or an identity provider's JWKS; `none` and algorithm confusion refused.

import type { Clock } from "@mountkit/core";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import { AuthError, type Principal, type TokenVerifier } from "./verifier.js";

/** Asymmetric algorithms only: a JWKS verifier never accepts an HMAC token signed with a public key. */
export const ASYMMETRIC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

export interface JwtVerifierOptions {
  /** HMAC secret (HS256): development and simple deployments. */
  secret?: string | Uint8Array;
  /** The identity provider's JWKS URL: fetched on first use, cached, refetched when a token names an unknown `kid`. */
  jwksUrl?: string;
  /** A fixed JWKS instead of a URL. */
  jwks?: JSONWebKeySet;
  issuer?: string | string[];
  audience?: string | string[];
  /** Accepted clock difference for `exp`/`nbf`/`iat`, in seconds; default 30. */
  clockToleranceSec?: number;
  /** Override the accepted algorithms (defaults: HS256 for a secret, asymmetric ones for keys). */
  algorithms?: string[];
  /** Minimum time between JWKS refetches on unknown `kid`, ms; default 30 s. */
  jwksCooldownMs?: number;
  /** JWKS answers are reused at most this long, ms; default 10 min. */
  jwksMaxAgeMs?: number;
  /** Claims every token must carry, besides `sub` and `exp`. */
  requiredClaims?: string[];
  /**
   * Accept tokens without an `exp` claim. Off by default: such a token never expires, so one that leaks
   * works forever. Turn it on only for an identity provider that cannot issue expiring tokens.
   */
  allowTokensWithoutExp?: boolean;
  /**
   * Longest lifetime a token may have, in seconds: its `exp` at most this long after its `iat` (after now when it has
   * no `iat`), and its `iat` at most this long ago (jose's `maxTokenAge`). Default 86,400 (24 h): a token claiming
   * `exp: 1e300` would otherwise never expire. `Infinity` lifts the cap.
   */
  maxTokenLifetimeSec?: number;
  clock?: Clock;
  /** Extra checks on a verified payload; throw AuthError to refuse. */
  check?: (payload: JWTPayload, now: number) => void;
}

function describe(e: unknown): string {
  if (e instanceof AuthError) return e.message;
  if (e instanceof errors.JWTExpired) return "token expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "iss") return "token issuer not accepted";
    if (e.claim === "aud") return "token audience not accepted";
    if (e.claim === "nbf") return "token not yet valid";
    if (e.claim === "iat") return "token issued in the future";
    if (e.claim === "exp" && e.reason === "missing") return "token has no expiry (exp claim)";
    return `token claim ${e.claim} invalid: ${e.reason}`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return "token signature invalid";
  if (e instanceof errors.JOSEAlgNotAllowed) return "token algorithm not allowed";
  if (e instanceof errors.JWKSNoMatchingKey) return "no key matches the token";
  if (e instanceof errors.JWKSMultipleMatchingKeys) return "no single key matches the token";
  if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid) return "signing keys unavailable";
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid || e instanceof errors.JOSENotSupported) return "malformed token";
  return "token invalid";
}

/** Default `maxTokenLifetimeSec`: a day. */
export const DEFAULT_MAX_TOKEN_LIFETIME_SEC = 86_400;

/** Refuses a token whose `exp` lies further than `max` seconds after its `iat` (or after now without one). */
function checkLifetime(payload: JWTPayload, nowSec: number, max: number, tolerance: number): void {
  if (typeof payload.exp !== "number" || !Number.isFinite(max)) return;
  const from = typeof payload.iat === "number" ? payload.iat : nowSec;
  if (payload.exp - from > max + tolerance) throw new AuthError(`token lifetime exceeds the maximum of ${max} s`);
}

/** RFC 7518 section 3.2: an HS256 key must be at least as long as the hash output, 256 bits. */
export const MIN_HS256_SECRET_BYTES = 32;

export function jwtVerifier(o: JwtVerifierOptions): TokenVerifier {
  const sources = [o.secret !== undefined, o.jwksUrl !== undefined, o.jwks !== undefined].filter(Boolean).length;
  if (sources !== 1) throw new TypeError("jwtVerifier needs exactly one of secret, jwksUrl, jwks");
  if (o.secret !== undefined) {
    const bytes = typeof o.secret === "string" ? new TextEncoder().encode(o.secret).byteLength : o.secret.byteLength;
    if (bytes < MIN_HS256_SECRET_BYTES)
      throw new TypeError(
        `the HS256 secret is ${bytes} bytes; it must be at least ${MIN_HS256_SECRET_BYTES} (RFC 7518 section 3.2). Generate one with: openssl rand -base64 32`,
      );
  }
  const algorithms = o.algorithms ?? (o.secret !== undefined ? ["HS256"] : ASYMMETRIC_ALGORITHMS);
  const key =
    o.secret !== undefined
      ? typeof o.secret === "string"
        ? new TextEncoder().encode(o.secret)
        : o.secret
      : o.jwksUrl !== undefined
        ? createRemoteJWKSet(new URL(o.jwksUrl), { cooldownDuration: o.jwksCooldownMs ?? 30_000, cacheMaxAge: o.jwksMaxAgeMs ?? 600_000 })
        : createLocalJWKSet(o.jwks!);
  const tolerance = o.clockToleranceSec ?? 30;
  const maxLifetime = o.maxTokenLifetimeSec ?? DEFAULT_MAX_TOKEN_LIFETIME_SEC;
  if (!(maxLifetime > 0)) throw new TypeError(`maxTokenLifetimeSec must be a positive number of seconds; got ${maxLifetime}`);

  return {
    async verify(token) {
      const now = o.clock ? o.clock.now() : Date.now();
      try {
        if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) throw new AuthError("malformed token");
        const header = decodeProtectedHeader(token);
        // jose refuses these too; saying so explicitly gives a clear reason and does not depend on option defaults.
        if (typeof header.alg !== "string" || header.alg.toLowerCase() === "none") throw new AuthError("unsigned tokens are refused");
        if (!algorithms.includes(header.alg)) throw new AuthError("token algorithm not allowed");
        // jose's maxTokenAge makes `iat` required: it is asked only of tokens that carry one
        const hasIat = typeof decodeJwt(token).iat === "number";
        const { payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1], {
          algorithms,
          issuer: o.issuer,
          audience: o.audience,
          clockTolerance: tolerance,
          currentDate: new Date(now),
          requiredClaims: ["sub", ...(o.allowTokensWithoutExp ? [] : ["exp"]), ...(o.requiredClaims ?? [])],
          ...(hasIat && Number.isFinite(maxLifetime) ? { maxTokenAge: maxLifetime } : {}),
        });
        checkLifetime(payload, Math.floor(now / 1000), maxLifetime, tolerance);
        if (typeof payload.sub !== "string" || !payload.sub) throw new AuthError("token has no subject");
        o.check?.(payload, now);
        return { sub: payload.sub, claims: payload as Record<string, unknown> } satisfies Principal;
      } catch (e) {
        throw new AuthError(describe(e));
      }
    },
  };
}

/** Signs an HS256 token: development mode, tests, and the CLI's `--dev-secret`. */
export async function signHs256(
  secret: string | Uint8Array,
  claims: { sub: string; iss?: string; aud?: string | string[]; expiresInSec?: number; [k: string]: unknown },
  now: number = Date.now(),
): Promise<string> {
  const { sub, iss, aud, expiresInSec, ...rest } = claims;
  const key = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  let jwt = new SignJWT(rest)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt(Math.floor(now / 1000));
  jwt = jwt.setExpirationTime(Math.floor(now / 1000) + (expiresInSec ?? 3600));
  if (iss) jwt = jwt.setIssuer(iss);
  if (aud) jwt = jwt.setAudience(aud);
  return jwt.sign(key);
}
