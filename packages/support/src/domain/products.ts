// The product registry: which products a host serves, through which backend, with which limits.
import { supportError } from "../errors.js";
import type { CustomerBackend } from "./backend.js";

export interface ProductLimits {
  /** Requests admitted per window per product (default 20). */
  rateLimit: number;
  /** Sliding-window length in ms (default 1000). */
  rateWindowMs: number;
  /**
   * Requests admitted per window per customer, inside the product's limit, so one client cannot take a
   * product's whole budget. Default: a quarter of `rateLimit`, at least 1 (5 of the default 20).
   */
  customerRateLimit: number;
  /** Concurrent SSE streams per customer (default 8). */
  maxStreamsPerCustomer: number;
  /**
   * New customer ids one client address may bring per `newCustomerWindowMs` (issue 24): a client that invents an
   * id per request is then one more customer, not all of them. An id is new until a request with it is admitted,
   * and again `knownCustomerMs` after that. Default: `customerRateLimit`.
   */
  newCustomerRateLimit: number;
  /** Window of `newCustomerRateLimit` in ms. Default: `rateWindowMs`. */
  newCustomerWindowMs: number;
  /** How long an admitted customer id counts as known, in ms (default 7 days). */
  knownCustomerMs: number;
  /**
   * Requests per window of the product's limit that new customer ids can never take, kept for known customers
   * against many addresses inventing ids at once. Default 0; below `rateLimit`.
   */
  knownCustomerReserve: number;
  /**
   * Requests per window one client address may make on this product, every customer id it sends together (so a
   * client cannot rotate through ids it made known). Default: no such limit, since many customers can share an
   * address (NAT, a proxy whose header is not configured).
   */
  addressRateLimit?: number;
}

export interface ProductConfig {
  slug: string;
  /** Display name; default the slug. */
  name?: string;
  /** Omitted: the service's built-in store. */
  backend?: CustomerBackend;
  limits?: Partial<ProductLimits>;
  /** Origins allowed to call interface A from a browser for this product (see `corsOrigins` of the service). */
  corsOrigins?: readonly string[];
  /**
   * The product's own bearer token of the Support SPI (`/care`): interface B and the webhook subscriptions
   * (`/care/webhooks`) of this product only. The service's `spiToken` speaks for `spiProduct`.
   */
  spiToken?: string;
  /**
   * Verified customers (docs/support.md#verified-customers): interface A admits a customerId of this product only with
   * its signature, hex HMAC-SHA256 of the id with this secret (`X-Customer-Signature`, or `customerSignature` in the
   * query); anything else answers 401 on every route, streams included. Unset: any customerId, as before.
   */
  verifySecret?: string;
}

export interface Product {
  slug: string;
  name: string;
  backend: CustomerBackend;
  /** True when served by this service's own store (agent side and SSE events come from here). */
  builtin: boolean;
  limits: ProductLimits;
  /** The secret its customerIds are signed with; undefined: anonymous customers. */
  verifySecret?: string;
}

/** Limits with a fixed default; the others derive from these (see `resolveLimits`). */
export const DEFAULT_LIMITS: Omit<ProductLimits, "customerRateLimit" | "newCustomerRateLimit" | "newCustomerWindowMs"> = {
  rateLimit: 20,
  rateWindowMs: 1000,
  maxStreamsPerCustomer: 8,
  knownCustomerMs: 7 * 24 * 3_600_000,
  knownCustomerReserve: 0,
};

/** The per-customer default: a quarter of the product's rate. */
export const defaultCustomerRateLimit = (rateLimit: number) => Math.max(1, Math.floor(rateLimit / 4));

/** A product's limits: its own over the service's defaults over the fixed ones, derived ones filled in, checked. */
function resolveLimits(slug: string, defaults: Partial<ProductLimits>, own: Partial<ProductLimits> = {}): ProductLimits {
  const merged = { ...DEFAULT_LIMITS, ...defaults, ...own };
  const customerRateLimit = merged.customerRateLimit ?? defaultCustomerRateLimit(merged.rateLimit);
  const limits: ProductLimits = {
    ...merged,
    customerRateLimit,
    newCustomerRateLimit: merged.newCustomerRateLimit ?? customerRateLimit,
    newCustomerWindowMs: merged.newCustomerWindowMs ?? merged.rateWindowMs,
  };
  const positive = [limits.rateLimit, limits.rateWindowMs, limits.maxStreamsPerCustomer, limits.customerRateLimit];
  positive.push(limits.newCustomerRateLimit, limits.newCustomerWindowMs, limits.knownCustomerMs, limits.addressRateLimit ?? 1);
  const reserve = limits.knownCustomerReserve;
  if (!positive.every((n) => n >= 1) || !(reserve >= 0 && reserve < limits.rateLimit))
    throw new Error(`invalid limits for product ${slug}`);
  return limits;
}

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface ProductRegistry {
  get(slug: string): Product | undefined;
  /** Throws `product_not_found` (404). */
  require(slug: string): Product;
  list(): Product[];
}

export function productRegistry(
  configs: readonly ProductConfig[],
  builtin: CustomerBackend,
  defaults: Partial<ProductLimits> = {},
): ProductRegistry {
  const bySlug = new Map<string, Product>();
  for (const c of configs) {
    if (!SLUG.test(c.slug)) throw new Error(`invalid product slug ${JSON.stringify(c.slug)}`);
    if (bySlug.has(c.slug)) throw new Error(`product ${c.slug} configured twice`);
    const limits = resolveLimits(c.slug, defaults, c.limits);
    if (c.verifySecret !== undefined && !c.verifySecret) throw new Error(`product ${c.slug}'s verifySecret is empty`);
    bySlug.set(c.slug, {
      slug: c.slug,
      name: c.name ?? c.slug,
      backend: c.backend ?? builtin,
      builtin: !c.backend || c.backend === builtin,
      limits,
      ...(c.verifySecret ? { verifySecret: c.verifySecret } : {}),
    });
  }
  return {
    get: (slug) => bySlug.get(slug),
    require(slug) {
      const p = bySlug.get(slug);
      if (!p) throw supportError("product_not_found");
      return p;
    },
    list: () => [...bySlug.values()],
  };
}
