// Verified customers (docs/support.md#verified-customers): a product with a `verifySecret` admits a customerId only
// with its signature, HMAC-SHA256 of the id under that secret in hex (Intercom's identity verification, Chatwoot's
// `identifier_hash`), sent in `X-Customer-Signature` or, where no header can be set (EventSource), `customerSignature`.
import type { HeaderDoc } from "@mountkit/core";
import { constantTimeEqual } from "@mountkit/core";
import * as z from "zod";
import { supportError } from "../errors.js";

/** The header that carries the signature (lower-cased, as requests carry it). */
export const SIGNATURE_HEADER = "x-customer-signature";
/** The query parameter that carries it where a header cannot be set (an EventSource's stream). */
export const SIGNATURE_PARAM = "customerSignature";

const encoder = new TextEncoder();
const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** The signature a host computes for `customerId` (`crypto.createHmac("sha256", secret).update(id).digest("hex")`). */
export async function customerSignature(secret: string, customerId: string): Promise<string> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return hex(await crypto.subtle.sign("HMAC", await key, encoder.encode(customerId)));
}
/** Imported keys by secret: a deployment has a handful of products. */
const keys = new Map<string, Promise<CryptoKey>>();

/** Where a request's signature is read from: its headers and query. */
export interface SignatureSource {
  headers: Readonly<Record<string, string | undefined>>;
  query: unknown;
}

function presented(request: SignatureSource): string | undefined {
  const header = request.headers[SIGNATURE_HEADER]?.trim();
  if (header) return header;
  const q = (request.query ?? {}) as Record<string, unknown>;
  return typeof q[SIGNATURE_PARAM] === "string" ? q[SIGNATURE_PARAM] : undefined;
}

/**
 * The guard of a verified product: 401 unless the request carries the customerId's signature. A product without a
 * secret admits any id, as before. The comparison takes the same time wherever the strings differ.
 */
export async function verifyCustomer(secret: string | undefined, customerId: string, request: SignatureSource): Promise<void> {
  if (secret === undefined) return;
  const given = presented(request);
  const expected = await customerSignature(secret, customerId);
  // hex compares case-insensitively; the expected value is lower-case
  if (given === undefined || !constantTimeEqual(given.toLowerCase(), expected))
    throw supportError("unauthorized", {
      message: given === undefined ? "this product needs the customerId's signature" : "the customerId's signature does not match",
    });
}

/** The query parameter in a GET route's schema: any short string; a wrong one is the guard's 401, not a 400. */
export const SignatureQuery = z
  .string()
  .max(200)
  .optional()
  .describe(
    "The customerId's signature (hex HMAC-SHA256 of the id with the product's secret) for products that verify customers; the same as the `X-Customer-Signature` header, for clients that cannot set headers (EventSource)",
  );

/** The header, as documented on every interface A operation. */
export const signatureHeaderDoc: Record<string, HeaderDoc> = {
  "X-Customer-Signature": {
    description:
      "The customerId's signature: hex HMAC-SHA256 of the id with the product's secret. Required by products that verify customers (docs/support.md#verified-customers); ignored by the others",
    schema: { type: "string", maxLength: 200 },
  },
};

/** The 401 of every interface A operation. */
export const unverified = {
  401: { description: "The product verifies customers and the customerId's signature is missing or wrong" },
};
