// The support service from the environment (docs/support.md#configuration): SUPPORT_PRODUCTS, SUPPORT_RATE_LIMIT,
// SUPPORT_CUSTOMER_RATE_LIMIT, SUPPORT_SPI_TOKEN, SUPPORT_AGENT_TOKEN (or SUPPORT_AGENT_JWKS_URL / _HS256_SECRET for the host's
// own agent identities), SUPPORT_VERIFY_SECRET_<PRODUCT> for verified customers, the limits against rotating customer ids and where the
// client address comes from (`limitsFromEnv`); plus optional products on other backends (GitHub Issues, Slack, a remote
// SPI), each added only when its variables are set; attachments' limits and blob store from SUPPORT_ATTACHMENT_* (attachments.ts).
// Store, bus, rate limiter and the attachments' stores come from the app.
import type { Clock, Logger, Service } from "@mountkit/core";
import type { PubSub, RateLimiter } from "@mountkit/core/jobs";
import type { TokenVerifier } from "@mountkit/core";
import { jwtVerifier } from "@mountkit/entries";
import {
  type AttachmentOptions,
  createSupportService,
  githubBackend,
  type ProductConfig,
  type SupportStore,
  slackBackend,
  spiBackend,
} from "@mountkit/support";
import { supportInboxScript } from "@mountkit/support-inbox";
import { supportWidgetScript } from "@mountkit/support-widget";
import { attachmentsFromEnv } from "./attachments.js";
import { webhooksFromEnv } from "./webhooks.js";

const positiveInt = (raw: string | undefined, name: string, fallback: number): number => {
  const s = raw?.trim();
  if (!s) return fallback;
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
};

/**
 * The per-second limits and the client address: SUPPORT_RATE_LIMIT, SUPPORT_CUSTOMER_RATE_LIMIT, and against a client
 * inventing customer ids (issue 24) SUPPORT_NEW_CUSTOMER_RATE_LIMIT (new ids per client address, default the customer's
 * rate), SUPPORT_KNOWN_CUSTOMER_RESERVE (default 0), SUPPORT_ADDRESS_RATE_LIMIT (unset: none); behind the host's own
 * proxy SUPPORT_CLIENT_ADDRESS_HEADER and SUPPORT_TRUSTED_PROXIES (unset: the socket's address).
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv) {
  const raw = env.SUPPORT_RATE_LIMIT?.trim();
  const rate = raw ? Number(raw) : 20;
  if (!Number.isSafeInteger(rate) || rate < 1)
    throw new Error("SUPPORT_RATE_LIMIT must be a positive integer (requests per second per product)");
  const customerRate = positiveInt(env.SUPPORT_CUSTOMER_RATE_LIMIT, "SUPPORT_CUSTOMER_RATE_LIMIT", 5);
  const reserveRaw = env.SUPPORT_KNOWN_CUSTOMER_RESERVE?.trim();
  const reserve = reserveRaw ? Number(reserveRaw) : 0;
  if (!Number.isSafeInteger(reserve) || reserve < 0 || reserve >= rate)
    throw new Error("SUPPORT_KNOWN_CUSTOMER_RESERVE must be an integer from 0 to below SUPPORT_RATE_LIMIT");
  const address = env.SUPPORT_ADDRESS_RATE_LIMIT?.trim();
  const header = env.SUPPORT_CLIENT_ADDRESS_HEADER?.trim().toLowerCase() || undefined;
  if (header !== undefined && !/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(header))
    throw new Error("SUPPORT_CLIENT_ADDRESS_HEADER must be a header name such as x-forwarded-for");
  if (env.SUPPORT_TRUSTED_PROXIES?.trim() && !header) throw new Error("SUPPORT_TRUSTED_PROXIES needs SUPPORT_CLIENT_ADDRESS_HEADER");
  return {
    limits: {
      rateLimit: rate,
      customerRateLimit: customerRate,
      rateWindowMs: 1000,
      newCustomerRateLimit: positiveInt(env.SUPPORT_NEW_CUSTOMER_RATE_LIMIT, "SUPPORT_NEW_CUSTOMER_RATE_LIMIT", customerRate),
      newCustomerWindowMs: 1000,
      knownCustomerReserve: reserve,
      ...(address ? { addressRateLimit: positiveInt(address, "SUPPORT_ADDRESS_RATE_LIMIT", 1) } : {}),
    },
    ...(header
      ? { clientAddressHeader: header, trustedProxies: positiveInt(env.SUPPORT_TRUSTED_PROXIES, "SUPPORT_TRUSTED_PROXIES", 1) }
      : {}),
  };
}

/** SUPPORT_CORS_ORIGINS: `*` or comma-separated origins (`scheme://host[:port]`, nothing after). */
export function corsOriginsFromEnv(raw: string | undefined): "*" | string[] | undefined {
  const list = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.length) return undefined;
  if (list.includes("*")) return "*";
  for (const o of list) {
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {}
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== o)
      throw new Error(`SUPPORT_CORS_ORIGINS: ${JSON.stringify(o)} is not an origin such as https://shop.example or http://localhost:8080`);
  }
  return list;
}

