// "The stored text names one of these ids", as SQL: what an erasure deletes jobs and webhook deliveries by
// (core's JobStore.forgetMentions and WebhookStore.forgetMentions). Ids are matched as plain substrings (never LIKE
// patterns, whose `_` an id may hold), a chunk of ids per statement.
import { type RawBuilder, sql } from "kysely";

/** Ids per statement: each is one parameter. */
export const MENTION_CHUNK = 200;

/** `column` holds any of `ids` (instr on SQLite, strpos on PostgreSQL). */
export function mentionsAnySql(pg: boolean, column: string, ids: readonly string[]): RawBuilder<boolean> {
  const one = (id: string) => (pg ? sql`strpos(${sql.ref(column)}, ${id}) > 0` : sql`instr(${sql.ref(column)}, ${id}) > 0`);
  return sql<boolean>`(${sql.join(ids.map(one), sql` or `)})`;
}

/** `ids` in chunks of MENTION_CHUNK (none for no id). */
export function mentionChunks(ids: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += MENTION_CHUNK) out.push(ids.slice(i, i + MENTION_CHUNK));
  return out;
}
