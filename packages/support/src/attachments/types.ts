// Attachments' storage interfaces: the bytes in a pluggable BlobStore (memory, files, SQL, or a host's S3), the
// records that say whose they are and which message carries them in an AttachmentStore (docs/support.md#attachments).

/**
 * Where attachment bytes live, by key (the attachment id). A host adds an object store (S3, GCS, R2) by implementing
 * these three calls; keys are the service's ids (letters, digits, `_` and `-`), so they are safe as object names. The
 * contract (whole values, read-after-write across processes, errors) is in docs/support.md#blob-stores, and
 * `describeBlobStore` (`@mountkit/support/testing`) checks it.
 */
export interface BlobStore {
  /** Stores the bytes under `key`, replacing any already there. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** The bytes, or null when nothing is stored under `key`. */
  get(key: string): Promise<Uint8Array | null>;
  /** Removes the bytes; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
}

/** What every interface shows of an attachment: on comments (`attachments`) and as the upload's answer. */
export interface AttachmentRef {
  id: string;
  /** The file name as uploaded, made safe (no path, no control characters) and ending in its type's extension. */
  name: string;
  /** Sniffed from the bytes, never the client's word: one of `ATTACHMENT_TYPES`. */
  contentType: string;
  /** Bytes. */
  size: number;
}

export interface AttachmentRecord extends AttachmentRef {
  productSlug: string;
  /**
   * The customer who may download it: the uploader for a customer's upload, the conversation's customer for an
   * agent's once it is sent; null for an agent's upload not sent yet.
   */
  customerId: string | null;
  uploadedBy: "customer" | "agent";
  /** Null while pending (uploaded, not yet on a message); pending ones are deleted after `pendingTtlMs`. */
  conversationId: string | null;
  messageId: string | null;
  createdAt: string;
}

/** The attachment records; implemented in memory (`inMemoryAttachmentStore`) and in SQL (`sqlAttachmentStore`). */
export interface AttachmentStore {
  insert(record: AttachmentRecord): Promise<void>;
  /** The records with these ids that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<AttachmentRecord[]>;
  /**
   * Puts pending records on a message, atomically per record: only those still pending change (so two messages
   * can never take the same upload). Answers the ids it changed.
   */
  settle(input: { ids: readonly string[]; conversationId: string; messageId: string; customerId: string }): Promise<string[]>;
  /** Removes records; answers the ids that existed. */
  remove(ids: readonly string[]): Promise<string[]>;
  /** Pending records created before `before`, oldest first, at most `limit`. */
  listPending(input: { before: string; limit: number }): Promise<AttachmentRecord[]>;
  /**
   * Counts an upload's bytes against its customer's budget (`maxBytesPerCustomerPerDay`), apart from the records so
   * that deleting or sweeping an upload gives nothing back. When the customer's usage on the product after `since`
   * (epoch ms) plus `bytes` stays within `limit`, adds a usage row (`id`: the attachment's) at `at`; otherwise adds
   * nothing. Atomic: two processes charging at once can never both pass the limit. Answers the usage counted before
   * this charge and the time of its oldest row (null without any).
   */
  chargeUsage(input: UsageCharge): Promise<{ allowed: boolean; used: number; oldestAt: number | null }>;
  /** Removes a usage row: the upload it counted failed before it was stored. */
  refundUsage(id: string): Promise<void>;
  /** Removes usage rows older than `before` (epoch ms), which no budget counts any more; answers how many. */
  pruneUsage(before: number): Promise<number>;
}

export interface UsageCharge {
  id: string;
  productSlug: string;
  customerId: string;
  bytes: number;
  at: number;
  since: number;
  limit: number;
}
