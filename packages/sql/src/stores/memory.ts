// MemoryStore on SQL. An episode and its extraction job are inserted in one transaction (so an accepted
// episode is always extracted, even after a crash), and an extraction commits all-or-nothing, idempotently
// (the episode row is locked and checked first, so a re-run job writes nothing twice) and optimistically
// on the brain's version. Full-text search ranks with BM25 on both engines: the formula over the brain's
// own documents on PostgreSQL; FTS5's bm25() on SQLite, over one FTS5 table per brain (memory-fts.ts) so
// its statistics are the brain's own too (test/memory-fts-brains.test.ts).
import {
  type ApiKeyRecord,
  type BrainRecord,
  type CommitResult,
  type EdgeRecord,
  type EntityRecord,
  type EpisodeRecord,
  type ExtractionCommit,
  type MemoryStore,
  type Page,
  type PageAfter,
  type PlaybookRecord,
  type SearchHit,
  searchTerms,
} from "@mountkit/memory";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { insertJob, sqlJobStore } from "../core/jobs.js";
import { sqlQuotaCounter } from "../core/limiter.js";
import type { SqlDatabase } from "../db.js";
import { episodeConversation, indexEpisodeInContext } from "./memory-context.js";
import { ftsTables } from "./memory-fts.js";
import { sqlQuotaHolds } from "./memory-quota.js";
import { PG_RANK_BUDGET, RANK_BUDGET, wordsToRequire } from "./memory-search-scale.js";
import { sqlVectors } from "./memory-vectors.js";

const EPISODE_COLS = [
  "brain_id",
  "id",
  "content",
  "metadata",
  "occurred_at",
  "created_at",
  "status",
  "error",
  "entity_ids",
  "edge_ids",
  "processed_at",
] as const;
const ENTITY_COLS = ["brain_id", "id", "name", "kind", "aliases", "keys", "created_at", "updated_at"] as const;
const EDGE_COLS = [
  "brain_id",
  "id",
  "source",
  "target",
  "relation",
  "fact",
  "t_valid",
  "t_invalid",
  "t_ingested",
  "t_expired",
  "episode_id",
  "invalidation_reason",
  "invalidated_by",
] as const;

type Row = Record<string, any>;
type Db = Kysely<any>;
type Kind = "episodes" | "entities" | "edges";

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toEpisode(r: Row): EpisodeRecord {
  return {
    id: r.id,
    brainId: r.brain_id,
    content: r.content,
    metadata: JSON.parse(r.metadata),
    occurredAt: num(r.occurred_at),
    createdAt: num(r.created_at),
    status: r.status,
    error: r.error,
    entityIds: JSON.parse(r.entity_ids),
    edgeIds: JSON.parse(r.edge_ids),
    processedAt: numOrNull(r.processed_at),
  };
}

