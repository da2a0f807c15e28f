// MemoryStore on SQL. An episode and its extraction job are inserted in one transaction (so an accepted
// episode is always extracted, even after a crash), and an extraction commits all-or-nothing, idempotently
// (the episode row is locked and checked first, so a re-run job writes nothing twice) and optimistically
// on the brain's version. Full-text search ranks with BM25 on both engines: the formula over the brain's
// own documents on PostgreSQL; FTS5's bm25() on SQLite, over one FTS5 table per brain (fts.ts) so
// its statistics are the brain's own too (test/memory-fts-brains.test.ts). This file assembles the store
// from its parts: episodes (episodes.ts), entities and edges (graph.ts), the commit
// (commit.ts), search (search.ts) and embeddings (vectors.ts).
import type { MemoryStore } from "@mountkit/memory";
import type { SqlDatabase } from "../../db.js";
import { sqlJobStore } from "../kit/jobs.js";
import { sqlQuotaCounter } from "../kit/limiter.js";
import { sqlWebhookStore } from "../kit/webhooks.js";
import { commitExtraction } from "./commit.js";
import { episodeMethods } from "./episodes.js";
import { erasureMethods } from "./erasure.js";
import { ftsTables } from "./fts.js";
import { edgeMethods, entityMethods } from "./graph.js";
import { sqlQuotaHolds } from "./quota.js";
import { page } from "./reads.js";
import { type Db, type MemoryStoreContext, num, toBrain, toKey, toPlaybook } from "./rows.js";
import { sqlVectors } from "./vectors.js";
import type { VectorCellOptions } from "./vectors-cells.js";

export interface SqlMemoryStoreOptions {
  /**
   * Matching rows up to which full-text search ranks every match (exact BM25). Past it, the newest rows are
   * ranked: on SQLite (search-scale.ts, default RANK_BUDGET 5,000) the newest 1,000 holding every word,
   * then the newest holding any, with BM25 computed from cached word counts (fts-rank.ts); on
   * PostgreSQL (search-pg.ts, default 1,000) the newest of them and the rare words' rows.
   */
  rankBudget?: number;
  /**
   * SQLite with sqlite-vec: a brain's vectors of one kind are searched exactly until there are `trainAt`
   * (default 32,768); then they are split into `cells` (default 256) by k-means, and a search reads the
   * `probes` (default 24) cells nearest the query (vectors-cells.ts).
   */
  vectorCells?: VectorCellOptions;
}

type BrainMethods = Pick<
  MemoryStore,
  "createBrain" | "getBrain" | "listBrains" | "createApiKey" | "findApiKey" | "revokeApiKey" | "listApiKeys" | "brainVersion"
>;

export function sqlMemoryStore(database: SqlDatabase, options: SqlMemoryStoreOptions = {}): MemoryStore {
  const db = database.kysely as Db;
  const pg = database.dialect === "postgres";
  /** SQLite: one FTS5 table per brain and kind, so BM25 statistics are the brain's own. */
  const ftsByBrain = ftsTables(db);
  const ctx: MemoryStoreContext = { db, pg, ftsByBrain, search: { db, pg, ftsByBrain, rankBudget: options.rankBudget } };
  /** Embeddings: k-nearest in sqlite-vec or pgvector where available, else a scan (vectors.ts). */
  const vectors = sqlVectors(database, options.vectorCells);

  return {
    jobs: sqlJobStore(database),
    webhooks: sqlWebhookStore(database),
    quota: sqlQuotaCounter(database),
    quotaHolds: sqlQuotaHolds(database),
    ...brainMethods(db),
    ...episodeMethods(ctx),
    ...entityMethods(ctx),
    ...edgeMethods(ctx),
    ...erasureMethods(ctx),

    async commitExtraction(c) {
      return commitExtraction(ctx, c);
    },

    async getPlaybook({ brainId, slug }) {
      const r = await db
        .selectFrom("memory_playbooks")
        .selectAll()
        .where("brain_id", "=", brainId)
        .where("slug", "=", slug)
        .executeTakeFirst();
      return r ? toPlaybook(r) : null;
    },
    async listPlaybooks({ brainId, limit, after }) {
      return page(db, "memory_playbooks", "updated_at", "slug", brainId, limit, after, toPlaybook);
    },

    async putEmbeddings({ brainId, items }) {
      await vectors.put(brainId, items);
    },
    async searchVectors({ brainId, kind, vector, limit }) {
      return vectors.search(brainId, kind, vector, limit);
    },
  };
}

/** Brains, their API keys and their version (bumped by every commit). */
function brainMethods(db: Db): BrainMethods {
  return {
    async createBrain({ brain }) {
      await db
        .insertInto("memory_brains")
        .values({ id: brain.id, name: brain.name, created_at: brain.createdAt })
        .onConflict((oc) => oc.column("id").doNothing())
        .execute();
      return toBrain(await db.selectFrom("memory_brains").selectAll().where("id", "=", brain.id).executeTakeFirstOrThrow());
    },
    async getBrain({ brainId }) {
      const r = await db.selectFrom("memory_brains").selectAll().where("id", "=", brainId).executeTakeFirst();
      return r ? toBrain(r) : null;
    },
    async listBrains() {
      return (await db.selectFrom("memory_brains").selectAll().orderBy("created_at").orderBy("id").execute()).map(toBrain);
    },
    async createApiKey({ key }) {
      await db
        .insertInto("memory_api_keys")
        .values({
          id: key.id,
          brain_id: key.brainId,
          hash: key.hash,
          prefix: key.prefix,
          label: key.label,
          created_at: key.createdAt,
          revoked_at: key.revokedAt,
        })
        .execute();
    },
    async findApiKey({ hash }) {
      const r = await db.selectFrom("memory_api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
      return r ? toKey(r) : null;
    },
    async revokeApiKey({ id, now }) {
      const r = await db
        .updateTable("memory_api_keys")
        .set({ revoked_at: now })
        .where("id", "=", id)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async listApiKeys({ brainId }) {
      let q = db.selectFrom("memory_api_keys").selectAll();
      if (brainId) q = q.where("brain_id", "=", brainId);
      return (await q.orderBy("created_at").orderBy("id").execute()).map(toKey);
    },
    async brainVersion({ brainId }) {
      const r = await db.selectFrom("memory_brain_versions").select("version").where("brain_id", "=", brainId).executeTakeFirst();
      return r ? num(r.version) : 0;
    },
  };
}
