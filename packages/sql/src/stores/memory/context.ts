// Conversation context in the SQL stores' episode index, as the in-memory store does it
// (domain/conversation.ts in @mountkit/memory): a turn is indexed with the two turns before it, and the
// turn before it is indexed again with it. The episode's conversation key is kept in a column (migration
// 5) so the previous turns are found through an index, in insertion order (rowid, or `ord` on PostgreSQL).
import { CONTEXT_TURNS, conversationKey, type EpisodeRecord, searchableText } from "@mountkit/memory";
import { type Kysely, sql } from "kysely";

type Db = Kysely<any>;

/** Writes one episode's analysed text to the full-text index (`replace`: the row was indexed before). */
export type IndexEpisodeText = (trx: Db, brainId: string, id: string, text: string, replace: boolean) => Promise<void>;

/** The value of the `conversation` column for an episode. */
export const episodeConversation = (episode: Pick<EpisodeRecord, "metadata">): string | null => conversationKey(episode.metadata);

/**
 * Indexes a just-inserted episode (inside its transaction) with the turns before it, and indexes the turn
 * before it again with this one after it. `pg`: insertion order is the `ord` column, else the rowid.
 */
export async function indexEpisodeInContext(trx: Db, pg: boolean, episode: EpisodeRecord, indexText: IndexEpisodeText): Promise<void> {
  const conversation = episodeConversation(episode);
  if (conversation === null) {
    await indexText(trx, episode.brainId, episode.id, episode.content, false);
    return;
  }
  const order = sql.raw(pg ? "ord" : "rowid");
  const r = await sql<{ id: string; content: string }>`
    select id, content from memory_episodes
    where brain_id = ${episode.brainId} and conversation = ${conversation} and id <> ${episode.id}
    order by ${order} desc limit ${CONTEXT_TURNS + 1}`.execute(trx);
  const tail = r.rows;
  await indexText(
    trx,
    episode.brainId,
    episode.id,
    searchableText(
      episode.content,
      tail.slice(0, CONTEXT_TURNS).map((t) => t.content),
    ),
    false,
  );
  const prev = tail[0];
  if (prev)
    await indexText(
      trx,
      episode.brainId,
      prev.id,
      searchableText(
        prev.content,
        tail.slice(1, CONTEXT_TURNS + 1).map((t) => t.content),
        [episode.content],
      ),
      true,
    );
}
