// The attachments of customer and agent messages: uploads checked (type sniffed from the bytes, size, count and bytes
// per customer per day), the ids a message names checked and settled on it once written, and no blob left behind by a
// failed upload or a failed message (docs/support.md#attachments).
import { type Clock, defineServiceErrors, type IdGenerator, iso, isKitError, type Logger } from "@mountkit/core";
import type { RateLimiter } from "@mountkit/core/jobs";
import type { Product } from "../domain/products.js";
import { supportError } from "../errors.js";
import { inMemoryAttachmentStore, inMemoryBlobStore } from "./in-memory.js";
import { type AttachmentLinkOptions, type AttachmentLinks, attachmentLinks } from "./links.js";
import { ATTACHMENT_TYPES, safeName, sniffAttachment } from "./sniff.js";
import type { AttachmentRecord, AttachmentRef, AttachmentStore, BlobStore } from "./types.js";

export interface AttachmentLimits {
  /** Largest file in bytes (default 10 MiB); larger uploads answer 413. */
  maxBytes: number;
  /** Attachments on one message (default 5); more answer 413. */
  maxPerMessage: number;
  /** All attachments of one message together, in bytes (default 25 MiB); more answer 413. */
  maxBytesPerMessage: number;
  /** Uploads one customer may make per product in any 24 hours (default 50); more answer 429 with `Retry-After`. */
  maxPerCustomerPerDay: number;
  /**
   * Bytes one customer may upload per product in any 24 hours (default 100 MiB), counting uploads deleted or swept
   * since; more answer 429 with `Retry-After` (when the oldest counted upload leaves the window).
   */
  maxBytesPerCustomerPerDay: number;
  /** How long an upload no message names is kept, in ms (default 1 hour); then it is deleted. */
  pendingTtlMs: number;
}

export interface AttachmentOptions extends Partial<AttachmentLimits> {
  /** The records; default in this process's memory (`sqlAttachmentStore(db)` for several processes). */
  store?: AttachmentStore;
  /** The bytes; default in this process's memory (a directory, `sqlBlobStore(db)`, or a host's object store). */
  blobs?: BlobStore;
  /** How often expired pending uploads are deleted, in ms (default 1 minute; 0 disables the timer). */
  sweepIntervalMs?: number;
  /**
   * Signed, expiring download links (docs/support.md#attachment-links), which the GitHub backend puts in its comments;
   * unset, a backend can only name the files.
   */
  links?: AttachmentLinkOptions;
}

export const DEFAULT_ATTACHMENT_LIMITS: AttachmentLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxPerMessage: 5,
  maxBytesPerMessage: 25 * 1024 * 1024,
  maxPerCustomerPerDay: 50,
  maxBytesPerCustomerPerDay: 100 * 1024 * 1024,
  pendingTtlMs: 3_600_000,
};

export const attachmentError = defineServiceErrors({
  attachment_not_found: { status: 404, message: "attachment not found" },
  attachment_type_not_allowed: { status: 415, message: "file type not allowed: PNG, JPEG, GIF, WebP, PDF or plain text" },
  attachment_too_large: { status: 413, message: "attachment too large" },
  attachment_empty: { status: 400, message: "the file is empty" },
});

const DAY = 86_400_000;

/** Who calls: a customer of a product, or an agent (who reads every attachment and has no daily limit). */
export type Uploader = { customerId: string } | { agent: true };

export interface Attachments {
  readonly limits: AttachmentLimits;
  readonly store: AttachmentStore;
  readonly blobs: BlobStore;
  /** The signed download links, when `links` is configured. */
  readonly links?: AttachmentLinks;
  /** Checks and stores an upload: 400 empty, 413 too large, 415 not an allowed type, 429 past the daily limits (count and bytes). */
  upload(input: { product: Product; by: Uploader; name?: string; bytes: Uint8Array | undefined }): Promise<AttachmentRef>;
  /**
   * The attachments a message names, checked before it is written: each this caller's upload on this product (an
   * agent's for an agent), pending or already on a message of `conversationId` (a retry of that message); 400 for an
   * unknown id, 413 past the per-message limits.
   */
  claim(input: {
    productSlug: string;
    by: Uploader;
    ids: readonly string[] | undefined;
    conversationId?: string;
  }): Promise<AttachmentRef[]>;
  /**
   * After the message is written: the attachments the stored message carries are settled on it; pending ones it does
   * not carry (the retry of a message written before with other uploads) are deleted.
   */
  settle(
    claimed: readonly AttachmentRef[],
    stored: { conversationId: string; messageId: string; customerId: string; refs: readonly AttachmentRef[] },
  ): Promise<void>;
  /** After the message failed: a refusal (4xx) deletes the pending uploads; other failures leave them to the sweep. */
  abandon(claimed: readonly AttachmentRef[], error: unknown): Promise<void>;
  /** The file, when this caller may read it; null answers 404 (another customer's looks like a missing one). */
  read(input: { id: string; productSlug?: string; by: Uploader }): Promise<{ ref: AttachmentRef; bytes: Uint8Array } | null>;
  /** Deletes pending uploads older than `pendingTtlMs`; answers how many. */
  sweep(): Promise<number>;
  stop(): void;
}