/** Products on external backends, from their optional variables; each group is all-or-nothing. */
export function backendProductsFromEnv(env: NodeJS.ProcessEnv, logger: Logger): ProductConfig[] {
  const out: ProductConfig[] = [];
  const need = (group: string, names: string[]) => {
    const missing = names.filter((n) => !env[n]?.trim());
    if (missing.length) throw new Error(`${group}: ${missing.join(", ")} must be set as well`);
  };
  if (env.SUPPORT_GITHUB_REPO?.trim()) {
    need("SUPPORT_GITHUB_REPO", ["SUPPORT_GITHUB_TOKEN", "SUPPORT_GITHUB_WEBHOOK_SECRET"]);
    out.push({
      slug: env.SUPPORT_GITHUB_PRODUCT?.trim() || "github",
      backend: githubBackend({
        repo: env.SUPPORT_GITHUB_REPO.trim(),
        token: env.SUPPORT_GITHUB_TOKEN!.trim(),
        webhookSecret: env.SUPPORT_GITHUB_WEBHOOK_SECRET!,
        apiUrl: env.SUPPORT_GITHUB_API_URL?.trim() || undefined,
        botLogin: env.SUPPORT_GITHUB_BOT_LOGIN?.trim() || undefined,
        reconcileIntervalMs: positiveInt(env.SUPPORT_GITHUB_RECONCILE_SECONDS, "SUPPORT_GITHUB_RECONCILE_SECONDS", 300) * 1000,
      }),
    });
    logger.info(
      `support: product ${out.at(-1)!.slug} on GitHub Issues (${env.SUPPORT_GITHUB_REPO.trim()}), webhook at /agent/webhooks/github`,
    );
  }
  if (env.SUPPORT_SLACK_BOT_TOKEN?.trim()) {
    need("SUPPORT_SLACK_BOT_TOKEN", ["SUPPORT_SLACK_SIGNING_SECRET", "SUPPORT_SLACK_CHANNEL"]);
    out.push({
      slug: env.SUPPORT_SLACK_PRODUCT?.trim() || "slack",
      backend: slackBackend({
        botToken: env.SUPPORT_SLACK_BOT_TOKEN.trim(),
        signingSecret: env.SUPPORT_SLACK_SIGNING_SECRET!,
        channel: env.SUPPORT_SLACK_CHANNEL!.trim(),
        apiUrl: env.SUPPORT_SLACK_API_URL?.trim() || undefined,
        reconcileIntervalMs: positiveInt(env.SUPPORT_SLACK_RECONCILE_SECONDS, "SUPPORT_SLACK_RECONCILE_SECONDS", 300) * 1000,
      }),
    });
    logger.info(`support: product ${out.at(-1)!.slug} on Slack, Events API at /agent/webhooks/slack`);
  }
  if (env.SUPPORT_SPI_URL?.trim()) {
    need("SUPPORT_SPI_URL", ["SUPPORT_SPI_REMOTE_TOKEN"]);
    out.push({
      slug: env.SUPPORT_SPI_PRODUCT?.trim() || "remote",
      backend: spiBackend({
        baseUrl: env.SUPPORT_SPI_URL.trim(),
        token: env.SUPPORT_SPI_REMOTE_TOKEN!.trim(),
        pollIntervalMs: positiveInt(env.SUPPORT_SPI_POLL_MS, "SUPPORT_SPI_POLL_MS", 5000),
      }),
    });
    logger.info(`support: product ${out.at(-1)!.slug} on the remote SPI ${env.SUPPORT_SPI_URL.trim()}`);
  }
  return out;
}

/** The variable that holds a product's verify secret: `SUPPORT_VERIFY_SECRET_` and the slug upper-cased, `-` and `.` as `_`. */
export const verifySecretVariable = (slug: string) => `SUPPORT_VERIFY_SECRET_${slug.toUpperCase().replace(/[-.]/g, "_")}`;

