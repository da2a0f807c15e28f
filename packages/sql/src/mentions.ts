// "The stored payload names one of these ids", as SQL: what an erasure deletes jobs and webhook deliveries by
// (core's JobStore.forgetMentions and WebhookStore.forgetMentions). Ids are matched as plain substrings (never LIKE
// patterns, whose `_` an id may hold), a chunk of ids per statement.
import { type DeleteQueryBuilder, type DeleteResult, type Kysely, type RawBuilder, sql } from "kysely";
import { truncateWal } from "./wal.js";

/** Ids per statement: each is one parameter. */
const CHUNK = 200;

/** `payload` holds any of `ids` (instr on SQLite, strpos on PostgreSQL). */
function mentionsAny(pg: boolean, ids: readonly string[]): RawBuilder<boolean> {
  const one = (id: string) => (pg ? sql`strpos(payload, ${id}) > 0` : sql`instr(payload, ${id}) > 0`);
  return sql<boolean>`(${sql.join(ids.map(one), sql` or `)})`;
}

/**
 * Deletes the rows of `rows` (a delete already narrowed to a queue's group or a scope) whose `payload` names any of
 * `ids`, every one of them without `ids`; answers how many. On SQLite the WAL is truncated after, so nothing of what
 * went stays in the file (the writer deletes securely).
 */
export async function deleteMentioning(
  db: Kysely<any>,
  pg: boolean,
  rows: DeleteQueryBuilder<any, any, DeleteResult>,
  ids: readonly string[] | undefined,
): Promise<number> {
  let n = 0;
  if (ids === undefined) n = Number((await rows.executeTakeFirst()).numDeletedRows);
  else
    for (let i = 0; i < ids.length; i += CHUNK)
      n += Number((await rows.where(mentionsAny(pg, ids.slice(i, i + CHUNK))).executeTakeFirst()).numDeletedRows);
  if (n && !pg) await truncateWal(db);
  return n;
}
