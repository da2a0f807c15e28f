// In-memory attachment records and blobs: the defaults of one process, and what tests use.
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
  };
}