/**
 * Verified customers (docs/support.md#verified-customers): each product whose SUPPORT_VERIFY_SECRET_<PRODUCT> is set
 * admits a customerId only with its HMAC-SHA256 signature under that secret.
 */
export function withVerifySecrets(
  products: ReadonlyArray<ProductConfig | string>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): ProductConfig[] {
  return products.map((p) => {
    const config = typeof p === "string" ? { slug: p } : p;
    const secret = env[verifySecretVariable(config.slug)];
    if (!secret) return config;
    logger.info(`support: product ${config.slug} verifies customers (${verifySecretVariable(config.slug)})`);
    return { ...config, verifySecret: secret };
  });
}

/**
 * Agents signed in with the host's own identity (docs/support.md#agent-identities), beside SUPPORT_AGENT_TOKEN: a JWT
 * checked against SUPPORT_AGENT_JWKS_URL or SUPPORT_AGENT_HS256_SECRET, with SUPPORT_AGENT_ISSUER and
 * SUPPORT_AGENT_AUDIENCE when set. Unset: the shared token only.
 */
export function agentVerifierFromEnv(env: NodeJS.ProcessEnv, logger: Logger): TokenVerifier | undefined {
  const issuer = env.SUPPORT_AGENT_ISSUER?.trim() || undefined;
  const audience = env.SUPPORT_AGENT_AUDIENCE?.trim() || undefined;
  if (env.SUPPORT_AGENT_JWKS_URL?.trim()) {
    if (!issuer || !audience)
      logger.warn(
        "support: SUPPORT_AGENT_JWKS_URL without SUPPORT_AGENT_ISSUER and SUPPORT_AGENT_AUDIENCE accepts any token those keys signed",
      );
    return jwtVerifier({ jwksUrl: env.SUPPORT_AGENT_JWKS_URL.trim(), issuer, audience });
  }
  if (env.SUPPORT_AGENT_HS256_SECRET) {
    try {
      return jwtVerifier({ secret: env.SUPPORT_AGENT_HS256_SECRET, issuer, audience });
    } catch (e) {
      throw new Error(`SUPPORT_AGENT_HS256_SECRET: ${(e as Error).message}`);
    }
  }
  return undefined;
}

export async function supportFromEnv(
  env: NodeJS.ProcessEnv,
  deps: { logger: Logger; clock?: Clock; store?: SupportStore; bus?: PubSub; limiter?: RateLimiter; attachments?: AttachmentOptions },
): Promise<Service> {
  const products = (env.SUPPORT_PRODUCTS ?? "demo")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!products.length) throw new Error("SUPPORT_PRODUCTS must name at least one product slug");
  const limits = limitsFromEnv(env);
  const spiToken = env.SUPPORT_SPI_TOKEN || undefined;
  const agentToken = env.SUPPORT_AGENT_TOKEN || undefined;
  const agentAuth = agentVerifierFromEnv(env, deps.logger);
  if (!spiToken) deps.logger.info("support: SUPPORT_SPI_TOKEN not set, /care refuses every call with 401");
  if (!agentToken && !agentAuth) deps.logger.info("support: SUPPORT_AGENT_TOKEN not set, /agent refuses every call with 401");
  const external = backendProductsFromEnv(env, deps.logger);
  for (const p of external)
    if (products.includes(p.slug)) throw new Error(`product ${p.slug} is in SUPPORT_PRODUCTS and on an external backend: pick one`);
  const corsOrigins = corsOriginsFromEnv(env.SUPPORT_CORS_ORIGINS);
  // the app passes the ones on its storage (attachments.ts); alone (tests), the limits and SUPPORT_ATTACHMENT_STORE=fs
  const attachments = deps.attachments ?? (await attachmentsFromEnv(env, { logger: deps.logger }));
  return createSupportService({
    attachments,
    ...(corsOrigins ? { corsOrigins } : {}),
    widgetScript: supportWidgetScript,
    // the agent inbox page at /agent/inbox/ (it signs in with SUPPORT_AGENT_TOKEN)
    inboxScript: supportInboxScript,
    // built-in products first: interface B (/care) serves the first product
    products: withVerifySecrets([...products, ...external], env, deps.logger),
    ...limits,
    spiToken,
    agentToken,
    ...(agentAuth ? { agentAuth } : {}),
    store: deps.store,
    bus: deps.bus,
    limiter: deps.limiter,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
    webhooks: webhooksFromEnv(env),
  });
}
