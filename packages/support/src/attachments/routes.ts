// Upload and download routes of attachments: interface A's for customers (`/api/conversations/attachments`), the agent
// side's (`/agent/attachments`). Downloads are served so a browser never renders them as a page of the API's origin.
import { bytes, documented, json, type Middleware, type Route, route } from "@mountkit/core";
import * as z from "zod";
import { type AgentAuth, agentGuard } from "../http/agent-auth.js";
import { admit, type SupportContext } from "../http/context.js";
import { SIGNATURE_PARAM, SignatureQuery, signatureHeaderDoc, unverified, verifyCustomer } from "../http/customer-signature.js";
import { supportError } from "../errors.js";
import { CustomerId, ProductSlug, rateLimited } from "../routes/schemas.js";
import { attachmentError, type Attachments, type Uploader } from "./attachments.js";
import { AttachmentSchema } from "./schemas.js";
import { contentDisposition } from "./sniff.js";

const PUBLIC = "/api/conversations/attachments";
const AGENT = "/agent/attachments";
const err = (description: string) => ({ description });

const FileName = z.string().max(500).optional().describe("The file's name; made safe and given its type's extension");
const UploadQuery = z.object({ productSlug: ProductSlug, customerId: CustomerId, name: FileName });
const AgentUploadQuery = z.object({ productSlug: ProductSlug, name: FileName });
const DownloadQuery = z.object({ productSlug: ProductSlug, customerId: CustomerId, [SIGNATURE_PARAM]: SignatureQuery });
const AttachmentParam = z.object({ attachmentId: z.string().min(1).max(200) });
const SignedLinkQuery = z.object({
  expires: z.string().max(20).optional().describe("A signed link's expiry (Unix seconds); with `signature`, no bearer token is needed"),
  signature: z.string().max(100).optional().describe("A signed link's signature (docs/support.md#attachment-links)"),
});
/** Documents the raw body: any bytes, whatever Content-Type the client sends (the type is sniffed). */
const FileBody = z.any().meta({ type: "string", format: "binary", description: "The file's bytes" });

/**
 * What a download answers with: the sniffed type (text with its charset), `nosniff`, a CSP that lets nothing run
 * even if a browser opened it as a page (`sandbox`), inline only for images, and no shared caching.
 */
export const DOWNLOAD_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox",
  "cache-control": "private, no-store",
  "cross-origin-resource-policy": "cross-origin",
  "referrer-policy": "no-referrer",
};

const downloadDoc = {
  description: "The file, with its sniffed type",
  contentType: "application/octet-stream",
  headers: {
    "Content-Disposition": { description: "`inline` for images, `attachment` for every other type, with the file's name", required: true },
    "X-Content-Type-Options": { description: "`nosniff`", required: true },
    "Content-Security-Policy": { description: "`default-src 'none'; sandbox`: nothing in the file can run", required: true },
  },
};

const uploadResponses = (limits: Attachments["limits"]) => ({
  200: { description: "Stored: name it in a message's `attachments` within the pending time (default 1 hour)", schema: AttachmentSchema },
  400: err("Missing parameters, or an empty file"),
  404: err("No product for the slug"),
  408: err("Request body not received in time (`bodyTimeoutMs`, default 30 s); the connection is then closed"),
  413: err(`File over ${limits.maxBytes} bytes (\`attachments.maxBytes\`)`),
  415: err("Not a PNG, JPEG, GIF, WebP, PDF or plain-text file (read from the bytes, whatever the Content-Type says)"),
});
const customerUploadResponses = (limits: Attachments["limits"]) => ({
  ...uploadResponses(limits),
  ...rateLimited(
    `Rate limit exceeded, or the customer's ${limits.maxPerCustomerPerDay} uploads (\`attachments.maxPerCustomerPerDay\`) or ` +
      `${limits.maxBytesPerCustomerPerDay} bytes (\`attachments.maxBytesPerCustomerPerDay\`, uploads deleted since included) ` +
      "in 24 hours; `Retry-After` says when the oldest counted upload leaves the window",
  ),
});

/**
 * The agent download's guard: a signed link (`expires` and `signature`, docs/support.md#attachment-links) admits the
 * request for that file until it expires, without a bearer token; anything else goes to the agent guard. A link that
 * is expired, tampered with or for another file answers 401, as a missing token does.
 */
