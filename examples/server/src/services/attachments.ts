// The support service's attachments from the environment (docs/support.md#attachments): the limits
// (SUPPORT_ATTACHMENT_MAX_BYTES, _MAX_PER_MESSAGE, _MAX_BYTES_PER_MESSAGE, _MAX_PER_CUSTOMER_PER_DAY, _PENDING_TTL_MS,
// named after the `attachments` options) and where the bytes live (SUPPORT_ATTACHMENT_STORE: `fs`, files under
// SUPPORT_ATTACHMENT_DIR or `<DATA_DIR>/support-attachments`, the default on SQLite; `sql`, the database, the default on
// PostgreSQL, where several processes share it). Records always go to the database when there is one. Signed download
// links for the GitHub backend's comments (docs/support.md#attachment-links): SUPPORT_ATTACHMENT_LINK_SECRET with
// SUPPORT_ATTACHMENT_LINK_URL (the public URL of the support mount) and SUPPORT_ATTACHMENT_LINK_TTL_MS.
import { join, resolve } from "node:path";
import type { Logger } from "@mountkit/core";
import { type Storage, sqlAttachmentStore, sqlBlobStore } from "@mountkit/sql";
import type { AttachmentLimits, AttachmentLinkOptions, AttachmentOptions } from "@mountkit/support";
import { fileBlobStore } from "@mountkit/support/node";

/** Each limit's variable, by its `attachments` option, and what it counts (for the error message). */
export const ATTACHMENT_LIMIT_VARIABLES: Record<keyof AttachmentLimits, { name: string; unit: string }> = {
  maxBytes: { name: "SUPPORT_ATTACHMENT_MAX_BYTES", unit: "bytes per file" },
  maxPerMessage: { name: "SUPPORT_ATTACHMENT_MAX_PER_MESSAGE", unit: "files per message" },
  maxBytesPerMessage: { name: "SUPPORT_ATTACHMENT_MAX_BYTES_PER_MESSAGE", unit: "bytes of all the files of one message" },
  maxPerCustomerPerDay: { name: "SUPPORT_ATTACHMENT_MAX_PER_CUSTOMER_PER_DAY", unit: "uploads per customer per product in 24 hours" },
  maxBytesPerCustomerPerDay: {
    name: "SUPPORT_ATTACHMENT_MAX_BYTES_PER_CUSTOMER_PER_DAY",
    unit: "bytes one customer may upload per product in 24 hours",
  },
  pendingTtlMs: { name: "SUPPORT_ATTACHMENT_PENDING_TTL_MS", unit: "ms an upload no message names is kept" },
};

export const ATTACHMENT_STORES = ["fs", "sql"] as const;
export type AttachmentStoreKind = (typeof ATTACHMENT_STORES)[number];

