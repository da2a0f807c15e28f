// In-memory MemoryStore: maps per brain plus BM25 indexes. The reference implementation of the
// store contract (src/testing.ts) and the default store of tests, examples and benchmarks.
// The methods live by job in in-memory-episodes.ts, in-memory-graph.ts and in-memory-commit.ts; this file assembles them.
import { inMemoryJobStore, inMemoryQuotaCounter, type JobStore, type QuotaCounter } from "@mountkit/core/jobs";
import { inMemoryWebhookStore, type WebhookStore } from "@mountkit/core/webhooks";
import { topK } from "../retrieval/topk.js";
import { commitMethods } from "./in-memory-commit.js";
import { brainData, type MemoryState } from "./in-memory-data.js";
import { erasureMethods } from "./in-memory-erasure.js";
import { episodeMethods } from "./in-memory-episodes.js";
import { edgeMethods, entityMethods } from "./in-memory-graph.js";
import { inMemoryQuotaHolds } from "./in-memory-quota.js";
import type { MemoryStore } from "./types.js";

export interface MemoryStoreOptions {
  jobs?: JobStore;
  quota?: QuotaCounter;
  webhooks?: WebhookStore;
}

export function inMemoryMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const state: MemoryState = {
    brains: new Map(),
    keysByHash: new Map(),
    data: new Map(),
    versions: new Map(),
    jobs: options.jobs ?? inMemoryJobStore(),
  };
  return {
    jobs: state.jobs,
    webhooks: options.webhooks ?? inMemoryWebhookStore(),
    quota: options.quota ?? inMemoryQuotaCounter(),
    ...(options.quota ? {} : { quotaHolds: inMemoryQuotaHolds() }),
    ...accessMethods(state),
    ...episodeMethods(state),
    ...entityMethods(state),
    ...edgeMethods(state),
    ...commitMethods(state),
    ...vectorMethods(state),
    ...erasureMethods(state),
  };
}

function accessMethods({
  brains,
  keysByHash,
}: MemoryState): Pick<
  MemoryStore,
  "createBrain" | "getBrain" | "listBrains" | "createApiKey" | "findApiKey" | "revokeApiKey" | "listApiKeys"
> {
  return {
    async createBrain({ brain: b }) {
      if (!brains.has(b.id)) brains.set(b.id, { ...b });
      return { ...brains.get(b.id)! };
    },
    async getBrain({ brainId }) {
      const b = brains.get(brainId);
      return b ? { ...b } : null;
    },
    async listBrains() {
      return [...brains.values()].map((b) => ({ ...b }));
    },
    async createApiKey({ key }) {
      if (keysByHash.has(key.hash)) throw new Error("duplicate api key");
      keysByHash.set(key.hash, { ...key });
    },
    async findApiKey({ hash }) {
      const k = keysByHash.get(hash);
      return k ? { ...k } : null;
    },
    async revokeApiKey({ id, now }) {
      for (const k of keysByHash.values()) {
        if (k.id === id && k.revokedAt === null) {
          k.revokedAt = now;
          return true;
        }
      }
      return false;
    },
    async listApiKeys({ brainId }) {
      return [...keysByHash.values()].filter((k) => !brainId || k.brainId === brainId).map((k) => ({ ...k }));
    },
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function vectorMethods(state: MemoryState): Required<Pick<MemoryStore, "putEmbeddings" | "searchVectors">> {
  return {
    async putEmbeddings({ brainId, items }) {
      const d = brainData(state, brainId);
      for (const it of items) d.vectors[it.kind].set(it.id, Float32Array.from(it.vector));
    },
    async searchVectors({ brainId, kind, vector, limit }) {
      const d = state.data.get(brainId);
      if (!d) return [];
      const q = Float32Array.from(vector);
      function* all() {
        for (const [id, v] of d!.vectors[kind]) yield { item: id, score: cosine(q, v) };
      }
      return topK(all(), limit);
    },
  };
}

/** @deprecated Renamed `inMemoryMemoryStore`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryMemoryStore = inMemoryMemoryStore;
