// Conversation context for full-text search. A turn of a conversation is often an answer whose subject
// was named a turn or two before ("What did you paint?" / "A sunset."), so an episode that names its
// conversation in metadata is indexed with the turns before it. Measured on LoCoMo conversations 1-5
// (evidence recall@10): turn alone 0.61, with the previous turn 0.69, with the two previous 0.71; with
// the next turn as well, +0.005 to +0.01 depending on the re-ranking (bench/memory-quality.ts).

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

/** The text full-text search indexes for an episode: its content, the turns before it (nearest first), then the turns after it. */
export function searchableText(content: string, previous: readonly string[], next: readonly string[] = []): string {
  return [content, ...previous, ...next].join("\n");
}
