// Preset for Firebase Authentication ID tokens, the identity provider of the hosted original.
import type { Clock } from "@mountkit/core";
import { jwtVerifier } from "./jwt.js";
import { AuthError, type TokenVerifier } from "./verifier.js";

/** Google's published signing keys for Firebase ID tokens, as a JWKS. */
export const FIREBASE_JWKS_URL = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com";

export function firebaseIssuer(projectId: string): string {
  return `https://securetoken.google.com/${projectId}`;
}

export function firebaseVerifier(options: {
  projectId: string;
  clock?: Clock;
  clockToleranceSec?: number;
  jwksUrl?: string;
}): TokenVerifier {
  if (!/^[a-z0-9-]{4,64}$/.test(options.projectId)) throw new TypeError(`invalid Firebase project id ${JSON.stringify(options.projectId)}`);
  const tolerance = options.clockToleranceSec ?? 30;
  return jwtVerifier({
    jwksUrl: options.jwksUrl ?? FIREBASE_JWKS_URL,
    issuer: firebaseIssuer(options.projectId),
    audience: options.projectId,
    algorithms: ["RS256"],
    clock: options.clock,
    clockToleranceSec: tolerance,
    requiredClaims: ["iat", "exp"],
    // Firebase documents these beyond iss/aud/exp: a non-empty sub of at most 128 chars, auth_time in the past.
    check(payload, now) {
      if (typeof payload.sub === "string" && payload.sub.length > 128) throw new AuthError("token subject too long");
      const authTime = payload.auth_time;
      if (typeof authTime !== "number" || authTime * 1000 > now + tolerance * 1000) throw new AuthError("token auth_time invalid");
    },
  });
}
