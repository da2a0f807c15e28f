// In-memory attachment records, usage (the customers' daily byte budgets) and blobs: the defaults of one process, and
// what tests use.
import type { AttachmentRecord, AttachmentStore, BlobStore } from "./types.js";

export function inMemoryBlobStore(): BlobStore & { readonly size: number } {
  const blobs = new Map<string, Uint8Array>();
  return {
    get size() {
      return blobs.size;
    },
    async put(key, data) {
      blobs.set(key, data.slice());
    },
    async get(key) {
      return blobs.get(key)?.slice() ?? null;
    },
    async delete(key) {
      blobs.delete(key);
    },
  };
}

export function inMemoryAttachmentStore(): AttachmentStore {
  const records = new Map<string, AttachmentRecord>();
  // the customers' daily byte budgets, per (product, customer) then per upload: rows outlive the records they counted
  const usage = new Map<string, Map<string, { bytes: number; at: number }>>();
  const usageKey = new Map<string, string>();
  return {
    async insert(record) {
      if (records.has(record.id)) throw new Error(`attachment ${record.id} exists`);
      records.set(record.id, { ...record });
    },
    async getMany(ids) {
      return ids.flatMap((id) => {
        const r = records.get(id);
        return r ? [{ ...r }] : [];
      });
    },
    async settle({ ids, conversationId, messageId, customerId }) {
      const changed: string[] = [];
      for (const id of ids) {
        const r = records.get(id);
        if (!r || r.conversationId !== null) continue;
        records.set(id, { ...r, conversationId, messageId, customerId });
        changed.push(id);
      }
      return changed;
    },
    async remove(ids) {
      return ids.filter((id) => records.delete(id));
    },
    async listPending({ before, limit }) {
      return [...records.values()]
        .filter((r) => r.conversationId === null && r.createdAt < before)
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
        .slice(0, limit)
        .map((r) => ({ ...r }));
    },
    async chargeUsage({ id, productSlug, customerId, bytes, at, since, limit }) {
      const key = JSON.stringify([productSlug, customerId]);
      const rows = usage.get(key) ?? new Map<string, { bytes: number; at: number }>();
      let used = 0;
      let oldestAt: number | null = null;
      for (const u of rows.values()) {
        if (u.at <= since) continue;
        used += u.bytes;
        if (oldestAt === null || u.at < oldestAt) oldestAt = u.at;
      }
      const allowed = used + bytes <= limit;
      if (allowed) {
        rows.set(id, { bytes, at });
        usage.set(key, rows);
        usageKey.set(id, key);
      }
      return { allowed, used, oldestAt };
    },
    async refundUsage(id) {
      const key = usageKey.get(id);
      if (key === undefined) return;
      usageKey.delete(id);
      usage.get(key)?.delete(id);
      if (usage.get(key)?.size === 0) usage.delete(key);
    },
    async pruneUsage(before) {
      let n = 0;
      for (const [key, rows] of usage) {
        for (const [id, u] of rows)
          if (u.at < before) {
            rows.delete(id);
            usageKey.delete(id);
            n++;
          }
        if (!rows.size) usage.delete(key);
      }
      return n;
    },
  };
}