function toEntity(r: Row): EntityRecord {
  return {
    id: r.id,
    brainId: r.brain_id,
    name: r.name,
    kind: r.kind,
    aliases: JSON.parse(r.aliases),
    keys: JSON.parse(r.keys),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function toEdge(r: Row): EdgeRecord {
  return {
    id: r.id,
    brainId: r.brain_id,
    source: r.source,
    target: r.target,
    relation: r.relation,
    fact: r.fact,
    tValid: numOrNull(r.t_valid),
    tInvalid: numOrNull(r.t_invalid),
    tIngested: num(r.t_ingested),
    tExpired: numOrNull(r.t_expired),
    episodeId: r.episode_id,
    invalidationReason: r.invalidation_reason,
    invalidatedBy: r.invalidated_by,
  };
}

function toPlaybook(r: Row): PlaybookRecord {
  return {
    brainId: r.brain_id,
    slug: r.slug,
    title: r.title,
    episodeIds: JSON.parse(r.episode_ids),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

const toBrain = (r: Row): BrainRecord => ({ id: r.id, name: r.name, createdAt: num(r.created_at) });
const toKey = (r: Row): ApiKeyRecord => ({
  id: r.id,
  brainId: r.brain_id,
  hash: r.hash,
  prefix: r.prefix,
  label: r.label,
  createdAt: num(r.created_at),
  revokedAt: numOrNull(r.revoked_at),
});

const entityText = (e: Pick<EntityRecord, "name" | "aliases">) => [e.name, ...e.aliases].join(" \n ");

/** Keeps `rows` in the order of `ids` (the contract of the get-many operations). */
function inOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [r] : [];
  });
}

/** A bi-temporal point: valid time `asOf`, transaction time `knownAt` (`asOf` when absent); null: no filter. */
type At = { asOf: number; knownAt?: number } | null;

/** Bi-temporal visibility (domain `edgeVisibleAt`/`episodeVisibleAt`) as SQL on alias `t`. */
const visible: Record<Kind, (at: At) => RawBuilder<unknown>> = {
  episodes: (at) => (at === null ? sql`1 = 1` : sql`t.occurred_at <= ${at.asOf} and t.created_at <= ${at.knownAt ?? at.asOf}`),
  entities: () => sql`1 = 1`,
  edges: (at) => {
    if (at === null) return sql`1 = 1`;
    const { asOf } = at;
    const knownAt = at.knownAt ?? asOf;
    return sql`(t.t_valid is null or t.t_valid <= ${asOf}) and (t.t_invalid is null or ${asOf} < t.t_invalid) and t.t_ingested <= ${knownAt} and (t.t_expired is null or ${knownAt} < t.t_expired)`;
  },
};

const COLS: Record<Kind, readonly string[]> = { episodes: EPISODE_COLS, entities: ENTITY_COLS, edges: EDGE_COLS };

const ftsPhrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Thrown inside a commit's transaction to roll it back when the brain moved past `expectVersion`. */
class CommitConflict extends Error {}

export interface SqlMemoryStoreOptions {
  /**
   * Matching rows past which full-text search ranks the rows holding every query word first
   * (memory-search-scale.ts). Default per engine: RANK_BUDGET on SQLite, PG_RANK_BUDGET on PostgreSQL.
   */
  rankBudget?: number;
}

export function sqlMemoryStore(database: SqlDatabase, options: SqlMemoryStoreOptions = {}): MemoryStore {
  const db = database.kysely as Db;
  const pg = database.dialect === "postgres";
  const table = (k: Kind) => `memory_${k}`;
  const cols = (k: Kind, alias = "t") => sql.raw(COLS[k].map((c) => `${alias}.${c}`).join(", "));
  /** Insertion order of edges. */
  const edgeOrder = pg ? "ord" : "rowid";
  /** SQLite: one FTS5 table per brain and kind, so BM25 statistics are the brain's own. */
  const ftsByBrain = ftsTables(db);
  /** Embeddings: sqlite-vec k-nearest where loaded, else a scan (memory-vectors.ts). */
  const vectors = sqlVectors(database);

  /** Writes a row's analysed text to the full-text index (the row must exist in this transaction). */
  async function index(trx: Db, kind: Kind, brainId: string, id: string, text: string, replace = false) {
    const terms = searchTerms(text);
    if (pg) {
      await sql`update ${sql.table(table(kind))} set search = to_tsvector('simple', ${terms.join(" ")}), n_terms = ${terms.length} where brain_id = ${brainId} and id = ${id}`.execute(
        trx,
      );
      return;
    }
    const fts = sql.table(await ftsByBrain.ensure(trx, kind, brainId));
    const rowid = sql`(select rowid from ${sql.table(table(kind))} where brain_id = ${brainId} and id = ${id})`;
    if (replace) await sql`delete from ${fts} where rowid = ${rowid}`.execute(trx);
    await sql`insert into ${fts} (rowid, terms) values (${rowid}, ${terms.join(" ")})`.execute(trx);
  }

  /**
   * Inserts a commit's edges with their full-text rows in a few multi-row statements (one round trip per
   * chunk, not two per edge): PostgreSQL computes the tsvector in the insert, SQLite fills the brain's
   * FTS5 table from the inserted rows' rowids. The text indexed is what `index` would write.
   */
  async function insertEdges(trx: Db, brainId: string, edges: EdgeRecord[]) {
    if (!edges.length) return;
    // 13 columns plus the text: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters per chunk
    const CHUNK = 200;
    const fts = pg ? null : sql.table(await ftsByBrain.ensure(trx, "edges", brainId));
    for (let i = 0; i < edges.length; i += CHUNK) {
      const chunk = edges.slice(i, i + CHUNK);
      const terms = chunk.map((e) => searchTerms(e.fact));
      await trx
        .insertInto("memory_edges")
        .values(
          chunk.map((e, k) => ({
            ...edgeRow(e),
            ...(pg ? { search: sql`to_tsvector('simple', ${terms[k]!.join(" ")})`, n_terms: terms[k]!.length } : {}),
          })),
        )
        .execute();
      if (fts) {
        const rows = sql.join(chunk.map((e, k) => sql`(${e.id}, ${terms[k]!.join(" ")})`));
        await sql`insert into ${fts} (rowid, terms)
          select t.rowid, v.column2 from (values ${rows}) v cross join memory_edges t
          where t.brain_id = ${brainId} and t.id = v.column1`.execute(trx);
      }
    }
  }

  /** Columns PostgreSQL requires on insert before `index` fills them. */
  const searchPlaceholder = () => (pg ? { search: sql`''::tsvector`, n_terms: 0 } : {});

  async function search<T>(
    kind: Kind,
    brainId: string,
    query: string,
    limit: number,
    at: At,
    map: (r: Row) => T,
  ): Promise<Array<SearchHit<T>>> {
    const terms = [...new Set(searchTerms(query))];
    if (!terms.length || limit <= 0) return [];
    const t = sql.table(table(kind));
    if (!pg) {
      const name = await ftsByBrain.find(kind, brainId);
      if (!name) return [];
      const fts = sql.table(name);
      const match = terms.map(ftsPhrase).join(" OR ");
      // FTS5 ranks its own matches first (ORDER BY rank on the FTS table alone, no row lookups), then only
      // the best `pool` are read and filtered bi-temporally. Most hits are visible at a recent point; when
      // the filter leaves fewer than `limit` from a full pool, every match is ranked after the filter.
      const ranked = async (expr: string, pool: number | null) =>
        sql<Row>`
          select ${cols(kind)}, f.rank as rank
          from (select rowid, rank from ${fts} where ${fts} match ${expr} order by rank ${pool === null ? sql`` : sql`limit ${pool}`}) f
          cross join ${t} t
          where t.rowid = f.rowid and t.brain_id = ${brainId} and ${visible[kind](at)}
          order by f.rank, t.id limit ${limit}`.execute(db);
      const pool = limit * 4 + 50;
      // past RANK_BUDGET matches, the rows holding every word go first (memory-search-scale.ts)
      const all = await wordsToRequire(
        db,
        fts,
        terms,
        (ws, any) => sql`${fts} match ${ws.map(ftsPhrase).join(any ? " OR " : " AND ")}`,
        options.rankBudget ?? RANK_BUDGET,
      );
      let r = all ? await ranked(all.map(ftsPhrase).join(" AND "), pool) : null;
      if (!r || r.rows.length < limit) {
        r = await ranked(match, pool);
        if (r.rows.length < limit) {
          const matches = await sql<{ n: number }>`select count(*) as n from ${fts} where ${fts} match ${match}`.execute(db);
          if (Number(matches.rows[0]?.n) > pool) r = await ranked(match, null);
        }
      }
      // bm25 (the rank column) is lower-is-better
      return r.rows.map((row) => ({ item: map(row), score: -Number(row.rank) }));
    }
    // Okapi BM25 (k1 = 1.2, b = 0.75) over the brain's own documents: idf from how many of them hold each
    // term, tf from the tsvector's positions, document length from the stored term count
    const text = terms.join(" ");
    const anyOf = (ws: string[]) => sql`replace(plainto_tsquery('simple', ${ws.join(" ")})::text, ' & ', ' | ')::tsquery`;
    // past RANK_BUDGET matches, the rows holding every word go first (memory-search-scale.ts); their
    // document frequencies are then counted among those rows, a cheaper stand-in for the brain's own
    const all = await wordsToRequire(
      db,
      sql`${t} t`,
      terms,
      (ws, any) =>
        any
          ? sql`t.brain_id = ${brainId} and t.search @@ ${anyOf(ws)}`
          : sql`t.brain_id = ${brainId} and t.search @@ plainto_tsquery('simple', ${ws.join(" ")})`,
      options.rankBudget ?? PG_RANK_BUDGET,
    );
    const rank = (query: RawBuilder<unknown>) =>
      sql<Row>`
      with cand as (
        select t.id, t.search, t.n_terms, (${visible[kind](at)}) as ok
        from ${t} t
        where t.brain_id = ${brainId} and t.search @@ ${query}
      ),
      q as (select distinct unnest(tsvector_to_array(to_tsvector('simple', ${text}))) as lexeme),
      df as (
        select u.lexeme, count(*)::float8 as n
        from cand c cross join lateral unnest(c.search) u
        where u.lexeme in (select lexeme from q)
        group by u.lexeme
      ),
      st as (
        select coalesce(max(docs), 0)::float8 as docs, greatest(coalesce(max(terms)::float8 / nullif(max(docs), 0), 1), 1)::float8 as avgdl
        from memory_text_stats where brain_id = ${brainId} and kind = ${kind}
      ),
      sc as (
        select c.id, sum(ln(1 + (st.docs - df.n + 0.5) / (df.n + 0.5)) * (x.tf * 2.2) / (x.tf + 1.2 * (0.25 + 0.75 * c.n_terms / st.avgdl))) as score
        from cand c
        cross join st
        cross join lateral (select u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 as tf from unnest(c.search) u) x
        join df on df.lexeme = x.lexeme
        where c.ok
        group by c.id
        order by score desc, c.id
        limit ${limit}
      )
      select ${cols(kind)}, sc.score from sc join ${t} t on t.brain_id = ${brainId} and t.id = sc.id
      order by sc.score desc, t.id`.execute(db);
    let r = all ? await rank(sql`plainto_tsquery('simple', ${all.join(" ")})`) : null;
    if (!r || r.rows.length < limit) r = await rank(anyOf(terms));
    return r.rows.map((row) => ({ item: map(row), score: Number(row.score) }));
  }

  /** Newest-first keyset page over `kind` ordered by (`timeCol` desc, `idCol` desc). */
  async function page<T>(
    from: string,
    timeCol: string,
    idCol: string,
    brainId: string,
    limit: number,
    after: PageAfter | null | undefined,
    map: (r: Row) => T,
    where?: RawBuilder<unknown>,
  ): Promise<Page<T>> {
    if (limit <= 0) return { items: [], next: null };
    let q = db.selectFrom(`${from} as t`).selectAll("t").where("t.brain_id", "=", brainId);
    if (where) q = q.where(where as RawBuilder<boolean>);
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb(`t.${timeCol}`, "<", after.createdAt),
          eb.and([eb(`t.${timeCol}`, "=", after.createdAt), eb(`t.${idCol}`, "<", after.id)]),
        ]),
      );
    const rows = await q
      .orderBy(`t.${timeCol}`, "desc")
      .orderBy(`t.${idCol}`, "desc")
      .limit(limit + 1)
      .execute();
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items: items.map(map), next: rows.length > limit && last ? { createdAt: num(last[timeCol]), id: last[idCol] } : null };
  }

  function edgeRow(e: EdgeRecord) {
    return {
      brain_id: e.brainId,
      id: e.id,
      source: e.source,
      target: e.target,
      relation: e.relation,
      fact: e.fact,
      t_valid: e.tValid,
      t_invalid: e.tInvalid,
      t_ingested: e.tIngested,
      t_expired: e.tExpired,
      episode_id: e.episodeId,
      invalidation_reason: e.invalidationReason,
      invalidated_by: e.invalidatedBy,
      ...searchPlaceholder(),
    };
  }

  async function insertEntityKeys(trx: Db, brainId: string, entityId: string, keys: string[]) {
    if (!keys.length) return;
    await trx
      .insertInto("memory_entity_keys")
      .values([...new Set(keys)].map((key) => ({ brain_id: brainId, key, entity_id: entityId })))
      .onConflict((oc) => oc.columns(["brain_id", "key", "entity_id"]).doNothing())
      .execute();
  }

  async function existingIds(trx: Db, from: string, brainId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await trx
      .selectFrom(from)
      .select("id")
      .where("brain_id", "=", brainId)
      .where("id", "in", [...new Set(ids)])
      .execute();
    return new Set(rows.map((r) => r.id as string));
  }

  const selectEdges = (brainId: string) =>
    db
      .selectFrom("memory_edges as t")
      .select(EDGE_COLS.map((c) => `t.${c}` as const))
      .where("t.brain_id", "=", brainId);

  /** One extraction commit inside `trx` (see MemoryStore.commitExtraction). */
  async function commitIn(trx: Db, c: ExtractionCommit): Promise<CommitResult> {
    // the lock makes a second run of the same job wait here and then see `done`
    let q = trx.selectFrom("memory_episodes").select("status").where("brain_id", "=", c.brainId).where("id", "=", c.episodeId);
    if (pg) q = q.forUpdate();
    const episode = await q.executeTakeFirst();
    if (!episode) return { committed: false, reason: "episode_not_found" } as const;
    if (episode.status === "done") return { committed: false, reason: "already_done" } as const;
    // every commit of the brain bumps its version; the row lock serialises the brain's commits on
    // PostgreSQL (SQLite's write lock already does), so the previous version is exact
    const bumped = await sql<{ version: number }>`
      insert into memory_brain_versions (brain_id, version) values (${c.brainId}, 1)
      on conflict (brain_id) do update set version = memory_brain_versions.version + 1
      returning version`.execute(trx);
    if (c.expectVersion !== undefined && num(bumped.rows[0]!.version) - 1 !== c.expectVersion) throw new CommitConflict();

    const created = new Set(c.createEntities.map((e) => e.id));
    const referenced = [...c.updateEntities.map((u) => u.id), ...c.createEdges.flatMap((e) => [e.source, e.target])].filter(
      (id) => !created.has(id),
    );
    const knownEntities = await existingIds(trx, "memory_entities", c.brainId, referenced);
    for (const u of c.updateEntities) if (!knownEntities.has(u.id)) throw new Error(`unknown entity ${u.id}`);
    for (const e of c.createEdges) {
      const known = (id: string) => created.has(id) || knownEntities.has(id);
      if (!known(e.source) || !known(e.target)) throw new Error(`edge ${e.id} references an unknown entity`);
    }
    const knownEdges = await existingIds(
      trx,
      "memory_edges",
      c.brainId,
      c.invalidate.map((i) => i.id),
    );
    for (const inv of c.invalidate) if (!knownEdges.has(inv.id)) throw new Error(`unknown edge ${inv.id}`);

    for (const e of c.createEntities) {
      await trx
        .insertInto("memory_entities")
        .values({
          brain_id: e.brainId,
          id: e.id,
          name: e.name,
          kind: e.kind,
          aliases: JSON.stringify(e.aliases),
          keys: JSON.stringify(e.keys),
          created_at: e.createdAt,
          updated_at: e.updatedAt,
          ...searchPlaceholder(),
        })
        .execute();
      await index(trx, "entities", c.brainId, e.id, entityText(e));
      await insertEntityKeys(trx, c.brainId, e.id, e.keys);
    }
    for (const u of c.updateEntities) {
      await trx
        .updateTable("memory_entities")
        .set({ name: u.name, kind: u.kind, aliases: JSON.stringify(u.aliases), keys: JSON.stringify(u.keys), updated_at: u.updatedAt })
        .where("brain_id", "=", c.brainId)
        .where("id", "=", u.id)
        .execute();
      await index(trx, "entities", c.brainId, u.id, entityText(u), true);
      await insertEntityKeys(trx, c.brainId, u.id, u.keys);
    }
    for (const inv of c.invalidate) {
      await trx
        .updateTable("memory_edges")
        .set({
          t_invalid:
            inv.tInvalid === null
              ? sql`t_invalid`
              : sql`case when t_invalid is null or t_invalid > ${inv.tInvalid} then ${inv.tInvalid} else t_invalid end`,
          t_expired: inv.tExpired,
          invalidation_reason: inv.reason,
          invalidated_by: inv.invalidatedBy,
        })
        .where("brain_id", "=", c.brainId)
        .where("id", "=", inv.id)
        .where("t_expired", "is", null)
        .execute();
    }
    await insertEdges(trx, c.brainId, c.createEdges);
    if (c.playbook) {
      await trx
        .insertInto("memory_playbooks")
        .values({
          brain_id: c.brainId,
          slug: c.playbook.slug,
          title: c.playbook.title,
          episode_ids: "[]",
          created_at: c.now,
          updated_at: c.now,
        })
        .onConflict((oc) => oc.columns(["brain_id", "slug"]).doNothing())
        .execute();
      let pq = trx
        .selectFrom("memory_playbooks")
        .select("episode_ids")
        .where("brain_id", "=", c.brainId)
        .where("slug", "=", c.playbook.slug);
      if (pg) pq = pq.forUpdate();
      const p = await pq.executeTakeFirstOrThrow();
      const episodeIds: string[] = JSON.parse(p.episode_ids);
      if (!episodeIds.includes(c.episodeId)) episodeIds.push(c.episodeId);
      await trx
        .updateTable("memory_playbooks")
        .set({ episode_ids: JSON.stringify(episodeIds), updated_at: c.now })
        .where("brain_id", "=", c.brainId)
        .where("slug", "=", c.playbook.slug)
        .execute();
    }
    await trx
      .updateTable("memory_episodes")
      .set({
        status: "done",
        error: null,
        entity_ids: JSON.stringify(c.entityIds),
        edge_ids: JSON.stringify(c.edgeIds),
        processed_at: c.now,
      })
      .where("brain_id", "=", c.brainId)
      .where("id", "=", c.episodeId)
      .execute();
    return { committed: true } as const;
  }

  return {
    jobs: sqlJobStore(database),
    quota: sqlQuotaCounter(database),
    quotaHolds: sqlQuotaHolds(database),

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

    async createEpisode({ episode, job }) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("memory_episodes")
          .values({
            brain_id: episode.brainId,
            id: episode.id,
            content: episode.content,
            metadata: JSON.stringify(episode.metadata),
            occurred_at: episode.occurredAt,
            created_at: episode.createdAt,
            status: episode.status,
            error: episode.error,
            entity_ids: JSON.stringify(episode.entityIds),
            edge_ids: JSON.stringify(episode.edgeIds),
            processed_at: episode.processedAt,
            conversation: episodeConversation(episode),
            ...searchPlaceholder(),
          })
          .execute();
        // a conversation's turn is indexed with its neighbours, as on the in-memory store (memory-context.ts)
        await indexEpisodeInContext(trx, pg, episode, (t, brainId, id, text, replace) => index(t, "episodes", brainId, id, text, replace));
        await insertJob(trx, {
          id: job.id,
          queue: job.queue,
          payload: job.payload,
          maxAttempts: job.maxAttempts,
          groupKey: job.groupKey,
          now: episode.createdAt,
        });
      });
    },
    async getEpisode({ brainId, id }) {
      const r = await db
        .selectFrom("memory_episodes")
        .select(EPISODE_COLS)
        .where("brain_id", "=", brainId)
        .where("id", "=", id)
        .executeTakeFirst();
      return r ? toEpisode(r) : null;
    },
    async getEpisodes({ brainId, ids }) {
      if (!ids.length) return [];
      const rows = await db
        .selectFrom("memory_episodes")
        .select(EPISODE_COLS)
        .where("brain_id", "=", brainId)
        .where("id", "in", [...new Set(ids)])
        .execute();
      return inOrder(ids, rows.map(toEpisode));
    },
    async listEpisodes({ brainId, limit, after }) {
      return page("memory_episodes", "created_at", "id", brainId, limit, after, toEpisode);
    },
    async setEpisodeStatus({ brainId, id, status, error, now }) {
      await db
        .updateTable("memory_episodes")
        .set(status === "failed" ? { status, error: error ?? "extraction failed", processed_at: now } : { status, error: null })
        .where("brain_id", "=", brainId)
        .where("id", "=", id)
        .where("status", "<>", "done")
        .execute();
    },
    async searchEpisodes({ brainId, query, limit, asOf, knownAt }) {
      return search("episodes", brainId, query, limit, { asOf, knownAt }, toEpisode);
    },

    async getEntity({ brainId, id }) {
      const r = await db
        .selectFrom("memory_entities")
        .select(ENTITY_COLS)
        .where("brain_id", "=", brainId)
        .where("id", "=", id)
        .executeTakeFirst();
      return r ? toEntity(r) : null;
    },
    async getEntities({ brainId, ids }) {
      if (!ids.length) return [];
      const rows = await db
        .selectFrom("memory_entities")
        .select(ENTITY_COLS)
        .where("brain_id", "=", brainId)
        .where("id", "in", [...new Set(ids)])
        .execute();
      return inOrder(ids, rows.map(toEntity));
    },
    async listEntities({ brainId, limit, after }) {
      return page("memory_entities", "created_at", "id", brainId, limit, after, toEntity);
    },
    async findEntitiesByKeys({ brainId, keys, limit }) {
      if (!keys.length || limit <= 0) return [];
      const rows = await db
        .selectFrom("memory_entity_keys as k")
        .innerJoin("memory_entities as e", (j) => j.onRef("e.brain_id", "=", "k.brain_id").onRef("e.id", "=", "k.entity_id"))
        .select(["k.key", "k.entity_id", "e.created_at"])
        .where("k.brain_id", "=", brainId)
        .where("k.key", "in", [...new Set(keys)])
        .orderBy("e.created_at")
        .orderBy("k.entity_id")
        .execute();
      // the order the keys were asked in, then the entities' age: the most specific key's entity first
      const ids: string[] = [];
      for (const key of keys) for (const r of rows) if (r.key === key && !ids.includes(r.entity_id)) ids.push(r.entity_id);
      const chosen = ids.slice(0, limit);
      const entities = await db
        .selectFrom("memory_entities")
        .select(ENTITY_COLS)
        .where("brain_id", "=", brainId)
        .where("id", "in", chosen.length ? chosen : [""])
        .execute();
      return inOrder(chosen, entities.map(toEntity));
    },
    async searchEntities({ brainId, query, limit }) {
      return search("entities", brainId, query, limit, null, toEntity);
    },

    async getEdge({ brainId, id }) {
      const r = await selectEdges(brainId).where("t.id", "=", id).executeTakeFirst();
      return r ? toEdge(r) : null;
    },
    async getEdges({ brainId, ids }) {
      if (!ids.length) return [];
      const rows = await selectEdges(brainId)
        .where("t.id", "in", [...new Set(ids)])
        .execute();
      return inOrder(ids, rows.map(toEdge));
    },
    async listEdges({ brainId, limit, after, entityId, at }) {
      const where = edgeListFilter(entityId, at);
      return page("memory_edges", "t_ingested", "id", brainId, limit, after, toEdge, where);
    },
    async findCurrentEdges({ brainId, source, relation }) {
      let q = selectEdges(brainId).where("t.source", "=", source).where("t.t_expired", "is", null);
      if (relation) q = q.where("t.relation", "=", relation);
      return (await q.orderBy(`t.${edgeOrder}`).execute()).map(toEdge);
    },
    async edgesOfEntities({ brainId, entityIds, asOf, knownAt, limit }) {
      if (!entityIds.length || limit <= 0) return [];
      const ids = [...new Set(entityIds)];
      // Each entity's newest `limit` visible edges, per side, come from an index in that order (migration
      // 10: brain_id, source|target, coalesce(t_valid, t_ingested) desc, id), so a scan stops after `limit`
      // visible rows instead of sorting every edge of a popular entity; the merged lists hold the overall
      // newest `limit`. An edge between two of the entities comes once, from its source side. SQLite is
      // told the index: without statistics its planner took memory_edges_newest for the t_ingested bound
      // and sorted the brain's edges (EXPLAIN QUERY PLAN: SEARCH t USING INDEX memory_edges_newest
      // (brain_id=? AND t_ingested<?), USE TEMP B-TREE FOR ORDER BY).
      const list = sql.join(ids);
      const newest = (side: "source" | "target", id: string) => sql`
        select * from (
          select t.id, coalesce(t.t_valid, t.t_ingested) as at from memory_edges t${pg ? sql`` : sql` indexed by ${sql.raw(`memory_edges_${side}_recent`)}`}
          where t.brain_id = ${brainId} and t.${sql.raw(side)} = ${id} and ${visible.edges({ asOf, knownAt })}
          ${side === "target" ? sql`and t.source not in (${list})` : sql``}
          order by coalesce(t.t_valid, t.t_ingested) desc, t.id
          limit ${limit}
        ) x`;
      const lists = ids.flatMap((id) => [newest("source", id), newest("target", id)]);
      const r = await sql<Row>`
        select ${cols("edges")}
        from (${sql.join(lists, sql` union all `)}) h cross join memory_edges t
        where t.brain_id = ${brainId} and t.id = h.id
        order by h.at desc, t.id
        limit ${limit}`.execute(db);
      const rows = r.rows;
      return rows.map(toEdge);
    },
    async edgesOfEpisodes({ brainId, episodeIds }) {
      if (!episodeIds.length) return [];
      const rows = await selectEdges(brainId)
        .where("t.episode_id", "in", [...new Set(episodeIds)])
        .orderBy(`t.${edgeOrder}`)
        .execute();
      const rank = new Map(episodeIds.map((id, i) => [id, i] as const));
      const edges = rows.map(toEdge);
      // stable sort: episodes in the order asked, each episode's edges in insertion order
      return edges.sort((a, b) => rank.get(a.episodeId)! - rank.get(b.episodeId)!);
    },
    async searchEdges({ brainId, query, limit, asOf, knownAt }) {
      return search("edges", brainId, query, limit, { asOf, knownAt }, toEdge);
    },
    async invalidateEdge({ brainId, id, tInvalid, tExpired, reason, invalidatedBy }) {
      const row = await db
        .updateTable("memory_edges")
        .set({ t_invalid: tInvalid, t_expired: tExpired, invalidation_reason: reason, invalidated_by: invalidatedBy })
        .where("brain_id", "=", brainId)
        .where("id", "=", id)
        .where((eb) => eb.or([eb("t_invalid", "is", null), eb("t_invalid", ">", tInvalid)]))
        .where("t_expired", "is", null)
        .returning(EDGE_COLS)
        .executeTakeFirst();
      if (row) return { ok: true, edge: toEdge(row) };
      const exists = await db
        .selectFrom("memory_edges")
        .select("id")
        .where("brain_id", "=", brainId)
        .where("id", "=", id)
        .executeTakeFirst();
      return { ok: false, reason: exists ? "already_invalid" : "not_found" };
    },

    async brainVersion({ brainId }) {
      const r = await db.selectFrom("memory_brain_versions").select("version").where("brain_id", "=", brainId).executeTakeFirst();
      return r ? num(r.version) : 0;
    },

    async commitExtraction(c) {
      return db
        .transaction()
        .execute(async (trx) => commitIn(trx, c))
        .catch((e) => {
          if (e instanceof CommitConflict) return { committed: false, reason: "conflict" } as const;
          throw e;
        });
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
      return page("memory_playbooks", "updated_at", "slug", brainId, limit, after, toPlaybook);
    },

    async putEmbeddings({ brainId, items }) {
      await vectors.put(brainId, items);
    },
    async searchVectors({ brainId, kind, vector, limit }) {
      return vectors.search(brainId, kind, vector, limit);
    },
  };
}

/** The filters of `listEdges` on alias `t`: edges touching `entityId`, visible at `at` (both optional). */
function edgeListFilter(entityId: string | undefined, at: At | undefined): RawBuilder<unknown> | undefined {
  const touching = entityId === undefined ? undefined : sql`(t.source = ${entityId} or t.target = ${entityId})`;
  if (!at) return touching;
  return touching ? sql`${touching} and ${visible.edges(at)}` : visible.edges(at);
}
