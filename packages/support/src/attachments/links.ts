// Signed, expiring download links of attachments (docs/support.md#attachment-links): a capability URL on the agent
// download route, `GET /agent/attachments/{id}?expires=&signature=`, that works without the agent token until it
// expires, so a backend that shows files elsewhere (a GitHub comment) can link them without making them public.
import { type Clock, constantTimeEqual } from "@mountkit/core";
import type { AttachmentRef } from "./types.js";

export interface AttachmentLinkOptions {
  /**
   * The HMAC-SHA256 key of the links, at least 32 characters; keep it out of the repository. Changing it voids every
   * link given out (the way to revoke them all). Every process of the service needs the same one.
   */
  secret: string;
  /**
   * Where a browser reaches this service's routes: its public origin and the host's mount path, without a trailing
   * slash (`https://support.example.com`, `https://example.com/support`). Links read `${publicUrl}/agent/attachments/…`.
   */
  publicUrl: string;
  /** How long a link works, in ms; default 30 days. After it, agents download with their token (`GET /agent/attachments/{id}`). */
  ttlMs?: number;
}

export interface AttachmentLinks {
  /** A link to this file that works until `now + ttlMs`. */
  url(ref: Pick<AttachmentRef, "id">): Promise<string>;
  /** Whether `signature` is this service's for the file and `expires` (Unix seconds), and the link has not expired. */
  verify(id: string, expires: string, signature: string): Promise<boolean>;
}

export const DEFAULT_LINK_TTL_MS = 30 * 86_400_000;
const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The links of one service; throws on a secret too short to be one or a public URL that is not http(s). */
export function attachmentLinks(options: AttachmentLinkOptions, clock: Clock): AttachmentLinks {
  if (typeof options.secret !== "string" || options.secret.length < 32)
    throw new Error("attachments.links.secret must be at least 32 characters");
  let base: URL;
  try {
    base = new URL(options.publicUrl);
  } catch {
    throw new Error(`attachments.links.publicUrl must be an absolute http(s) URL, got ${JSON.stringify(options.publicUrl)}`);
  }
  if (!/^https?:$/.test(base.protocol) || base.search || base.hash)
    throw new Error(`attachments.links.publicUrl must be an http(s) URL without query or fragment, got ${JSON.stringify(options.publicUrl)}`);
  const prefix = base.href.replace(/\/+$/, "");
  const ttlMs = options.ttlMs ?? DEFAULT_LINK_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new Error("attachments.links.ttlMs must be a positive number");
  const key = crypto.subtle.importKey("raw", encoder.encode(options.secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);

  // the purpose, the id and the expiry, each unambiguous: ids have no `\n`, expiries are digits
  const sign = async (id: string, expires: string) =>
    base64url(new Uint8Array(await crypto.subtle.sign("HMAC", await key, encoder.encode(`attachment-download\n${id}\n${expires}`))));

  return {
    async url(ref) {
      const expires = String(Math.ceil((clock.now() + ttlMs) / 1000));
      const q = new URLSearchParams({ expires, signature: await sign(ref.id, expires) });
      return `${prefix}/agent/attachments/${encodeURIComponent(ref.id)}?${q}`;
    },
    async verify(id, expires, signature) {
      if (!/^\d{1,12}$/.test(expires)) return false;
      const ok = constantTimeEqual(signature, await sign(id, expires));
      return ok && Number(expires) * 1000 > clock.now();
    },
  };
}
