// Bearer-token guards for /care and /agent. No token configured means every call is refused.
import { constantTimeEqual, type Middleware } from "@mountkit/core";
import { supportError } from "../errors.js";

export function bearer(token: string | undefined, realm: string): Middleware {
  const challenge = { "www-authenticate": `Bearer realm="${realm}"` };
  return async (ctx, next) => {
    const header = ctx.headers.authorization ?? "";
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!token || !m || !constantTimeEqual(m[1]!, token)) throw supportError("unauthorized", { headers: challenge });
    return next();
  };
}

/** A token of the Support SPI and the product it speaks for (none when the service serves no product). */
export interface SpiToken {
  token: string;
  productSlug: string | undefined;
}

/** Where the SPI guard leaves the caller's product in the request's `state`. */
export const SPI_PRODUCT = "spiProduct";

/**
 * The SPI's guard: the bearer token names the product the call speaks for (the service's `spiToken` its
 * `spiProduct`, a product's own `spiToken` that product); a token of none answers 401.
 */
export function spiBearer(tokens: readonly SpiToken[], realm: string): Middleware {
  const challenge = { "www-authenticate": `Bearer realm="${realm}"` };
  return async (ctx, next) => {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(ctx.headers.authorization ?? "");
    let found: SpiToken | undefined;
    // every token compared, so the time taken does not tell which product's token came closest
    for (const t of tokens) if (m && constantTimeEqual(m[1]!, t.token) && !found) found = t;
    if (!found) throw supportError("unauthorized", { headers: challenge });
    ctx.state[SPI_PRODUCT] = found.productSlug;
    return next();
  };
}
