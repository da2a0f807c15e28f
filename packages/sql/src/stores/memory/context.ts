// Conversation context in the SQL stores' episode index, as the in-memory store does it
// (domain/conversation.ts in @mountkit/memory): a turn is indexed with the two turns before it, and the
// turn before it is indexed again with it. The episode's conversation key, named by its metadata or
// inferred from the time since the brain's previous episode, is kept in a column (migration 5) so the
// previous turns are found through an index, in insertion order (rowid, or `ord` on PostgreSQL).
import {
  CONTEXT_TURNS,
  conversationKey,
  type EpisodeRecord,
  episodeConversation,
  INFERRED_TURN_CHARS,
  searchableText,
} from "@mountkit/memory";
import { type Kysely, sql } from "kysely";
import { sqlCount } from "../../limits.js";

type Db = Kysely<any>;

/**
 * The value of the `conversation` column for an episode about to be inserted (inside its transaction):
 * the conversation its metadata names, else (for an episode short enough to be a turn) one inferred from
 * the brain's latest stored episode (greatest created_at, then insertion order), as the in-memory store
 * does (`episodeConversation`); null: the episode is indexed alone.
 */
export async function newEpisodeConversation(trx: Db, pg: boolean, episode: EpisodeRecord): Promise<string | null> {
  const named = conversationKey(episode.metadata);
  if (named !== null) return named;
  if (episode.content.length > INFERRED_TURN_CHARS) return null;
  const previous = (await newestEpisodeQuery(pg, episode.brainId).execute(trx)).rows[0];
  return episodeConversation(episode, previous ? { occurredAt: Number(previous.occurred_at), conversation: previous.conversation } : null);
}

/**
 * The brain's latest stored episode: greatest created_at, then last inserted (rowid, or `ord` on PostgreSQL). Read
 * from memory_episodes_inserted, never by sorting the episodes of that millisecond (an import's can be thousands).
 */
export function newestEpisodeQuery(pg: boolean, brainId: string) {
  const order = sql.raw(pg ? "ord" : "rowid");
  return sql<{ id: string; occurred_at: number | string; conversation: string | null }>`
    select id, occurred_at, conversation from memory_episodes
    where brain_id = ${brainId}
    order by created_at desc, ${order} desc limit 1`;
}

/**
 * The turns before `episode` in `conversation`, newest first (what `contextIndexTexts` reads). `pg`: insertion order is
 * the `ord` column, else the rowid.
 */
export function neighboursQuery(pg: boolean, episode: EpisodeRecord, conversation: string) {
  const order = sql.raw(pg ? "ord" : "rowid");
  return sql<{ id: string; content: string }>`
    select id, content from memory_episodes
    where brain_id = ${episode.brainId} and conversation = ${conversation} and id <> ${episode.id}
    order by ${order} desc limit ${sqlCount(CONTEXT_TURNS + 1)}`;
}

/**
 * The index texts of a just-inserted episode: its own with the turns before it (`tail`, newest first, from
 * `neighboursQuery`; null: indexed alone), and the turn before it again with this one after it (`replace`).
 */
export function contextIndexTexts(
  episode: EpisodeRecord,
  tail: ReadonlyArray<{ id: string; content: string }> | null,
): Array<{ id: string; text: string; replace: boolean }> {
  if (tail === null) return [{ id: episode.id, text: episode.content, replace: false }];
  const own = {
    id: episode.id,
    text: searchableText(
      episode.content,
      tail.slice(0, CONTEXT_TURNS).map((t) => t.content),
    ),
    replace: false,
  };
  const prev = tail[0];
  if (!prev) return [own];
  return [
    own,
    {
      id: prev.id,
      text: searchableText(
        prev.content,
        tail.slice(1, CONTEXT_TURNS + 1).map((t) => t.content),
        [episode.content],
      ),
      replace: true,
    },
  ];
}