function signedOrAgent(att: Attachments, auth: AgentAuth): Middleware {
  const guard = agentGuard(auth);
  return documented(
    async (ctx, next) => {
      const q = ctx.query as Record<string, unknown>;
      if (q.signature === undefined && q.expires === undefined) return guard(ctx, next);
      const id = String((ctx.params as Record<string, unknown>).attachmentId ?? "");
      const ok = att.links !== undefined && typeof q.expires === "string" && typeof q.signature === "string";
      if (ok && (await att.links!.verify(id, q.expires as string, q.signature as string))) return next();
      throw supportError("unauthorized", { message: "the download link is expired or not valid" });
    },
    { responses: { 401: { description: "Bad or missing bearer token, or a signed link expired, altered or for another file" } } },
  );
}

async function serve(att: Attachments, id: string, by: Uploader, productSlug?: string) {
  const file = await att.read({ id, productSlug, by });
  if (!file) throw attachmentError("attachment_not_found");
  const { ref } = file;
  const type = ref.contentType === "text/plain" ? "text/plain; charset=utf-8" : ref.contentType;
  return bytes(200, file.bytes, type, { ...DOWNLOAD_HEADERS, "content-disposition": contentDisposition(ref.name, ref.contentType) });
}

export function attachmentRoutes(cx: SupportContext, att: Attachments): Route[] {
  const agentSide = { tags: ["agent"], security: ["agentBearer"], use: [agentGuard(cx.agentAuth)] };
  const raw = { bodyMode: "raw" as const, accepts: ["*/*"], bodyLimit: att.limits.maxBytes, body: FileBody };
  return [
    route({
      method: "POST",
      path: PUBLIC,
      operationId: "uploadAttachment",
      summary: "Upload a file (PNG, JPEG, GIF, WebP, PDF, plain text) to name in a message's `attachments`",
      description:
        "The body is the file's bytes, any Content-Type: the type is read from the bytes and only the allowed ones are stored. Uploads no message names are deleted after `pendingTtlMs` (default 1 hour).",
      tags: ["conversations"],
      requestHeaders: signatureHeaderDoc,
      query: UploadQuery,
      ...raw,
      responses: { ...customerUploadResponses(att.limits), ...unverified },
      async handler(ctx) {
        const { query } = ctx;
        const product = cx.products.require(query.productSlug);
        await verifyCustomer(product.verifySecret, query.customerId, ctx);
        await admit(cx, product, query.customerId, cx.clientAddress(ctx));
        return json(200, await att.upload({ product, by: { customerId: query.customerId }, name: query.name, bytes: ctx.rawBody }));
      },
    }),
    route({
      method: "GET",
      path: `${PUBLIC}/:attachmentId`,
      operationId: "downloadAttachment",
      summary: "Download a file of the customer's own messages (inline for images, else as a download)",
      tags: ["conversations"],
      requestHeaders: signatureHeaderDoc,
      params: AttachmentParam,
      query: DownloadQuery,
      responses: {
        200: downloadDoc,
        400: err("Missing parameters"),
        404: err("No such file for this customer"),
        ...unverified,
        ...rateLimited("Rate limit exceeded"),
      },
      async handler(ctx) {
        const { query, params } = ctx;
        const product = cx.products.require(query.productSlug);
        await verifyCustomer(product.verifySecret, query.customerId, ctx);
        await admit(cx, product, query.customerId, cx.clientAddress(ctx));
        return serve(att, params.attachmentId, { customerId: query.customerId }, query.productSlug);
      },
    }),
    route({
      ...agentSide,
      method: "POST",
      path: AGENT,
      operationId: "agentUploadAttachment",
      summary: "Upload a file to name in a reply's `attachments`",
      description: "As the customer's upload: the type is read from the bytes; no daily limit.",
      query: AgentUploadQuery,
      ...raw,
      responses: { ...uploadResponses(att.limits), 401: err("Bad or missing bearer token") },
      async handler(ctx) {
        const { query } = ctx;
        const product = cx.products.require(query.productSlug);
        return json(200, await att.upload({ product, by: { agent: true }, name: query.name, bytes: ctx.rawBody }));
      },
    }),
    route({
      ...agentSide,
      use: [signedOrAgent(att, cx.agentAuth)],
      method: "GET",
      path: `${AGENT}/:attachmentId`,
      operationId: "agentDownloadAttachment",
      summary: "Download any file of any conversation",
      description:
        "With the agent's bearer token, or without one through a signed link (`expires` and `signature`, given out by a backend such as GitHub's when `attachments.links` is set) until it expires.",
      params: AttachmentParam,
      query: SignedLinkQuery,
      responses: {
        200: downloadDoc,
        400: err("Malformed parameters"),
        401: err("Bad or missing bearer token, or a signed link expired, altered or for another file"),
        404: err("No such file"),
      },
      handler: async (ctx) => serve(att, ctx.params.attachmentId, { agent: true }),
    }),
  ];
}
