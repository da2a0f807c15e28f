// Bearer-token guard for /care and /agent. No token configured means every call is refused.
import type { Middleware } from "@mountkit/core";
import { supportError } from "../errors.js";

const encoder = new TextEncoder();

/** Compares in time that depends only on the expected token's length, never on where they differ. */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}

export function bearer(token: string | undefined, realm: string): Middleware {
  const challenge = { "www-authenticate": `Bearer realm="${realm}"` };
  return async (ctx, next) => {
    const header = ctx.headers.authorization ?? "";
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!token || !m || !constantTimeEqual(m[1]!, token)) throw supportError("unauthorized", { headers: challenge });
    return next();
  };
}