const refOf = (r: AttachmentRecord): AttachmentRef => ({ id: r.id, name: r.name, contentType: r.contentType, size: r.size });

const isCustomer = (by: Uploader): by is { customerId: string } => "customerId" in by;

/** Whether the caller may put this record on a message it writes. */
function mayClaim(r: AttachmentRecord, productSlug: string, by: Uploader, conversationId: string | undefined): boolean {
  if (r.productSlug !== productSlug) return false;
  if (isCustomer(by) ? r.uploadedBy !== "customer" || r.customerId !== by.customerId : r.uploadedBy !== "agent") return false;
  return r.conversationId === null || (conversationId === undefined ? isCustomer(by) : r.conversationId === conversationId);
}

export function createAttachments(deps: {
  options?: AttachmentOptions;
  limiter: RateLimiter;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
}): Attachments {
  const { options = {}, limiter, clock, ids, logger } = deps;
  const limits: AttachmentLimits = { ...DEFAULT_ATTACHMENT_LIMITS, ...stripUndefined(options) };
  const store = options.store ?? inMemoryAttachmentStore();
  const blobs = options.blobs ?? inMemoryBlobStore();

  /** Deletes records and their blobs; a blob whose delete fails is logged (its record is gone, so nothing serves it). */
  async function drop(idList: readonly string[]): Promise<number> {
    if (!idList.length) return 0;
    const gone = await store.remove(idList);
    await Promise.all(
      idList.map((id) => blobs.delete(id).catch((error) => logger.warn("support: deleting an attachment's bytes failed", { id, error }))),
    );
    return gone.length;
  }

  const links = options.links ? attachmentLinks(options.links, clock) : undefined;
  const api: Attachments = {
    limits,
    store,
    blobs,
    links,
    async upload({ product, by, name, bytes }) {
      if (!bytes?.byteLength) throw attachmentError("attachment_empty");
      if (bytes.byteLength > limits.maxBytes) throw attachmentError("attachment_too_large", { details: { limit: limits.maxBytes } });
      const type = await sniffAttachment(bytes);
      if (!type) throw attachmentError("attachment_type_not_allowed", { details: { accepted: Object.keys(ATTACHMENT_TYPES) } });
      const id = ids();
      if (isCustomer(by))
        await chargeDaily({ store, limiter, clock, limits }, { id, productSlug: product.slug, customerId: by.customerId, bytes });
      const record: AttachmentRecord = {
        id,
        name: safeName(name, type),
        contentType: type,
        size: bytes.byteLength,
        productSlug: product.slug,
        customerId: isCustomer(by) ? by.customerId : null,
        uploadedBy: isCustomer(by) ? "customer" : "agent",
        conversationId: null,
        messageId: null,
        createdAt: iso(clock.now()),
      };
      await persist({ store, blobs, logger }, record, bytes);
      return refOf(record);
    },
    claim: (input) => claim(input, { store, limits, drop }),
    async settle(claimed, stored) {
      if (!claimed.length) return;
      const carried = new Set(stored.refs.map((r) => r.id));
      const ids = claimed.filter((r) => carried.has(r.id)).map((r) => r.id);
      if (ids.length)
        await store.settle({ ids, conversationId: stored.conversationId, messageId: stored.messageId, customerId: stored.customerId });
      // uploads of a retry whose message was written before with others: nothing will ever name them
      const stray = (await store.getMany(claimed.filter((r) => !carried.has(r.id)).map((r) => r.id))).filter(
        (r) => r.conversationId === null,
      );
      await drop(stray.map((r) => r.id));
    },
    async abandon(claimed, error) {
      if (!claimed.length || !isKitError(error) || error.status >= 500) return;
      const pending = (await store.getMany(claimed.map((r) => r.id))).filter((r) => r.conversationId === null);
      await drop(pending.map((r) => r.id));
    },
    async read({ id, productSlug, by }) {
      const [r] = await store.getMany([id]);
      if (!r) return null;
      if (isCustomer(by) && (r.productSlug !== productSlug || r.customerId !== by.customerId)) return null;
      const bytes = await blobs.get(r.id);
      return bytes ? { ref: refOf(r), bytes } : null;
    },
    async sweep() {
      let n = 0;
      const before = iso(clock.now() - limits.pendingTtlMs);
      // usage past the day no budget counts any more (a deleted or swept upload's stays until then)
      await store.pruneUsage(clock.now() - DAY);
      for (;;) {
        const batch = await store.listPending({ before, limit: 100 });
        if (!batch.length) return n;
        n += await drop(batch.map((r) => r.id));
        if (batch.length < 100) return n;
      }
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
  const every = options.sweepIntervalMs ?? 60_000;
  const timer =
    every > 0
      ? setInterval(() => api.sweep().catch((error) => logger.warn("support: sweeping pending attachments failed", { error })), every)
      : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();
  return api;
}

/**
 * The customer's daily limits on an upload, bytes first (`store.chargeUsage`, counted under the upload's id) then the
 * count (the limiter): an upload the count refuses gives its bytes back, one the bytes refuse takes no count. Past
 * either, 429 with `Retry-After` and a message naming the limit.
 */
async function chargeDaily(
  deps: { store: AttachmentStore; limiter: RateLimiter; clock: Clock; limits: AttachmentLimits },
  input: { id: string; productSlug: string; customerId: string; bytes: Uint8Array },
): Promise<void> {
  const { store, limiter, clock, limits } = deps;
  const { id, productSlug, customerId } = input;
  const now = clock.now();
  const maxBytes = limits.maxBytesPerCustomerPerDay;
  const u = await store.chargeUsage({
    id,
    productSlug,
    customerId,
    bytes: input.bytes.byteLength,
    at: now,
    since: now - DAY,
    limit: maxBytes,
  });
  if (!u.allowed) {
    // the budget frees up as its oldest counted upload leaves the 24 hours
    const wait = u.oldestAt === null ? DAY : u.oldestAt + DAY - now;
    throw supportError("too_many_requests", {
      message: `at most ${maxBytes} bytes of attachments per customer per day`,
      headers: { "retry-after": String(Math.max(1, Math.ceil(wait / 1000))) },
    });
  }
  const max = limits.maxPerCustomerPerDay;
  const d = await limiter
    .hit(`support:${productSlug}:attachments:${customerId}`, { limit: max, windowMs: DAY, now })
    .catch(async (error) => {
      await store.refundUsage(id);
      throw error;
    });
  if (d.allowed) return;
  await store.refundUsage(id);
  throw supportError("too_many_requests", {
    message: `at most ${max} attachments per customer per day`,
    headers: {
      "retry-after": String(Math.max(1, Math.ceil(d.retryAfterMs / 1000))),
      "ratelimit-limit": String(max),
      "ratelimit-remaining": "0",
    },
  });
}

/**
 * Stores an upload, bytes first: a record never names missing bytes; a failed record write takes its bytes with it,
 * and a failed upload its count against the customer's byte budget.
 */
async function persist(
  { store, blobs, logger }: { store: AttachmentStore; blobs: BlobStore; logger: Logger },
  record: AttachmentRecord,
  bytes: Uint8Array,
): Promise<void> {
  const { id } = record;
  try {
    await blobs.put(id, bytes);
    try {
      await store.insert(record);
    } catch (error) {
      await blobs.delete(id).catch((e) => logger.warn("support: deleting an attachment's bytes failed", { id, error: e }));
      throw error;
    }
  } catch (error) {
    if (record.uploadedBy === "customer")
      await store.refundUsage(id).catch((e) => logger.warn("support: refunding an upload's bytes failed", { id, error: e }));
    throw error;
  }
}

/** `Attachments.claim`: the checks, and the caller's own pending uploads dropped with a refused message. */
async function claim(
  { productSlug, by, ids: wanted, conversationId }: Parameters<Attachments["claim"]>[0],
  { store, limits, drop }: { store: AttachmentStore; limits: AttachmentLimits; drop: (ids: readonly string[]) => Promise<number> },
): Promise<AttachmentRef[]> {
  const unique = [...new Set(wanted ?? [])];
  if (!unique.length) return [];
  const found = new Map((await store.getMany(unique.slice(0, limits.maxPerMessage + 1))).map((r) => [r.id, r]));
  // a refused message takes the caller's own pending uploads it named with it: nothing will name them again
  const refuse = async (error: Error) => {
    const own = [...found.values()].filter((r) => r.conversationId === null && mayClaim(r, productSlug, by, conversationId));
    await drop(own.map((r) => r.id));
    return error;
  };
  if (unique.length > limits.maxPerMessage)
    throw await refuse(
      attachmentError("attachment_too_large", {
        message: `at most ${limits.maxPerMessage} attachments per message`,
        details: { limit: limits.maxPerMessage },
      }),
    );
  const missing = unique.filter((id) => {
    const r = found.get(id);
    return !r || !mayClaim(r, productSlug, by, conversationId);
  });
  if (missing.length)
    throw await refuse(
      supportError("invalid_request", {
        message: "unknown attachment",
        details: missing.map((id) => ({ path: "attachments", message: id })),
      }),
    );
  const refs = unique.map((id) => refOf(found.get(id)!));
  const total = refs.reduce((n, r) => n + r.size, 0);
  if (total > limits.maxBytesPerMessage)
    throw await refuse(
      attachmentError("attachment_too_large", {
        message: `attachments of one message over ${limits.maxBytesPerMessage} bytes`,
        details: { limit: limits.maxBytesPerMessage },
      }),
    );
  return refs;
}

function stripUndefined(o: AttachmentOptions): Partial<AttachmentLimits> {
  const out: Partial<AttachmentLimits> = {};
  for (const k of Object.keys(DEFAULT_ATTACHMENT_LIMITS) as Array<keyof AttachmentLimits>) {
    const v = o[k];
    if (v !== undefined) {
      if (!Number.isFinite(v) || v < 0) throw new Error(`attachments.${k} must be a non-negative number`);
      out[k] = v;
    }
  }
  return out;
}
