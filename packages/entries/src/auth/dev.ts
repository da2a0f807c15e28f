// Development mode: a generated HS256 secret and a ready-made token, when the host configured no identity provider.
import { base64url } from "jose";
import { jwtVerifier, signHs256 } from "./jwt.js";
import type { TokenVerifier } from "./verifier.js";

export const DEV_ISSUER = "mountkit-dev";

export async function devAuth(
  options: { sub?: string; secret?: string; expiresInSec?: number } = {},
): Promise<{ verifier: TokenVerifier; secret: string; token: string }> {
  const secret = options.secret ?? base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const verifier = jwtVerifier({ secret, issuer: DEV_ISSUER });
  const token = await signHs256(secret, {
    sub: options.sub ?? "dev-user",
    iss: DEV_ISSUER,
    expiresInSec: options.expiresInSec ?? 30 * 24 * 3600,
  });
  return { verifier, secret, token };
}
