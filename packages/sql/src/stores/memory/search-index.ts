// Full-text index writes of the SQL memory store: a row's analysed text goes to its `search` tsvector on
// PostgreSQL, to the brain's FTS5 table on SQLite (fts.ts), in the transaction that writes the row.

import { timeSlicer } from "@mountkit/core";
import { type EdgeRecord, searchTerms } from "@mountkit/memory";
import { sql } from "kysely";
import { type BatchItem, executeBatch } from "../../batch.js";
import { scopeRow } from "./filters.js";
import { type Db, type Kind, type MemoryStoreContext, table } from "./rows.js";

/** Writes a row's analysed text to the full-text index (the row must exist in this transaction). */
export async function indexText(ctx: MemoryStoreContext, trx: Db, kind: Kind, brainId: string, id: string, text: string, replace = false) {
  await executeBatch(trx, ctx.pg, await indexTextQueries(ctx, trx, kind, brainId, id, text, replace));
}

/** The statements of `indexText`, to run in a batch with others. */
export async function indexTextQueries(
  ctx: MemoryStoreContext,
  trx: Db,
  kind: Kind,
  brainId: string,
  id: string,
  text: string,
  replace = false,
): Promise<BatchItem[]> {
  const terms = searchTerms(text);
  if (ctx.pg)
    return [
      sql`update ${sql.table(table(kind))} set search = to_tsvector('simple', ${terms.join(" ")}), n_terms = ${terms.length} where brain_id = ${brainId} and id = ${id}`,
    ];
  const fts = sql.table(await ctx.ftsByBrain.ensure(trx, kind, brainId));
  const rowid = sql`(select rowid from ${sql.table(table(kind))} where brain_id = ${brainId} and id = ${id})`;
  return [
    ...(replace ? [sql`delete from ${fts} where rowid = ${rowid}`] : []),
    sql`insert into ${fts} (rowid, terms) values (${rowid}, ${terms.join(" ")})`,
  ];
}

/** Columns PostgreSQL requires on insert before `indexText` fills them. */
export const searchPlaceholder = (pg: boolean) => (pg ? { search: sql`''::tsvector`, n_terms: 0 } : {});

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
    ...scopeRow(e),
  };
}

/**
 * Inserts rows of `kind` with their full-text rows in a few multi-row statements (one round trip per chunk, not
 * two per row): PostgreSQL computes the tsvector in the insert, SQLite fills the brain's FTS5 table from the
 * inserted rows' rowids. The text indexed is what `indexText` would write.
 */
export async function insertIndexed<T extends { id: string }>(
  ctx: MemoryStoreContext,
  trx: Db,
  kind: Kind,
  brainId: string,
  items: readonly T[],
  row: (item: T) => Record<string, unknown>,
  text: (item: T) => string,
) {
  await executeBatch(trx, ctx.pg, await indexedInserts(ctx, trx, kind, brainId, items, row, text));
}

/** The statements of `insertIndexed`, to run in a batch with others. */
export async function indexedInserts<T extends { id: string }>(
  ctx: MemoryStoreContext,
  trx: Db,
  kind: Kind,
  brainId: string,
  items: readonly T[],
  row: (item: T) => Record<string, unknown>,
  text: (item: T) => string,
): Promise<BatchItem[]> {
  if (!items.length) return [];
  const { pg } = ctx;
  // at most 14 columns: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters per chunk
  const CHUNK = 200;
  const fts = pg ? null : sql.table(await ctx.ftsByBrain.ensure(trx, kind, brainId));
  const out: BatchItem[] = [];
  // a large episode's commit analyses the text of some 2,000 rows: the host's loop gets a turn between chunks
  const turn = timeSlicer();
  for (let i = 0; i < items.length; i += CHUNK) {
    if (i > 0) await turn();
    const chunk = items.slice(i, i + CHUNK);
    const terms = chunk.map((item) => searchTerms(text(item)));
    out.push(
      trx.insertInto(table(kind) as "memory_edges").values(
        chunk.map((item, k) => ({
          ...row(item),
          ...(pg ? { search: sql`to_tsvector('simple', ${terms[k]!.join(" ")})`, n_terms: terms[k]!.length } : {}),
        })) as never,
      ),
    );
    if (fts) {
      const rows = sql.join(chunk.map((item, k) => sql`(${item.id}, ${terms[k]!.join(" ")})`));
      out.push(sql`insert into ${fts} (rowid, terms)
        select t.rowid, v.column2 from (values ${rows}) v cross join ${sql.table(table(kind))} t
        where t.brain_id = ${brainId} and t.id = v.column1`);
    }
  }
  return out;
}

/** Inserts a commit's edges with their full-text rows (`insertIndexed`). */
export const insertEdges = (ctx: MemoryStoreContext, trx: Db, brainId: string, edges: EdgeRecord[]) =>
  insertIndexed(ctx, trx, "edges", brainId, edges, edgeRow, (e) => e.fact);

/** The statements of `insertEdges`. */
export const edgeInserts = (ctx: MemoryStoreContext, trx: Db, brainId: string, edges: EdgeRecord[]) =>
  indexedInserts(ctx, trx, "edges", brainId, edges, edgeRow, (e) => e.fact);
