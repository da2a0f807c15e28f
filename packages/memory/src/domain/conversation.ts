// Conversation context for full-text search. A turn of a conversation is often an answer whose subject
// was named a turn or two before ("What did you paint?" / "A sunset."), so an episode that names its
// conversation in metadata is indexed with the turns before it. Measured on LoCoMo conversations 1-5
// (evidence recall@10): turn alone 0.61, with the previous turn 0.69, with the two previous 0.71; with
// the next turn as well, +0.005 to +0.01 depending on the re-ranking (bench/memory-quality.ts). Turns
// that name no conversation get one inferred from the time between them (`episodeConversation`).

/** Metadata keys that name the conversation an episode belongs to, first present wins. */
export const CONVERSATION_KEYS = ["conversation", "conversationId", "thread", "threadId", "session", "sessionId"] as const;

/**
 * Previous turns of the same conversation indexed with an episode. The next turn is indexed with it too:
 * when a turn arrives, the turn before it is indexed again with it (a turn is often completed by the
 * answer after it: "Take a look at this." / "I painted that lake sunrise last year!").
 */
export const CONTEXT_TURNS = 2;

/**
 * The conversation an episode belongs to, or null when its metadata names none. The key names hold no
 * ":", so `key:value` is unambiguous (and storable: PostgreSQL text holds no NUL).
 */
export function conversationKey(metadata: Record<string, unknown>): string | null {
  for (const k of CONVERSATION_KEYS) {
    const v = metadata[k];
    if ((typeof v === "string" && v.trim()) || (typeof v === "number" && Number.isFinite(v))) return `${k}:${v}`;
  }
  return null;
}

/**
 * Turns stored without a conversation in their metadata are grouped by time: an episode that names none
 * joins the conversation inferred for the brain's previous episode (the latest stored: greatest
 * `createdAt`, then insertion order) when that one named none either and happened within this long of it
 * (`occurredAt`, either way); otherwise it starts one. Agents that store turns with only a time keep
 * their neighbour context: on the LoCoMo dev conversations without session metadata, evidence recall@10
 * equals the run with session ids (1.29x the BM25 baseline, in-memory and SQLite); each turn indexed
 * alone gave 1.07x where session ids gave 1.22x (bench/memory-quality.ts).
 */
export const CONVERSATION_GAP_MS = 30 * 60_000;

/**
 * The longest episode that can be a turn of an inferred conversation: a longer one (a document, a whole
 * transcript) is indexed alone, and the next episode starts a conversation of its own. It also keeps the
 * cost of indexing long unnamed episodes what it was: each is indexed once, with no neighbour's text.
 */
export const INFERRED_TURN_CHARS = 2_000;

/** Prefix of an inferred conversation's key (no metadata key is named so), then the id of its first episode. */
const INFERRED = "inferred:";

/** What the inference reads of the brain's previous episode. */
export interface PreviousEpisode {
  occurredAt: number;
  /** Its conversation key as stored (named or inferred), null for an episode stored before inference. */
  conversation: string | null;
}

/**
 * The conversation an episode is indexed in: the one its metadata names (`conversationKey`), else none
 * for an episode longer than INFERRED_TURN_CHARS, else the previous episode's inferred one when it is
 * within CONVERSATION_GAP_MS, else a new inferred one. Every store calls it with the brain's previous
 * episode, so turns group alike everywhere.
 */
export function episodeConversation(
  episode: { id: string; content: string; metadata: Record<string, unknown>; occurredAt: number },
  previous: PreviousEpisode | null,
): string | null {
  const named = conversationKey(episode.metadata);
  if (named !== null) return named;
  if (episode.content.length > INFERRED_TURN_CHARS) return null;
  if (previous?.conversation && isInferredConversation(previous.conversation)) {
    if (Math.abs(episode.occurredAt - previous.occurredAt) <= CONVERSATION_GAP_MS) return previous.conversation;
  }
  return `${INFERRED}${episode.id}`;
}

/** Whether a conversation key was inferred rather than named by metadata. */
export const isInferredConversation = (key: string | null): boolean => key?.startsWith(INFERRED) === true;

/** The text full-text search indexes for an episode: its content, the turns before it (nearest first), then the turns after it. */
export function searchableText(content: string, previous: readonly string[], next: readonly string[] = []): string {
  return [content, ...previous, ...next].join("\n");
}