/** The limits that are set, each a positive integer; a wrong value stops the start with the variable's name. */
export function attachmentLimitsFromEnv(env: NodeJS.ProcessEnv): Partial<AttachmentLimits> {
  const out: Partial<AttachmentLimits> = {};
  for (const [option, { name, unit }] of Object.entries(ATTACHMENT_LIMIT_VARIABLES) as Array<
    [keyof AttachmentLimits, { name: string; unit: string }]
  >) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (${unit}), not ${JSON.stringify(raw)}`);
    out[option] = n;
  }
  return out;
}

/**
 * The signed links (`attachments.links`), when SUPPORT_ATTACHMENT_LINK_SECRET is set: it needs SUPPORT_ATTACHMENT_LINK_URL,
 * where a browser reaches the support mount; a URL without a secret, or a wrong TTL, stops the start. The secret's
 * length and the URL's form are checked by the service as it starts.
 */
export function attachmentLinksFromEnv(env: NodeJS.ProcessEnv): AttachmentLinkOptions | undefined {
  const secret = env.SUPPORT_ATTACHMENT_LINK_SECRET?.trim();
  const publicUrl = env.SUPPORT_ATTACHMENT_LINK_URL?.trim();
  const ttl = env.SUPPORT_ATTACHMENT_LINK_TTL_MS?.trim();
  if (!secret) {
    if (publicUrl || ttl)
      throw new Error(
        "SUPPORT_ATTACHMENT_LINK_URL and SUPPORT_ATTACHMENT_LINK_TTL_MS need SUPPORT_ATTACHMENT_LINK_SECRET (32 characters or more)",
      );
    return undefined;
  }
  if (!publicUrl)
    throw new Error(
      "SUPPORT_ATTACHMENT_LINK_SECRET needs SUPPORT_ATTACHMENT_LINK_URL: the public URL of the support mount (https://example.com/support)",
    );
  if (ttl === undefined || ttl === "") return { secret, publicUrl };
  const ttlMs = /^\d+$/.test(ttl) ? Number(ttl) : Number.NaN;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1)
    throw new Error(`SUPPORT_ATTACHMENT_LINK_TTL_MS must be a positive integer (ms a link works), not ${JSON.stringify(ttl)}`);
  return { secret, publicUrl, ttlMs };
}

/** SUPPORT_ATTACHMENT_STORE, or the default for the storage: files beside SQLite (or without a database), SQL on PostgreSQL. */
export function attachmentStoreKind(env: NodeJS.ProcessEnv, dialect: "sqlite" | "postgres" | undefined): AttachmentStoreKind {
  const raw = env.SUPPORT_ATTACHMENT_STORE?.trim().toLowerCase();
  if (!raw) return dialect === "postgres" ? "sql" : "fs";
  if (!(ATTACHMENT_STORES as readonly string[]).includes(raw))
    throw new Error(
      `SUPPORT_ATTACHMENT_STORE must be fs (files under the data directory) or sql (the database), not ${JSON.stringify(env.SUPPORT_ATTACHMENT_STORE)}`,
    );
  if (raw === "sql" && !dialect) throw new Error("SUPPORT_ATTACHMENT_STORE=sql needs the server's database");
  return raw as AttachmentStoreKind;
}

/** The directory of the `fs` store: SUPPORT_ATTACHMENT_DIR, else `<DATA_DIR or ./data>/support-attachments`. */
export const attachmentDir = (env: NodeJS.ProcessEnv) =>
  resolve(env.SUPPORT_ATTACHMENT_DIR?.trim() || join(env.DATA_DIR?.trim() || "./data", "support-attachments"));

/**
 * The `attachments` option of createSupportService. Without `storage` (tests) the records stay in memory, and so do the
 * bytes unless SUPPORT_ATTACHMENT_STORE=fs names files.
 */
export async function attachmentsFromEnv(
  env: NodeJS.ProcessEnv,
  deps: { storage?: Pick<Storage, "db">; logger: Logger },
): Promise<AttachmentOptions> {
  const links = attachmentLinksFromEnv(env);
  const limits = { ...attachmentLimitsFromEnv(env), ...(links ? { links } : {}) };
  const db = deps.storage?.db;
  const kind = attachmentStoreKind(env, db?.dialect);
  if (!db && !env.SUPPORT_ATTACHMENT_STORE?.trim()) return limits;
  const options: AttachmentOptions = { ...limits, ...(db ? { store: sqlAttachmentStore(db) } : {}) };
  if (kind === "sql") {
    deps.logger.info("support: attachment bytes in the database (SUPPORT_ATTACHMENT_STORE=sql)");
    return { ...options, blobs: sqlBlobStore(db!) };
  }
  const blobs = fileBlobStore({ root: attachmentDir(env) });
  try {
    const cleaned = await blobs.ready;
    if (cleaned) deps.logger.info(`support: removed ${cleaned} unfinished attachment write(s) of stopped processes`);
  } catch (e) {
    throw new Error(`SUPPORT_ATTACHMENT_DIR: cannot use ${blobs.root}: ${(e as Error).message}`);
  }
  if (db?.dialect === "postgres")
    deps.logger.warn(`support: attachment bytes in ${blobs.root}: every process of this database must share that directory`);
  deps.logger.info(`support: attachment bytes under ${blobs.root}`);
  return { ...options, blobs };
}
