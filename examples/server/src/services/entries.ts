// The entries service configured from the environment (docs/entries.md#configuration): auth, validation address, spec-fetch policy.
import type { Clock, Logger } from "@mountkit/core";
import {
  AuthError,
  createEntriesService,
  devAuth,
  type EntriesService,
  type EntriesStore,
  firebaseVerifier,
  jwtVerifier,
  inMemoryEntriesStore,
  type TokenVerifier,
} from "@mountkit/entries";
import { entriesCatalogueScript } from "@mountkit/entries-catalogue";
import type { ModeDeps } from "../mode.js";
import { webhooksFromEnv } from "./webhooks.js";

/** Production without any AUTH_* variable: every call that needs a token is refused (no secret is made up). */
const refuseAll: TokenVerifier = {
  verify: () =>
    Promise.reject(new AuthError("no token verifier configured (set AUTH_JWKS_URL, AUTH_HS256_SECRET or AUTH_FIREBASE_PROJECT)")),
};

const list = (v: string | undefined) =>
  v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
const one = (l: string[] | undefined) => (l && l.length === 1 ? l[0] : l);

async function verifierFromEnv(env: NodeJS.ProcessEnv, deps: { logger: Logger; clock?: Clock } & ModeDeps): Promise<TokenVerifier> {
  const issuer = one(list(env.AUTH_ISSUER));
  const audience = one(list(env.AUTH_AUDIENCE));
  const allowTokensWithoutExp = env.AUTH_ALLOW_TOKENS_WITHOUT_EXP === "1";
  if (env.AUTH_FIREBASE_PROJECT) return firebaseVerifier({ projectId: env.AUTH_FIREBASE_PROJECT, clock: deps.clock });
  if (env.AUTH_JWKS_URL) {
    if (!issuer || !audience)
      deps.logger.warn("entries: AUTH_JWKS_URL without AUTH_ISSUER and AUTH_AUDIENCE accepts any token those keys signed");
    return jwtVerifier({ jwksUrl: env.AUTH_JWKS_URL, issuer, audience, allowTokensWithoutExp, clock: deps.clock });
  }
  if (env.AUTH_HS256_SECRET) {
    try {
      return jwtVerifier({ secret: env.AUTH_HS256_SECRET, issuer, audience, allowTokensWithoutExp, clock: deps.clock });
    } catch (e) {
      throw new Error(`AUTH_HS256_SECRET: ${(e as Error).message}`);
    }
  }
  if (deps.mode === "production") {
    deps.logger.warn("entries: no AUTH_* variable set; every call that needs a token is refused with 401");
    return refuseAll;
  }
  const dev = await devAuth();
  if (deps.credentials) deps.credentials.entriesToken = dev.token;
  else deps.logger.info("entries: no AUTH_* variable set, dev mode with a generated HS256 secret", { devToken: dev.token });
  return dev.verifier;
}

export async function entriesFromEnv(
  env: NodeJS.ProcessEnv,
  deps: { logger: Logger; clock?: Clock; selfUrl: () => string; store?: EntriesStore } & ModeDeps,
): Promise<EntriesService> {
  return createEntriesService({
    auth: await verifierFromEnv(env, deps),
    store: deps.store ?? inMemoryEntriesStore(),
    validator: { url: env.VALIDATE_URL || undefined, selfUrl: deps.selfUrl },
    // the spec lint ruleset (docs/entries.md#spec-linting): oas, off, or a Spectral ruleset file; off unless set, as
    // in the library: linting costs 15-40 times the validation, and a hostile document holds a process for its cap
    validation: { lint: { ruleset: env.ENTRIES_LINT_RULESET || "off" } },
    specFetch: { allowPrivate: env.SPEC_FETCH_ALLOW_PRIVATE === "1" },
    webhooks: webhooksFromEnv(env),
    // the API catalogue page at /api/dev/catalogue/ (read-only: it needs no token)
    catalogueScript: entriesCatalogueScript,
    logger: deps.logger,
    clock: deps.clock,
  });
}
