// Development mode: a generated HS256 secret and a ready-made token, when the host configured no identity provider.
import { base64url } from "jose";
import { DEFAULT_MAX_TOKEN_LIFETIME_SEC, jwtVerifier, signHs256 } from "./jwt.js";
import type { TokenVerifier } from "./verifier.js";

export const DEV_ISSUER = "mountkit-dev";

export async function devAuth(
  options: { sub?: string; secret?: string; expiresInSec?: number } = {},
): Promise<{ verifier: TokenVerifier; secret: string; token: string }> {
  const secret = options.secret ?? base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const expiresInSec = options.expiresInSec ?? 30 * 24 * 3600;
  // the development token lives longer than the default cap on token lifetimes: its own verifier allows what it issues
  const verifier = jwtVerifier({
    secret,
    issuer: DEV_ISSUER,
    maxTokenLifetimeSec: Math.max(DEFAULT_MAX_TOKEN_LIFETIME_SEC, expiresInSec),
  });
  const token = await signHs256(secret, { sub: options.sub ?? "dev-user", iss: DEV_ISSUER, expiresInSec });
  return { verifier, secret, token };
}
