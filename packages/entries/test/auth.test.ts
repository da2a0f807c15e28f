// Bearer JWT verification: HS256, JWKS (cached, refreshed on unknown kid), issuer/audience, skew, none and alg confusion.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { manualClock } from "@mountkit/core";
import { devAuth, firebaseIssuer, firebaseVerifier, jwtVerifier, signHs256 } from "@mountkit/entries";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SECRET = "test-secret-that-is-long-enough-for-hs256!";
const NOW = Date.UTC(2026, 0, 15, 12);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "accepted";
  } catch (e) {
    return (e as Error).message;
  }
}

describe("HS256 (development)", () => {
  const clock = manualClock(NOW);
  const v = jwtVerifier({ secret: SECRET, issuer: "iss-a", audience: "aud-a", clock });
  const sign = (claims: Record<string, unknown> = {}, secret = SECRET, now = NOW) =>
    signHs256(secret, { sub: "alice", iss: "iss-a", aud: "aud-a", ...claims } as never, now);

  it("accepts a good token; sub becomes the principal", async () => {
    const p = await v.verify(await sign());
    expect(p.sub).toBe("alice");
  });
  it("refuses wrong secret, issuer, audience", async () => {
    expect(await reason(v.verify(await sign({}, "another-secret-another-secret-another")))).toBe("token signature invalid");
    expect(await reason(v.verify(await sign({ iss: "iss-b" })))).toBe("token issuer not accepted");
    expect(await reason(v.verify(await sign({ aud: "aud-b" })))).toBe("token audience not accepted");
  });
  it("expiry with clock-skew tolerance (30 s default)", async () => {
    const t = await sign({ expiresInSec: 60 });
    clock.set(NOW + 60_000 + 20_000);
    expect((await v.verify(t)).sub).toBe("alice");
    clock.set(NOW + 60_000 + 31_000);
    expect(await reason(v.verify(t))).toBe("token expired");
    clock.set(NOW);
  });
  it("refuses a token without sub", async () => {
    const t = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("iss-a")
      .setAudience("aud-a")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));
    clock.set(Date.now());
    expect(await reason(v.verify(t))).toMatch(/sub|claim/);
    clock.set(NOW);
  });
  it("refuses malformed tokens and alg none", async () => {
    expect(await reason(v.verify("not-a-jwt"))).toBe("malformed token");
    expect(await reason(v.verify("a.b"))).toBe("malformed token");
    expect(await reason(v.verify("%%%.***.!!!"))).toBe("malformed token");
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "alice", iss: "iss-a", aud: "aud-a", exp: NOW / 1000 + 3600 })}.`;
    expect(await reason(v.verify(none))).toBe("unsigned tokens are refused");
    const noneUpper = `${b64({ alg: "NONE" })}.${b64({ sub: "alice" })}.`;
    expect(await reason(v.verify(noneUpper))).toBe("unsigned tokens are refused");
  });
  it("caps token lifetime: exp at most maxTokenLifetimeSec (default 24 h) after iat, or after now without iat", async () => {
    const raw = (claims: Record<string, unknown>) =>
      new SignJWT({ iss: "iss-a", aud: "aud-a", ...claims })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("alice")
        .sign(new TextEncoder().encode(SECRET));
    const nowSec = NOW / 1000;
    expect(await reason(v.verify(await raw({ exp: 1e300 })))).toBe("token lifetime exceeds the maximum of 86400 s");
    expect(await reason(v.verify(await raw({ exp: 1e300, iat: nowSec })))).toBe("token lifetime exceeds the maximum of 86400 s");
    expect(await reason(v.verify(await raw({ exp: nowSec + 25 * 3600 })))).toBe("token lifetime exceeds the maximum of 86400 s");
    expect(await reason(v.verify(await sign({ expiresInSec: 25 * 3600 })))).toBe("token lifetime exceeds the maximum of 86400 s");
    expect((await v.verify(await sign({ expiresInSec: 23 * 3600 }))).sub).toBe("alice");
    expect((await v.verify(await raw({ exp: nowSec + 23 * 3600 }))).sub).toBe("alice");
    // issued two days ago with a day left: older than the cap (jose's maxTokenAge), and longer-lived than it
    expect(await reason(v.verify(await raw({ iat: nowSec - 2 * 86_400, exp: nowSec + 86_400 })))).toMatch(/expired|lifetime/);
    const hourly = jwtVerifier({ secret: SECRET, issuer: "iss-a", audience: "aud-a", clock, maxTokenLifetimeSec: 3600 });
    expect(await reason(hourly.verify(await sign({ expiresInSec: 2 * 3600 })))).toBe("token lifetime exceeds the maximum of 3600 s");
    expect((await hourly.verify(await sign({ expiresInSec: 3000 }))).sub).toBe("alice");
    const uncapped = jwtVerifier({
      secret: SECRET,
      issuer: "iss-a",
      audience: "aud-a",
      clock,
      maxTokenLifetimeSec: Number.POSITIVE_INFINITY,
    });
    expect((await uncapped.verify(await raw({ exp: 1e300 }))).sub).toBe("alice");
    expect(() => jwtVerifier({ secret: SECRET, maxTokenLifetimeSec: 0 })).toThrow(/maxTokenLifetimeSec/);
  });
  it("refuses a token without exp unless the host opts in", async () => {
    const noExp = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setIssuer("iss-a")
      .setAudience("aud-a")
      .setIssuedAt(Math.floor(NOW / 1000))
      .sign(new TextEncoder().encode(SECRET));
    expect(await reason(v.verify(noExp))).toBe("token has no expiry (exp claim)");
    const lenient = jwtVerifier({ secret: SECRET, issuer: "iss-a", audience: "aud-a", clock, allowTokensWithoutExp: true });
    expect((await lenient.verify(noExp)).sub).toBe("alice");
    // opting in does not lift expiry for tokens that do carry exp
    clock.set(NOW + 2 * 3600_000);
    expect(await reason(lenient.verify(await sign({ expiresInSec: 60 })))).toBe("token expired");
    clock.set(NOW);
  });
  it("refuses an HS256 secret shorter than 32 bytes at construction, naming the minimum", () => {
    expect(() => jwtVerifier({ secret: "x".repeat(31) })).toThrow(/31 bytes; it must be at least 32/);
    expect(() => jwtVerifier({ secret: new Uint8Array(16) })).toThrow(/16 bytes/);
    // counted in bytes, not characters: 16 two-byte characters are enough
    expect(() => jwtVerifier({ secret: "é".repeat(16) })).not.toThrow();
    expect(() => jwtVerifier({ secret: "x".repeat(32) })).not.toThrow();
  });
  it("devAuth yields a verifier and a token it accepts", async () => {
    const dev = await devAuth();
    expect((await dev.verifier.verify(dev.token)).sub).toBe("dev-user");
    expect(dev.secret.length).toBeGreaterThanOrEqual(32);
  });
});

describe("JWKS from the identity provider's URL", () => {
  let server: Server;
  let url = "";
  let served: JWK[] = [];
  let fetches = 0;
  let rsa1: CryptoKeyPair;
  let rsa2: CryptoKeyPair;
  let rsaPublicJwk: JWK;

  beforeAll(async () => {
    rsa1 = await generateKeyPair("RS256", { extractable: true });
    rsa2 = await generateKeyPair("RS256", { extractable: true });
    rsaPublicJwk = { ...(await exportJWK(rsa1.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    served = [rsaPublicJwk];
    server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const signRs = (key: CryptoKey, kid: string, claims: Record<string, unknown> = {}) =>
    new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "RS256", kid })
      .setSubject("bob")
      .setIssuer("https://idp.example")
      .setAudience("catalogue")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(key);

  it("verifies RS256, caches the JWKS, and refetches once for an unknown kid (key rotation)", async () => {
    const v = jwtVerifier({ jwksUrl: url, issuer: "https://idp.example", audience: "catalogue", jwksCooldownMs: 0 });
    expect((await v.verify(await signRs(rsa1.privateKey, "k1"))).sub).toBe("bob");
    expect((await v.verify(await signRs(rsa1.privateKey, "k1"))).sub).toBe("bob");
    expect(fetches).toBe(1);
    served = [rsaPublicJwk, { ...(await exportJWK(rsa2.publicKey)), kid: "k2", alg: "RS256", use: "sig" }];
    expect((await v.verify(await signRs(rsa2.privateKey, "k2"))).sub).toBe("bob");
    expect(fetches).toBe(2);
  });

  it("refuses a token signed by a key the JWKS does not hold", async () => {
    const stranger = await generateKeyPair("RS256");
    const v = jwtVerifier({ jwksUrl: url, issuer: "https://idp.example", audience: "catalogue", jwksCooldownMs: 0 });
    expect(await reason(v.verify(await signRs(stranger.privateKey, "k1")))).toBe("token signature invalid");
    expect(await reason(v.verify(await signRs(stranger.privateKey, "k9")))).toBe("no key matches the token");
  });

  it("refuses algorithm confusion: HS256 signed with the RSA public key as the secret", async () => {
    const v = jwtVerifier({ jwksUrl: url, issuer: "https://idp.example", audience: "catalogue" });
    const pem = JSON.stringify(rsaPublicJwk);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .setSubject("mallory")
      .setIssuer("https://idp.example")
      .setAudience("catalogue")
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(pem));
    expect(await reason(v.verify(forged))).toBe("token algorithm not allowed");
  });

  it("wrong issuer and audience are refused with JWKS too", async () => {
    const v = jwtVerifier({ jwksUrl: url, issuer: "https://other-idp.example", audience: "catalogue" });
    expect(await reason(v.verify(await signRs(rsa1.privateKey, "k1")))).toBe("token issuer not accepted");
    const w = jwtVerifier({ jwksUrl: url, issuer: "https://idp.example", audience: ["other"] });
    expect(await reason(w.verify(await signRs(rsa1.privateKey, "k1")))).toBe("token audience not accepted");
  });

  it("Firebase preset: issuer securetoken.google.com/<project>, audience <project>, RS256, auth_time checked", async () => {
    const v = firebaseVerifier({ projectId: "demo-project", jwksUrl: url });
    const token = (claims: Record<string, unknown>, iss = firebaseIssuer("demo-project"), aud = "demo-project") =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setSubject("uid-1")
        .setIssuer(iss)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(rsa1.privateKey);
    const now = Math.floor(Date.now() / 1000);
    expect((await v.verify(await token({ auth_time: now - 10 }))).sub).toBe("uid-1");
    expect(await reason(v.verify(await token({ auth_time: now + 3600 })))).toBe("token auth_time invalid");
    expect(await reason(v.verify(await token({ auth_time: now }, firebaseIssuer("other-project"))))).toBe("token issuer not accepted");
    expect(await reason(v.verify(await token({ auth_time: now }, firebaseIssuer("demo-project"), "other-project")))).toBe(
      "token audience not accepted",
    );
    expect(firebaseIssuer("demo-project")).toBe("https://securetoken.google.com/demo-project");
  });
});
