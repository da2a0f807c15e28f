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
}

export interface Product {
  slug: string;
  name: string;
  backend: CustomerBackend;
  /** True when served by this service's own store (agent side and SSE events come from here). */
  builtin: boolean;
  limits: ProductLimits;
}

export const DEFAULT_LIMITS: Omit<ProductLimits, "customerRateLimit"> = { rateLimit: 20, rateWindowMs: 1000, maxStreamsPerCustomer: 8 };

/** The per-customer default: a quarter of the product's rate. */
export const defaultCustomerRateLimit = (rateLimit: number) => Math.max(1, Math.floor(rateLimit / 4));

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
    const merged = { ...DEFAULT_LIMITS, ...defaults, ...c.limits };
    const limits: ProductLimits = { ...merged, customerRateLimit: merged.customerRateLimit ?? defaultCustomerRateLimit(merged.rateLimit) };
    if (!(limits.rateLimit >= 1 && limits.rateWindowMs >= 1 && limits.maxStreamsPerCustomer >= 1 && limits.customerRateLimit >= 1))
      throw new Error(`invalid limits for product ${c.slug}`);
    bySlug.set(c.slug, {
      slug: c.slug,
      name: c.name ?? c.slug,
      backend: c.backend ?? builtin,
      builtin: !c.backend || c.backend === builtin,
      limits,
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
