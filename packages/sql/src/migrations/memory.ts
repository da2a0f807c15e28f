// Tables of the memory service, with full-text indexes: FTS5 tables on SQLite, a tsvector column with a
// GIN index on PostgreSQL. Both index the memory service's own analysed terms (folded, stop words out,
// stemmed), so a word matches the same documents on every store.
import { sql } from "kysely";
import type { MigrationSet } from "../migrate.js";
import { exec } from "../migrate.js";
import { FTS_TOKENIZER, ftsTableName } from "../stores/memory/fts.js";

export const memoryMigrations: MigrationSet = {
  name: "memory",
  migrations: [
    {
      version: 1,
      name: "brains, keys, episodes, entities, edges, playbooks, vectors, full-text search",
      async up(db, dialect) {
        const pg = dialect === "postgres";
        // byte order for ids: keyset pagination must sort exactly as the other stores do
        const key = pg ? 'text collate "C"' : "text";
        // PostgreSQL keeps the analysed text as a tsvector plus its term count (BM25's document length)
        const search = pg ? ",\n            search tsvector not null,\n            n_terms integer not null" : "";
        await exec(db, [
          `create table memory_brains (
            id text primary key,
            name text not null,
            created_at bigint not null
          )`,
          `create table memory_api_keys (
            id text primary key,
            brain_id text not null,
            hash text not null unique,
            prefix text not null,
            label text,
            created_at bigint not null,
            revoked_at bigint
          )`,
          "create index memory_api_keys_brain on memory_api_keys (brain_id)",
          `create table memory_episodes (
            brain_id text not null,
            id ${key} not null,
            content text not null,
            metadata text not null,
            occurred_at bigint not null,
            created_at bigint not null,
            status text not null,
            error text,
            entity_ids text not null,
            edge_ids text not null,
            processed_at bigint${search},
            primary key (brain_id, id)
          )`,
          "create index memory_episodes_newest on memory_episodes (brain_id, created_at desc, id desc)",
          `create table memory_entities (
            brain_id text not null,
            id ${key} not null,
            name text not null,
            kind text not null,
            aliases text not null,
            keys text not null,
            created_at bigint not null,
            updated_at bigint not null${search},
            primary key (brain_id, id)
          )`,
          "create index memory_entities_newest on memory_entities (brain_id, created_at desc, id desc)",
          `create table memory_entity_keys (
            brain_id text not null,
            key text not null,
            entity_id text not null,
            primary key (brain_id, key, entity_id)
          )`,
          // edges keep their insertion order: SQLite's rowid, an identity column on PostgreSQL
          `create table memory_edges (
            brain_id text not null,
            id ${key} not null,${pg ? "\n            ord bigint generated always as identity," : ""}
            source text not null,
            target text not null,
            relation text not null,
            fact text not null,
            t_valid bigint,
            t_invalid bigint,
            t_ingested bigint not null,
            t_expired bigint,
            episode_id text not null,
            invalidation_reason text,
            invalidated_by text${search},
            primary key (brain_id, id)
          )`,
          "create index memory_edges_newest on memory_edges (brain_id, t_ingested desc, id desc)",
          "create index memory_edges_source on memory_edges (brain_id, source, relation)",
          "create index memory_edges_target on memory_edges (brain_id, target)",
          "create index memory_edges_episode on memory_edges (brain_id, episode_id)",
          `create table memory_playbooks (
            brain_id text not null,
            slug ${key} not null,
            title text not null,
            episode_ids text not null,
            created_at bigint not null,
            updated_at bigint not null,
            primary key (brain_id, slug)
          )`,
          "create index memory_playbooks_newest on memory_playbooks (brain_id, updated_at desc, slug desc)",
          `create table memory_vectors (
            brain_id text not null,
            kind text not null,
            id text not null,
            vector text not null,
            primary key (brain_id, kind, id)
          )`,
          ...(pg
            ? [
                "create index memory_episodes_search on memory_episodes using gin (search)",
                "create index memory_entities_search on memory_entities using gin (search)",
                "create index memory_edges_search on memory_edges using gin (search)",
                "create index memory_episodes_terms on memory_episodes (brain_id) include (n_terms)",
                "create index memory_entities_terms on memory_entities (brain_id) include (n_terms)",
                "create index memory_edges_terms on memory_edges (brain_id) include (n_terms)",
              ]
            : [
                // an FTS row shares the rowid of its table's row; `brain` is indexed too so a match is
                // confined to one brain inside the FTS index itself
                "create virtual table memory_episodes_fts using fts5(brain, terms, tokenize = 'unicode61 remove_diacritics 2')",
                "create virtual table memory_entities_fts using fts5(brain, terms, tokenize = 'unicode61 remove_diacritics 2')",
                "create virtual table memory_edges_fts using fts5(brain, terms, tokenize = 'unicode61 remove_diacritics 2')",
              ]),
        ]);
      },
    },
    {
      version: 2,
      name: "brain versions (optimistic check of extraction commits)",
      async up(db) {
        await exec(db, ["create table memory_brain_versions (brain_id text primary key, version bigint not null)"]);
      },
    },
    {
      version: 3,
      name: "quota holds (calls in flight; only successful calls consume the daily quota)",
      async up(db) {
        await exec(db, [
          `create table memory_quota_holds (
            key text not null,
            period text not null,
            id text not null,
            expires_at bigint not null,
            primary key (key, period, id)
          )`,
        ]);
      },
    },
    {
      version: 4,
      name: "SQLite: one full-text table per brain (BM25 statistics per brain), rows moved from the shared tables",
      async up(db, dialect) {
        if (dialect !== "sqlite") return;
        for (const kind of ["episodes", "entities", "edges"] as const) {
          const shared = `memory_${kind}_fts`;
          const brains = await sql<{ brain: string }>`select distinct brain from ${sql.table(shared)}`.execute(db);
          for (const { brain } of brains.rows) {
            const name = ftsTableName(kind, brain);
            await sql`create virtual table if not exists ${sql.table(name)} using fts5(terms, tokenize = ${sql.lit(FTS_TOKENIZER)})`.execute(
              db,
            );
            await sql`insert into ${sql.table(name)} (rowid, terms) select rowid, terms from ${sql.table(shared)} where brain = ${brain}`.execute(
              db,
            );
          }
          await sql`drop table ${sql.table(shared)}`.execute(db);
        }
      },
    },
    {
      version: 5,
      name: "episodes: conversation key and insertion order, to index a turn with its neighbours",
      async up(db, dialect) {
        const pg = dialect === "postgres";
        // episodes stored before this migration keep no conversation: they are indexed as they were
        await exec(db, [
          "alter table memory_episodes add column conversation text",
          ...(pg
            ? [
                "alter table memory_episodes add column ord bigint generated always as identity",
                "create index memory_episodes_conversation on memory_episodes (brain_id, conversation, ord desc)",
              ]
            : // the rowid (insertion order) is part of every SQLite index
              ["create index memory_episodes_conversation on memory_episodes (brain_id, conversation)"]),
        ]);
      },
    },
    {
      // numbered 10, not 5, so parallel branches adding migrations merge without renumbering
      version: 10,
      name: "edges of an entity, newest valid first, read from an index in that order (graph expansion at scale)",
      async up(db) {
        // edgesOfEntities takes each entity's newest `limit` visible edges from these, stopping early,
        // instead of sorting every edge of a popular entity (EXPLAIN: USE TEMP B-TREE FOR ORDER BY)
        await exec(db, [
          "create index memory_edges_source_recent on memory_edges (brain_id, source, (coalesce(t_valid, t_ingested)) desc, id)",
          "create index memory_edges_target_recent on memory_edges (brain_id, target, (coalesce(t_valid, t_ingested)) desc, id)",
          "drop index memory_edges_target",
        ]);
      },
    },
    {
      version: 11,
      name: "PostgreSQL: per-brain text statistics (document count, total terms) kept by triggers for BM25",
      async up(db, dialect) {
        if (dialect !== "postgres") return;
        // BM25's document count and average length were an aggregate over every row of the brain on each
        // search (EXPLAIN ANALYZE: Index Only Scan using memory_edges_terms, rows=20000, 30 ms at 20k
        // edges). A row per brain and kind, kept by the writes themselves, answers in one lookup. Writers
        // of one brain's edges and entities already queue on memory_brain_versions, so the row adds no
        // contention there; episodes of one brain queue on it briefly.
        await exec(db, [
          `create table memory_text_stats (
            brain_id text not null,
            kind text not null,
            docs bigint not null,
            terms bigint not null,
            primary key (brain_id, kind)
          )`,
          `create function memory_text_stats_row() returns trigger language plpgsql as $$
          begin
            if tg_op = 'INSERT' or tg_op = 'UPDATE' then
              insert into memory_text_stats (brain_id, kind, docs, terms)
              values (new.brain_id, tg_argv[0], case when tg_op = 'INSERT' then 1 else 0 end, new.n_terms)
              on conflict (brain_id, kind) do update
              set docs = memory_text_stats.docs + excluded.docs, terms = memory_text_stats.terms + excluded.terms;
            end if;
            if tg_op = 'DELETE' or tg_op = 'UPDATE' then
              update memory_text_stats
              set docs = docs - case when tg_op = 'DELETE' then 1 else 0 end, terms = terms - old.n_terms
              where brain_id = old.brain_id and kind = tg_argv[0];
            end if;
            return null;
          end $$`,
          ...(["episodes", "entities", "edges"] as const).flatMap((kind) => [
            `insert into memory_text_stats (brain_id, kind, docs, terms)
             select brain_id, '${kind}', count(*), coalesce(sum(n_terms), 0) from memory_${kind} group by brain_id`,
            `create trigger memory_${kind}_text_stats after insert or delete or update of n_terms on memory_${kind}
             for each row execute function memory_text_stats_row('${kind}')`,
          ]),
        ]);
      },
    },
    {
      version: 12,
      name: "PostgreSQL: full-text indexes keep a short pending list (256 kB), so a search never reads a long one",
      async up(db, dialect) {
        if (dialect !== "postgres") return;
        // GIN's fast update queues new rows in an unsorted pending list that every search reads whole until it
        // is merged (at 4 MB by default, or by vacuum): under steady ingest a search paid for thousands of
        // queued rows (3,000 edges queued: median 13.9 ms against 12.2 ms after a merge, max 32 ms against 16)
        await exec(
          db,
          ["episodes", "entities", "edges"].map((kind) => `alter index memory_${kind}_search set (gin_pending_list_limit = 256)`),
        );
      },
    },
    {
      // numbered 26, after issue 26, so parallel branches adding migrations merge without renumbering
      version: 26,
      name: "erasure audit: what each erasure asked and how much went, no erased content",
      async up(db) {
        await exec(db, [
          `create table memory_erasures (
            id text primary key,
            brain_id text not null,
            kind text not null,
            target text not null,
            at bigint not null,
            counts text not null
          )`,
          "create index memory_erasures_brain on memory_erasures (brain_id, at)",
        ]);
      },
    },
    {
      version: 27,
      name: "scopes (user, agent, session) of episodes and edges, indexed with the brain; idempotency keys of episodes",
      async up(db) {
        // the scope columns are null for rows stored before (unscoped); the keys' primary key is what makes a
        // retried POST store one episode across processes (docs/memory.md#idempotent-and-batch-ingest)
        const scoped = (table: string, time: string) =>
          ["user", "agent", "session"].flatMap((axis) => [
            `alter table memory_${table} add column ${axis}_id text`,
            `create index memory_${table}_${axis} on memory_${table} (brain_id, ${axis}_id, ${time} desc, id desc)`,
          ]);
        await exec(db, [
          ...scoped("episodes", "created_at"),
          ...scoped("edges", "t_ingested"),
          `create table memory_idempotency_keys (
            brain_id text not null,
            key text not null,
            episode_id text not null,
            fingerprint text not null,
            expires_at bigint not null,
            primary key (brain_id, key)
          )`,
        ]);
      },
    },
    {
      version: 28,
      name: "episodes: a brain's newest by time then insertion order, read from an index (the turn a new one follows)",
      async up(db, dialect) {
        // newEpisodeConversation reads the newest episode by (created_at, insertion order). memory_episodes_newest
        // breaks ties by id, so every episode of the newest millisecond was read and sorted (EXPLAIN: USE TEMP B-TREE
        // FOR LAST TERM OF ORDER BY): an import of an export whose episodes share a time read all the earlier ones for
        // each new one. SQLite's index ends with the rowid on its own.
        await exec(db, [
          dialect === "postgres"
            ? "create index memory_episodes_inserted on memory_episodes (brain_id, created_at desc, ord desc)"
            : "create index memory_episodes_inserted on memory_episodes (brain_id, created_at)",
        ]);
      },
    },
  ],
};
